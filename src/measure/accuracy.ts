import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { InterruptedError, ScriptError } from '../core/errors.js';
import type { Layout, Light, Snapshot } from '../layouts/types.js';
import type { ScriptCall } from '../lua/source.js';
import { SlidingWindowModel, type WindowCounts } from '../model/sliding-window.js';
import { classifyRedisError } from '../redis/errors.js';
import { callLimitsOf } from '../redis/call-limits.js';
import { ReplyTooLargeError, RequestWriter, RespConnection } from '../redis/resp.js';
import { flushedFrom, isNoScript, loadScripts, oversizeError, rerunFlushedTail } from '../redis/scripts.js';
import { errorJsonFor, evenTraffic } from '../traffic/events.js';
import { parseScriptCommandStats, scriptCommandDelta } from './commandstats.js';
import { awaitShare, cappedBatch } from './load.js';

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
  readonly decisionMismatchFraction: number;
  /** Events written to the accuracy light (1.25 windows at the cell's rate). */
  readonly events?: number;
  /** Wall seconds of the accuracy phase (traffic, reads and the server-cost probe): what it added to the run when it ran in line; on the accuracy lane it ran beside the next cells' fills. */
  readonly durationSeconds?: number;
}

/**
 * The server's own time per script call of a layout, from `INFO commandstats`
 * deltas around a short pipelined probe on the accuracy light once its window
 * is full: writes continuing its traffic, then reads. Server time only (no
 * round trip, no client), so a loaded client machine moves it little; other
 * clients' scripts on a shared server would count too.
 */
export interface ServerCost {
  readonly writeUsecPerCall: number;
  readonly readUsecPerCall: number;
  /** What one Stoplight request costs the server: a read and a write. */
  readonly requestUsecPerCall: number;
  /** Calls per probe (writes, and as many reads). */
  readonly calls: number;
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
  /** Called after each batch with the events it wrote (progress). */
  readonly onEvents?: (written: number) => void;
  /** Also measure the layout's server time per write and read (see {@link ServerCost}); default true. */
  readonly serverCost?: boolean;
  readonly signal?: AbortSignal;
  /** A load cap (bench --max-ops): calls per second at most; absent = as fast as the server answers. */
  readonly maxOpsPerSecond?: number;
}

/**
 * The traffic, in windows from the start: 1.25 windows of evenly spaced
 * requests at the cell's rate, every one failing from 0.05 to 0.2 windows
 * (an incident). The incident enters a window that is still filling, then
 * leaves it between 1.05 and 1.2 windows: the exact ratio falls back to the
 * base failure rate, the first events leave the window from 1 window on
 * (rings wrap, logs prune, buckets expire), and an approximate layout is
 * wrong where it is: a coarse bucket drops the incident's seconds at the
 * window's old end early, a two-window estimate still weighs the previous
 * fixed window that held the incident. Barely more than one window: the
 * events are what the phase costs.
 */
export const ACCURACY_TRAFFIC = { windows: 1.25, incidentFrom: 0.05, incidentTo: 0.2 } as const;
/** Reads evenly spread over the last window of the traffic (from 0.25 to 1.25 windows). */
export const EVEN_READS = 240;
/** Plus a read at the end of every whole second this long after each incident edge leaves the window (bucket edges of up to a minute). */
export const EDGE_READ_SECONDS = 60;
/** Calls per pipelined batch: enough to keep the server busy, small enough to stop soon on Ctrl-C. */
const BATCH = 2_000;
/** Writes, then reads, per server-cost probe. */
export const PROBE_CALLS = 500;
/** Pipelines per probe: the fastest one's mean is the figure. */
export const PROBE_BATCHES = 10;

/** The failure ratio a light opens on; 0 for an empty window. */
function ratioOf(counts: WindowCounts | Snapshot): number {
  const total = counts.successes + counts.failures;
  return total > 0 ? counts.failures / total : 0;
}

/** Events of the accuracy traffic at `rate` over a `windowSeconds` window. */
export function accuracyEvents(windowSeconds: number, rate: number): number {
  return Math.round(rate * ACCURACY_TRAFFIC.windows * windowSeconds);
}

/**
 * When the accuracy light is read, Unix seconds, ascending: {@link EVEN_READS}
 * evenly over the last window of the traffic, and the end of every whole
 * second for {@link EDGE_READ_SECONDS} after each incident edge starts to
 * leave the window (where a bucketed layout's error peaks, whatever its
 * bucket size). A read falls a millisecond before its time, so it sees the
 * second it ends.
 */
export function accuracyReadTimes(startAt: number, windowSeconds: number): number[] {
  const w = windowSeconds;
  const from = startAt + (ACCURACY_TRAFFIC.windows - 1) * w;
  const to = startAt + ACCURACY_TRAFFIC.windows * w;
  const times = new Set<number>();
  const add = (t: number): void => {
    if (t > from && t <= to) times.add(Math.round((t - 0.001) * 1e6) / 1e6);
  };
  for (let i = 1; i <= EVEN_READS; i += 1) add(from + (i * (to - from)) / EVEN_READS);
  for (const edge of [ACCURACY_TRAFFIC.incidentFrom, ACCURACY_TRAFFIC.incidentTo]) {
    const first = Math.ceil(startAt + (1 + edge) * w);
    for (let k = first; k <= first + EDGE_READ_SECONDS; k += 1) add(k);
  }
  return [...times].sort((a, b) => a - b);
}

/** One pipelined batch: its calls and, for each read among them, what the exact window says. */
interface Batch {
  calls: ScriptCall[];
  reads: { index: number; ratio: number }[];
  writer: RequestWriter;
}

/** Sends a batch and returns its replies; a SCRIPT FLUSH part-way re-runs the flushed tail in order, any other error reply stops. */
async function exchange(connection: RespConnection, batch: Batch): Promise<unknown[]> {
  let replies: unknown[];
  try {
    replies = await connection.exchange(batch.writer.bytes(), batch.calls.length);
  } catch (err) {
    // The connection stopped reading a reply over the bound: name the script that gave it.
    const call = err instanceof ReplyTooLargeError ? batch.calls[err.index ?? 0] : undefined;
    throw call ? oversizeError(call.script, err instanceof ReplyTooLargeError ? err.bytes : 0) : err;
  }
  const missing = flushedFrom(replies.length, (i) => isNoScript(replies[i]));
  if (missing < replies.length) {
    const tail = await rerunFlushedTail(connection.channel, batch.calls, missing, replies[missing], { busyWaitMs: 0 });
    replies.splice(missing, tail.length, ...tail);
  }
  const failed = replies.findIndex((r) => r instanceof Error);
  if (failed !== -1) {
    const call = batch.calls[failed] as ScriptCall;
    const server = callLimitsOf(connection.channel.server)?.shownServer;
    throw classifyRedisError((replies[failed] as Error).message, {
      script: call.script,
      command: 'EVALSHA',
      keys: call.keys,
      user: connection.channel.user,
      ...(server !== undefined ? { server } : {}),
    });
  }
  return replies;
}

/**
 * Drives 1.25 windows of evenly spaced traffic at the cell's rate through
 * `layout` on `light` (outcomes seeded at `failureRate`, all failures during
 * the incident, see {@link ACCURACY_TRAFFIC}), reads the light at
 * {@link accuracyReadTimes}, and compares each read's failure ratio, as the
 * layout's scripts answered it, with the exact window's (the reference model
 * with the layout's window semantics). Writes and reads go in pipelined
 * batches over one lean connection, the next batch built while one is on
 * the server. Then, unless `spec.serverCost` is false, the layout's server
 * time per write and per read (see {@link ServerCost}).
 *
 * The caller deletes the light's keys (`layout.keysOf(light, startAt, endAt)`).
 */
export async function measureAccuracy(
  target: Redis | RespConnection,
  layout: Layout,
  light: Light,
  spec: AccuracySpec,
): Promise<{ accuracy: AccuracyResult; serverCost?: ServerCost; endAt: number }> {
  const { windowSeconds: w, rate } = spec;
  const started = performance.now();
  const connection = target instanceof RespConnection ? target : await RespConnection.open(target.options);
  try {
    await loadScripts(connection.channel, layout.scripts);
    const durationSeconds = ACCURACY_TRAFFIC.windows * w;
    const model = new SlidingWindowModel(w, layout.windowSemantics, layout.capabilities.maxWindowSeconds ?? Number.POSITIVE_INFINITY);
    const readTimes = accuracyReadTimes(spec.startAt, w);
    const incidentFrom = spec.startAt + ACCURACY_TRAFFIC.incidentFrom * w;
    const incidentTo = spec.startAt + ACCURACY_TRAFFIC.incidentTo * w;
    const events = evenTraffic({ rate, durationSeconds, failureRate: spec.failureRate, seed: spec.seed, startAt: spec.startAt })[Symbol.iterator]();
    let pendingEvent = events.next();
    // Under --max-ops (a cap on the connection), batches small enough that none is a burst; otherwise the old call cap.
    const batchSize = connection.cap ? connection.cap.batch(BATCH) : cappedBatch(BATCH, spec.maxOpsPerSecond);
    let nextRead = 0;
    let failures = 0;
    let written = 0;
    let lastAt = spec.startAt;

    const read = (batch: Batch, at: number): void => {
      batch.calls.push(layout.getMetrics(light, { windowSeconds: w, at }));
      batch.reads.push({ index: batch.calls.length - 1, ratio: ratioOf(model.count(at)) });
    };
    const write = (batch: Batch, at: number, outcome: 'success' | 'failure', eventId: string): void => {
      const options = { windowSeconds: w, at, eventId };
      batch.calls.push(
        outcome === 'success'
          ? layout.recordSuccess(light, options)
          : layout.recordFailure(light, { ...options, errorJson: errorJsonFor(at, failures++, layout.stampPrecision) }),
      );
      model.record(at, outcome);
      written += 1;
      lastAt = at;
    };
    /** Fills `batch` with the next calls in time order (a read before an event at a later time); false when none is left. */
    const build = (batch: Batch): boolean => {
      batch.calls.length = 0;
      batch.reads.length = 0;
      while (batch.calls.length < batchSize) {
        const event = pendingEvent.done ? undefined : pendingEvent.value;
        const readAt = readTimes[nextRead];
        if (readAt !== undefined && (event === undefined || readAt < event.at)) {
          read(batch, readAt);
          nextRead += 1;
        } else if (event) {
          write(batch, event.at, event.at >= incidentFrom && event.at < incidentTo ? 'failure' : event.outcome, event.eventId);
          pendingEvent = events.next();
        } else break;
      }
      batch.writer.reset();
      for (const call of batch.calls) batch.writer.add(call);
      return batch.calls.length > 0;
    };

    let errorSum = 0;
    let maxError = 0;
    let mismatches = 0;
    let reads = 0;
    const slots: Batch[] = [0, 1].map(() => ({ calls: [], reads: [], writer: new RequestWriter(connection.channel.server) }));
    let current = 0;
    let ready = build(slots[0] as Batch);
    let sentCalls = 0;
    while (ready) {
      if (spec.signal?.aborted) throw new InterruptedError();
      const batch = slots[current] as Batch;
      // A load cap: this batch is due once the calls before it had their share of time.
      if (connection.cap) await connection.cap.take(connection.cap.callsWeight(batch.calls));
      else if (spec.maxOpsPerSecond !== undefined) await awaitShare(started, sentCalls, spec.maxOpsPerSecond);
      sentCalls += batch.calls.length;
      const sent = exchange(connection, batch);
      // The next batch is built while this one is on the server; the model is the client's, so nothing waits for a reply.
      const next = slots[1 - current] as Batch;
      ready = build(next);
      const replies = await sent;
      spec.onEvents?.(batch.calls.length - batch.reads.length);
      for (const { index, ratio } of batch.reads) {
        const actual = ratioOf(layout.parseMetrics(replies[index]));
        const error = Math.abs(actual - ratio);
        errorSum += error;
        maxError = Math.max(maxError, error);
        if (actual >= spec.threshold !== ratio >= spec.threshold) mismatches += 1;
        reads += 1;
      }
      current = 1 - current;
    }

    let serverCost: ServerCost | undefined;
    let endAt = spec.startAt + durationSeconds + 1;
    if (spec.serverCost !== false) {
      const probed = await probeServerCost(connection, layout, light, { ...spec, startAt: lastAt + 1 / rate, failures: () => failures++ });
      serverCost = probed.cost;
      endAt = Math.ceil(probed.endAt) + 1;
    }
    return {
      accuracy: {
        reads,
        maxAbsError: maxError,
        meanAbsError: reads > 0 ? errorSum / reads : 0,
        threshold: spec.threshold,
        decisionMismatchFraction: reads > 0 ? mismatches / reads : 0,
        events: written,
        durationSeconds: (performance.now() - started) / 1000,
      },
      ...(serverCost ? { serverCost } : {}),
      endAt,
    };
  } finally {
    if (connection !== target) connection.close();
  }
}

/** INFO commandstats on the probe's own connection; null when the server refuses it. */
async function scriptStats(connection: RespConnection): Promise<ReturnType<typeof parseScriptCommandStats>> {
  const [reply] = await connection.call([['INFO', 'commandstats']]);
  return typeof reply === 'string' ? parseScriptCommandStats(reply) : null;
}

/**
 * Server µs per call of `calls`, sent in {@link PROBE_BATCHES} pipelines,
 * each between two readings of the server's script counters: the fastest
 * pipeline's mean, as a server the OS also runs other work on is slowed
 * (preempted mid-call) in some pipelines and not in others. Null when INFO
 * is refused, or another client's scripts ran in between.
 */
async function timedCalls(connection: RespConnection, calls: readonly ScriptCall[], signal: AbortSignal | undefined): Promise<number | null> {
  const size = Math.ceil(calls.length / PROBE_BATCHES);
  const cap = connection.cap;
  let best: number | null = null;
  // Each reading ends one pipeline's span and starts the next one's.
  let before = await scriptStats(connection);
  for (let from = 0; from < calls.length; from += size) {
    if (signal?.aborted) throw new InterruptedError();
    const batch: Batch = { calls: calls.slice(from, from + size), reads: [], writer: new RequestWriter(connection.channel.server) };
    for (const call of batch.calls) batch.writer.add(call);
    if (cap) await cap.take(cap.callsWeight(batch.calls));
    await exchange(connection, batch);
    const after = await scriptStats(connection);
    const delta = scriptCommandDelta(before, after);
    before = after;
    // Only this pipeline's calls may be in between: more means another client's scripts ran too, and their time would count.
    if (!delta || delta.calls !== batch.calls.length) return null;
    const perCall = delta.usec / delta.calls;
    best = best === null ? perCall : Math.min(best, perCall);
  }
  return best;
}

/**
 * {@link PROBE_CALLS} writes continuing the light's traffic at its rate,
 * then as many reads at the last write's time, each timed by
 * {@link timedCalls}. No cost when INFO is refused.
 */
async function probeServerCost(
  connection: RespConnection,
  layout: Layout,
  light: Light,
  spec: AccuracySpec & { failures: () => number },
): Promise<{ cost?: ServerCost; endAt: number }> {
  const w = spec.windowSeconds;
  const writes: ScriptCall[] = [];
  let at = spec.startAt;
  // Under --max-ops, pipelines no longer than the cap's batch: the probe is its commands' share of time, not a burst.
  const calls = connection.cap ? PROBE_BATCHES * connection.cap.batch(PROBE_CALLS / PROBE_BATCHES) : PROBE_CALLS;
  for (const event of evenTraffic({
    rate: spec.rate,
    durationSeconds: calls / spec.rate,
    failureRate: spec.failureRate,
    seed: spec.seed ^ 0x5eed,
    startAt: spec.startAt,
  })) {
    const options = { windowSeconds: w, at: event.at, eventId: event.eventId };
    writes.push(
      event.outcome === 'success'
        ? layout.recordSuccess(light, options)
        : layout.recordFailure(light, { ...options, errorJson: errorJsonFor(event.at, spec.failures(), layout.stampPrecision) }),
    );
    at = event.at;
  }
  if (writes.length === 0) throw new ScriptError('server-cost probe: no call to time');
  const readCall = layout.getMetrics(light, { windowSeconds: w, at });
  const write = await timedCalls(connection, writes, spec.signal);
  const read = await timedCalls(
    connection,
    writes.map(() => readCall),
    spec.signal,
  );
  return {
    endAt: at,
    ...(write !== null && read !== null
      ? { cost: { writeUsecPerCall: write, readUsecPerCall: read, requestUsecPerCall: write + read, calls: writes.length } }
      : {}),
  };
}
