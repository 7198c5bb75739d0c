import { HOUR_SECONDS } from '../layouts/stoplight/v5.js';
import { BENCH_EPOCH } from '../traffic/events.js';
import { createRng, type Rng } from '../traffic/random.js';
import type { ReproCall, TrafficCall, TrafficLight, VerifyOp, VerifyTraffic } from './types.js';

/** More buckets than Lua's unpack() takes in one go (about 8000 values, two per bucket). */
export const BACKLOG_BUCKETS = 4100;
/** The window of the light that builds the backlog: it must hold {@link BACKLOG_BUCKETS} seconds. */
export const BACKLOG_WINDOW_SECONDS = 7200;
/** Below this many calls there is no room for the backlog light and the others. */
const BACKLOG_MIN_CALLS = 6000;

/**
 * Windows from 1 s to 2 h: tiny ones where every call crosses the edge, an
 * hour and either side of it (5.x hour keys), and ones longer than the
 * 3,999 s an unbatched eviction survives.
 */
const WINDOWS = [1, 2, 3, 7, 60, 299, 3599, 3600, 3601, 4000, 4001, 7200] as const;

/** Options for {@link generateTraffic}. */
export interface TrafficOptions {
  readonly seed: number;
  /** Calls in all, over every light. */
  readonly calls: number;
  /** How many lights (default 8). */
  readonly lights?: number;
}

/**
 * Seeded traffic for `swc verify`: several lights, each with its own window
 * and its own injected clock, interleaved at random. Each light mixes both
 * outcomes and reads, with irregular gaps, bursts inside one second, reads
 * either side of the window's edge, idle gaps longer than the window, events
 * in the first second of an hour, and (given enough calls) one light that
 * fills more than 4,000 seconds of a 2-hour window and then idles, so one
 * call must evict them all. The same seed gives the same calls.
 */
export function generateTraffic(options: TrafficOptions): VerifyTraffic {
  const rng = createRng(options.seed);
  const lightCount = Math.max(1, Math.min(options.lights ?? 8, options.calls));
  const backlog = options.calls >= BACKLOG_MIN_CALLS && lightCount >= 2;
  const lights: TrafficLight[] = [];
  const streams: ReproCall[][] = [];
  // Distinct windows while they last, in a seeded order.
  const windows: number[] = [...WINDOWS];
  for (let i = windows.length - 1; i > 0; i -= 1) {
    const j = rng.int(i + 1);
    [windows[i], windows[j]] = [windows[j] as number, windows[i] as number];
  }
  // The backlog light needs its backlog plus some traffic after it; the others share the rest.
  const backlogShare = backlog ? Math.max(BACKLOG_BUCKETS + 400, Math.floor(options.calls / lightCount)) : 0;
  const others = backlog ? lightCount - 1 : lightCount;
  const rest = options.calls - backlogShare;
  for (let i = 0; i < lightCount; i += 1) {
    const withBacklog = backlog && i === 0;
    const windowSeconds = withBacklog ? BACKLOG_WINDOW_SECONDS : (windows[i % windows.length] as number);
    lights.push({ windowSeconds });
    const k = backlog ? i - 1 : i;
    const share = withBacklog ? backlogShare : Math.floor(rest / others) + (k < rest % others ? 1 : 0);
    // Each light starts a little after an hour boundary of its own.
    const start = BENCH_EPOCH + rng.int(24) * HOUR_SECONDS + 1 + rng.next() * 10;
    streams.push(lightCalls(rng, windowSeconds, start, share, withBacklog));
  }
  return { lights, calls: interleave(rng, streams) };
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[rng.int(items.length)] as T;
}

/** Merges per-light streams at random, keeping each light's order. */
function interleave(rng: Rng, streams: readonly ReproCall[][]): TrafficCall[] {
  const next = streams.map(() => 0);
  const remaining = streams.map((s) => s.length);
  let left = remaining.reduce((a, b) => a + b, 0);
  const calls: TrafficCall[] = [];
  while (left > 0) {
    let pick = rng.int(left);
    let light = 0;
    while (pick >= (remaining[light] as number)) {
      pick -= remaining[light] as number;
      light += 1;
    }
    const call = (streams[light] as ReproCall[])[next[light] as number] as ReproCall;
    calls.push({ light, op: call.op, at: call.at });
    next[light] = (next[light] as number) + 1;
    remaining[light] = (remaining[light] as number) - 1;
    left -= 1;
  }
  return calls;
}

/**
 * `at` on whole microseconds, as a clock reading is: a time a fraction of a
 * microsecond below a millisecond would otherwise be stamped in one
 * millisecond by a script given the time as a number and in the one before
 * by a script given it as TIME (seconds and whole microseconds), and the
 * difference would be a finding of the arithmetic, not of the layout.
 */
function onMicroseconds(at: number): number {
  return Math.round(at * 1_000_000) / 1_000_000;
}

/** One light's calls, in time order. */
function lightCalls(rng: Rng, window: number, start: number, count: number, withBacklog: boolean): ReproCall[] {
  const calls: ReproCall[] = [];
  const push = (op: VerifyOp, at: number): void => {
    // Never back in time, whatever a pattern's arithmetic gives on a tiny window.
    if (calls.length < count) calls.push({ op, at: Math.max(onMicroseconds(at), calls.at(-1)?.at ?? at) });
  };
  const outcome = (): VerifyOp => (rng.next() < 0.45 ? 'failure' : 'success');
  let t = start;
  if (withBacklog) {
    // One event in each of BACKLOG_BUCKETS consecutive seconds, a read now and then,
    // then an idle gap longer than the window: the next call evicts every bucket at once.
    const first = Math.floor(t) + 1;
    for (let i = 0; i < BACKLOG_BUCKETS; i += 1) {
      push(outcome(), first + i + rng.next() * 0.99);
      if (i % 700 === 699) push('read', first + i + 0.995);
    }
    t = first + BACKLOG_BUCKETS + window + 1 + rng.int(30) + rng.next();
    push('read', t);
    push(outcome(), t);
  }
  while (calls.length < count) {
    const mode = rng.int(20);
    if (mode < 8) {
      // Irregular gaps: mostly small against the window, now and then most of it.
      const stretch = 5 + rng.int(20);
      for (let i = 0; i < stretch; i += 1) {
        const scale = rng.next() < 0.1 ? window : window / 20;
        t += Math.max(0.001, scale * rng.next() * rng.next());
        push(rng.next() < 0.3 ? 'read' : outcome(), t);
      }
    } else if (mode < 11) {
      // A burst inside one second, reads between the writes.
      const second = Math.floor(t) + 1;
      const events = 3 + rng.int(8);
      for (let i = 0; i < events; i += 1) push(i % 3 === 2 ? 'read' : outcome(), second + (i + rng.next()) / (events + 1));
      t = second + 0.99;
    } else if (mode < 15) {
      // The edge of the window: reads one second before, on and after the
      // second the oldest event leaves.
      const second = Math.floor(t) + 1;
      push(outcome(), second + rng.next() * 0.5);
      const edge = second + window + (rng.int(3) - 1);
      push('read', edge + pick(rng, [0, 0.5, 0.999]));
      push('read', edge + 1);
      t = edge + 1;
    } else if (mode < 17) {
      // Idle longer than the window, then a read and an event.
      t = Math.floor(t + window + 1 + rng.int(window * 2 + 5)) + pick(rng, [0, 0.5, 0.999]);
      push('read', t);
      push(outcome(), t);
    } else {
      // The first second of an hour: events in it, and reads in it and just after.
      const hour = (Math.floor(t / HOUR_SECONDS) + 1) * HOUR_SECONDS;
      push(outcome(), hour - 0.5);
      push(outcome(), hour + rng.next() * 0.4);
      push('read', hour + 0.5);
      push(outcome(), hour + 0.6);
      push('read', hour + 0.9);
      push('read', hour + 1);
      t = hour + 1;
    }
  }
  return calls;
}
