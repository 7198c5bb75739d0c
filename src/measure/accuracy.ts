import type { Redis } from 'ioredis';
import { InterruptedError, ScriptError } from '../errors.js';
import type { Layout, Light, Snapshot } from '../layouts/types.js';
import type { ScriptCall } from '../lua/source.js';
import { SlidingWindowModel, type WindowCounts } from '../model/sliding-window.js';
import { execPipeline } from '../redis/scripts.js';
import { errorJsonFor, evenTraffic } from '../traffic/events.js';

/** How far a layout's failure ratio was from the exact window's, over the reads of one cell. */
export interface AccuracyResult {
  /** Reads compared. */
  readonly reads: number;
  /** Largest and mean |layout ratio − exact ratio|, the ratio being failures / (successes + failures) (0 with no events). */
  readonly maxAbsError: number;
  readonly meanAbsError: number;
  /** The failure ratio at or above which a light opens. */
  readonly threshold: number;
  /** Share of reads (0..1) where the layout and the exact window fall on different sides of `threshold`. */
  readonly decisionMismatchShare: number;
}

/** What {@link measureAccuracy} drives. */
export interface AccuracySpec {
  readonly windowSeconds: number;
  /** Requests per second. */
  readonly rate: number;
  /** Share of failures outside the incident. */
  readonly failureRate: number;
  readonly seed: number;
  readonly threshold: number;
  /** Time of the first event, Unix seconds. */
  readonly startAt: number;
  /** At most this many reads (default 2,000), spread evenly over the measured two windows. */
  readonly maxReads?: number;
  readonly signal?: AbortSignal;
}

/** Calls per pipeline: enough to keep the server busy, small enough to stop soon on Ctrl-C. */
const BATCH = 2_000;

/** The failure ratio a light opens on; 0 for an empty window. */
function ratioOf(counts: WindowCounts | Snapshot): number {
  const total = counts.successes + counts.failures;
  return total > 0 ? counts.failures / total : 0;
}

/**
 * The traffic's phases, in windows from the start: a first window that
 * fills it, then two measured windows. From 1.25 to 1.5 windows every
 * request fails (an incident), so the ratio crosses any threshold on the
 * way up and on the way down, where approximate layouts differ most.
 */
const INCIDENT = { from: 1.25, to: 1.5 } as const;

/**
 * Drives three windows of evenly spaced traffic at the cell's rate through
 * `layout` on `light` (outcomes seeded at `failureRate`, all failures during
 * an incident of a quarter window), reads the light at evenly spaced times
 * in the last two windows, and compares each read's failure ratio with the
 * exact window's (the reference model with the layout's window semantics).
 * The caller deletes the light's keys (`layout.keysOf(light, startAt, end)`);
 * the end is returned.
 */
export async function measureAccuracy(
  redis: Redis,
  layout: Layout,
  light: Light,
  spec: AccuracySpec,
): Promise<{ accuracy: AccuracyResult; endAt: number }> {
  const { windowSeconds: w, rate } = spec;
  const durationSeconds = 3 * w;
  const model = new SlidingWindowModel(w, layout.windowSemantics, layout.capabilities.maxWindowSeconds ?? Number.POSITIVE_INFINITY);
  const readCount = Math.max(1, Math.min(spec.maxReads ?? 2_000, 2 * w));
  const readStep = (2 * w) / readCount;
  // Reads just before a whole second ends, so they see that second's events.
  const readTimes = Array.from({ length: readCount }, (_, i) => spec.startAt + w + (i + 1) * readStep - 0.001);
  const incidentFrom = spec.startAt + INCIDENT.from * w;
  const incidentTo = spec.startAt + INCIDENT.to * w;

  let calls: ScriptCall[] = [];
  let expected: { index: number; ratio: number }[] = [];
  let failures = 0;
  let errorSum = 0;
  let maxError = 0;
  let mismatches = 0;
  let reads = 0;
  const flush = async (): Promise<void> => {
    if (spec.signal?.aborted) throw new InterruptedError();
    const replies = await execPipeline(redis, calls);
    for (const { index, ratio } of expected) {
      const [err, reply] = replies[index] ?? [new Error('no reply'), null];
      if (err) throw err instanceof Error ? err : new ScriptError(String(err));
      const actual = ratioOf(layout.parseMetrics(reply));
      const error = Math.abs(actual - ratio);
      errorSum += error;
      maxError = Math.max(maxError, error);
      if (actual >= spec.threshold !== ratio >= spec.threshold) mismatches += 1;
      reads += 1;
    }
    calls = [];
    expected = [];
  };
  const read = (at: number): void => {
    calls.push(layout.getMetrics(light, { windowSeconds: w, at }));
    expected.push({ index: calls.length - 1, ratio: ratioOf(model.count(at)) });
  };

  let nextRead = 0;
  for (const event of evenTraffic({ rate, durationSeconds, failureRate: spec.failureRate, seed: spec.seed, startAt: spec.startAt })) {
    while (nextRead < readTimes.length && (readTimes[nextRead] as number) < event.at) read(readTimes[nextRead++] as number);
    const outcome = event.at >= incidentFrom && event.at < incidentTo ? 'failure' : event.outcome;
    const options = { windowSeconds: w, at: event.at, eventId: event.eventId };
    calls.push(
      outcome === 'success'
        ? layout.recordSuccess(light, options)
        : layout.recordFailure(light, { ...options, errorJson: errorJsonFor(event.at, failures++) }),
    );
    model.record(event.at, outcome);
    if (calls.length >= BATCH) await flush();
  }
  while (nextRead < readTimes.length) read(readTimes[nextRead++] as number);
  await flush();
  return {
    accuracy: {
      reads,
      maxAbsError: maxError,
      meanAbsError: reads > 0 ? errorSum / reads : 0,
      threshold: spec.threshold,
      decisionMismatchShare: reads > 0 ? mismatches / reads : 0,
    },
    endAt: spec.startAt + durationSeconds + 1,
  };
}
