/**
 * Sending a timeline of decisions through a package's limiter: on the
 * injected clock (moved to each decision's time, instantly), or in real time
 * (each decision sent when its time comes, and recorded at the moment it was
 * sent). Decisions go one at a time, in time order.
 */
import { InterruptedError } from '../core/errors.js';
import { realNowMs, type RunClock } from './clock.js';
import type { ClientEvent } from './traffic.js';
import type { ClientLimiter } from './types.js';

/** How a phase's time passes: the run's injected clock, from `startMs`, or real time. */
export type Timing = { readonly kind: 'injected'; readonly clock: RunClock } | { readonly kind: 'real-time' };

/** One decision as made: the event, when it was sent (ms from the phase's start) and the package's answer. */
export interface Decided {
  readonly id: string;
  readonly atMs: number;
  readonly allowed: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `events` through `limiter`; returns each decision with the time it was made at. */
export async function drive(limiter: ClientLimiter, events: readonly ClientEvent[], timing: Timing, signal?: AbortSignal): Promise<Decided[]> {
  const decided: Decided[] = [];
  if (timing.kind === 'injected') {
    const start = timing.clock.nowMs;
    for (const event of events) {
      if (signal?.aborted) throw new InterruptedError();
      timing.clock.nowMs = Math.max(timing.clock.nowMs, start + event.atMs);
      decided.push({ id: event.id, atMs: timing.clock.nowMs - start, allowed: await limiter.decide(event.id) });
    }
    return decided;
  }
  const start = realNowMs();
  for (const event of events) {
    if (signal?.aborted) throw new InterruptedError();
    const wait = start + event.atMs - realNowMs();
    if (wait >= 1) await sleep(wait);
    const atMs = realNowMs() - start;
    decided.push({ id: event.id, atMs, allowed: await limiter.decide(event.id) });
  }
  return decided;
}
