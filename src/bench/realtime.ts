import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { setImmediate as yieldToIo, setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { InterruptedError, UsageError } from '../core/errors.js';
import type { Layout, Light } from '../layouts/types.js';
import type { RealtimeResult } from '../measure/types.js';
import { execPipeline } from '../redis/scripts.js';
import { type ScriptCall } from '../lua/source.js';
import { errorJsonFor, evenTraffic, eventCount, lightSeed, type TrafficEvent } from '../traffic/events.js';
import { isoMoment } from '../core/format.js';

/** Calls per pipeline at most: a client that fell far behind catches up in batches this size. */
const MAX_BATCH = 1000;
/**
 * Batches awaiting replies at most. Sending does not wait for the previous
 * reply (real callers do not queue behind each other), but a server that
 * stalls must not make the client pile up unbounded work.
 */
const MAX_IN_FLIGHT = 64;
/** The longest nap between checks of the abort signal, so Ctrl-C stops a slow rate within ~100 ms. */
const MAX_NAP_MS = 50;
const NS_PER_MS = 1e6;

/** Options of {@link driveRealtime}. */
export interface RealtimeOptions {
  /** A connection; the layout's scripts must be loaded on its server (SCRIPT LOAD). */
  readonly redis: Redis;
  readonly layout: Layout;
  /** The lights to send to; they share one pacing loop. */
  readonly lights: readonly Light[];
  readonly windowSeconds: number;
  /** Events per second per light. */
  readonly rate: number;
  /** Real seconds of traffic. */
  readonly seconds: number;
  /** 0..1: share of failures (seeded Bernoulli per event). */
  readonly failureRate: number;
  /** Outcomes and event ids come from `lightSeed(seed, i)` per light, as in the injected mode. */
  readonly seed: number;
  /** Aborting stops sending at once; the call then rejects with an InterruptedError. */
  readonly signal?: AbortSignal;
  /** Events whose reply came back, as each batch completes. */
  readonly onEvents?: (written: number) => void;
}

function checkOptions(options: RealtimeOptions): number {
  const { lights, rate, seconds, failureRate } = options;
  if (lights.length === 0) throw new UsageError('realtime: at least one light is needed');
  if (!(rate > 0) || !Number.isFinite(rate)) throw new UsageError(`realtime: rate must be > 0, got ${rate}`);
  if (!(seconds > 0) || !Number.isFinite(seconds)) throw new UsageError(`realtime: seconds must be > 0, got ${seconds}`);
  if (!(failureRate >= 0 && failureRate <= 1)) throw new UsageError(`realtime: failure rate must be in 0..1, got ${failureRate}`);
  const perLight = eventCount({ rate, durationSeconds: seconds });
  if (perLight < 1) throw new UsageError(`realtime: ${rate}/s for ${seconds} s is less than one event`);
  return perLight;
}

/** HDR histograms take integers >= 1; nanoseconds keep sub-microsecond detail. */
function recordMs(histogram: RecordableHistogram, ms: number, times = 1): void {
  const ns = Math.max(1, Math.round(ms * NS_PER_MS));
  for (let i = 0; i < times; i += 1) histogram.record(ns);
}

const percentileMs = (histogram: RecordableHistogram, p: number): number => (histogram.count === 0 ? 0 : histogram.percentile(p) / NS_PER_MS);

/**
 * Sends real traffic to `lights` at `rate` events per second each, for
 * `seconds` of real time, with the event time left out so every script uses
 * Redis TIME (5.x picks its hour key from this machine's clock, as the 5.x
 * client did).
 *
 * Pacing: the cell's events form one stream, lights in turn, the k-th due at
 * `start + (k + 1) / (rate × lights)` on the monotonic clock. Each tick sends
 * every event already due as one pipeline and naps until the next is due, so
 * timer jitter delays events but never accumulates. Sending does not wait for
 * earlier replies (up to {@link MAX_IN_FLIGHT} batches). A client that cannot
 * keep up drops nothing: it sends as fast as it can, the run lasts longer,
 * and the result says by how much (`shortfall`, lateness).
 *
 * The keys written are the caller's to measure and delete: for 5.x they are
 * the hour keys from `startedAt` to `endedAt`.
 */
export async function driveRealtime(options: RealtimeOptions): Promise<RealtimeResult> {
  const perLight = checkOptions(options);
  const { redis, layout, lights, windowSeconds, rate, seconds, failureRate, seed, signal, onEvents } = options;
  // Outcomes and ids only: the injected times of these streams are not used.
  const streams = lights.map((_, i) => evenTraffic({ rate, durationSeconds: seconds, failureRate, seed: lightSeed(seed, i), startAt: 0 }));
  const total = perLight * lights.length;
  const msPerEvent = 1000 / (rate * lights.length);
  const lateness = createHistogram();
  const latency = createHistogram();
  let lateMaxMs = 0;
  let latencyMaxMs = 0;
  let sent = 0;
  let failures = 0;
  let failure: unknown;
  const inFlight = new Set<Promise<void>>();

  const callFor = (k: number): ScriptCall => {
    const light = lights[k % lights.length] as Light;
    const event = (streams[k % lights.length] as Generator<TrafficEvent>).next().value as TrafficEvent;
    const call = { windowSeconds, eventId: event.eventId };
    return event.outcome === 'success'
      ? layout.recordSuccess(light, call)
      : layout.recordFailure(light, { ...call, errorJson: errorJsonFor(Date.now() / 1000, failures++, layout.stampPrecision) });
  };

  const send = (batch: ScriptCall[], sentAt: number): void => {
    const pending: Promise<void> = execPipeline(redis, batch)
      .then((replies) => {
        const failed = replies.find(([err]) => err);
        if (failed?.[0]) throw failed[0];
        const ms = performance.now() - sentAt;
        recordMs(latency, ms, batch.length);
        latencyMaxMs = Math.max(latencyMaxMs, ms);
        onEvents?.(batch.length);
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(pending));
    inFlight.add(pending);
  };

  const startedAt = Date.now() / 1000;
  const start = performance.now();
  let lastSentAt = start;
  while (sent < total && failure === undefined) {
    if (signal?.aborted) throw new InterruptedError();
    const now = performance.now();
    const due = Math.min(total, Math.floor((now - start) / msPerEvent));
    if (due <= sent) {
      await sleep(Math.min(MAX_NAP_MS, start + (sent + 1) * msPerEvent - now));
      continue;
    }
    const first = sent;
    const end = Math.min(due, first + MAX_BATCH);
    const batch: ScriptCall[] = [];
    for (let k = first; k < end; k += 1) batch.push(callFor(k));
    // Lateness is measured when the batch leaves, so building it counts as late too.
    const sentAt = performance.now();
    for (let k = first; k < end; k += 1) {
      const lateMs = sentAt - (start + (k + 1) * msPerEvent);
      recordMs(lateness, lateMs);
      lateMaxMs = Math.max(lateMaxMs, lateMs);
    }
    send(batch, sentAt);
    sent = end;
    lastSentAt = sentAt;
    // Let replies in (and progress out) between batches; wait only when too much is pending.
    if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    else await yieldToIo();
  }
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  if (signal?.aborted) throw new InterruptedError();

  const elapsed = (lastSentAt - start) / 1000;
  const achievedRate = elapsed > 0 ? perLight / elapsed : rate;
  return {
    requestedRate: rate,
    achievedRate,
    shortfallFraction: Math.max(0, 1 - achievedRate / rate),
    durationSeconds: elapsed,
    events: perLight,
    eventsTotal: total,
    lights: lights.length,
    lateP50Ms: percentileMs(lateness, 50),
    lateP99Ms: percentileMs(lateness, 99),
    lateMaxMs,
    write: {
      p50Ms: percentileMs(latency, 50),
      p99Ms: percentileMs(latency, 99),
      p999Ms: percentileMs(latency, 99.9),
      meanMs: latency.count === 0 ? 0 : latency.mean / NS_PER_MS,
      maxMs: latencyMaxMs,
      ops: total,
    },
    startedAt: isoMoment(startedAt),
    endedAt: isoMoment(Date.now() / 1000),
  };
}
