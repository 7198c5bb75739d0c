import type { Redis } from 'ioredis';
import { UsageError } from '../errors.js';
import type { Layout, Light } from '../layouts/types.js';
import type { Session } from '../redis/connect.js';
import { installScripts } from '../redis/scripts.js';
import { type ScriptCall } from '../lua/source.js';
import { EventClock } from '../traffic/event-clock.js';
import { createRng } from '../traffic/random.js';
import { readScriptCommandStats, scriptCommandDelta } from './commandstats.js';
import { runLoad, type LoadProgress } from './load.js';
import type { LatencyStats, ThroughputResult } from './types.js';
import {
  defaultErrorJson,
  readWorkload,
  requestWorkload,
  writeWorkload,
  type ErrorJson,
  type WorkloadContext,
} from './workload.js';

/** The three operations measured, in the order they run. */
export type ThroughputPhase = 'write' | 'read' | 'request';

/** Progress of one phase. */
export interface ThroughputProgress extends LoadProgress {
  readonly phase: ThroughputPhase;
}

/** Options of {@link measureThroughput}. */
export interface ThroughputOptions {
  /**
   * Where to send load: a session (its connection plus `connections - 1`
   * opened for the run and closed after it), or connections to use as they
   * are (at least `connections` of them).
   */
  readonly redis: Session | readonly Redis[];
  readonly layout: Layout;
  /** Lights already holding one window of traffic; events go to them in turn. */
  readonly lights: readonly Light[];
  readonly windowSeconds: number;
  /** Events per simulated second per light. */
  readonly rate: number;
  /** Unix seconds at which the caller's fill ended; the first event lands `1 / rate` later. */
  readonly startAt: number;
  /** 0..1, drawn per event from the seeded generator; default 0. */
  readonly failureRate?: number;
  /** Default 1. */
  readonly seed?: number;
  /** Default 1. */
  readonly connections?: number;
  /** Operations per pipelined batch; default 1. */
  readonly pipeline?: number;
  /** Operations per phase (give this or `seconds`). */
  readonly ops?: number;
  /** Wall seconds per phase (give this or `ops`). */
  readonly seconds?: number;
  /** The error a failure stores; default a `Timeout::Error` stamped with the event's second. */
  readonly errorJson?: ErrorJson;
  readonly onProgress?: (progress: ThroughputProgress) => void;
  /** Aborting stops the current phase before its next batch (InterruptedError). */
  readonly signal?: AbortSignal;
}

function checkOptions(options: ThroughputOptions): void {
  const { windowSeconds, failureRate = 0, ops, seconds } = options;
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new UsageError(`throughput: window must be a whole number of seconds >= 1, got ${windowSeconds}`);
  }
  if (!(failureRate >= 0 && failureRate <= 1)) throw new UsageError(`throughput: failure rate must be in 0..1, got ${failureRate}`);
  if ((ops === undefined) === (seconds === undefined)) {
    throw new UsageError('throughput: give either ops or seconds per phase');
  }
}

/** The connections to load, and how to give back the ones opened here. */
async function acquire(target: Session | readonly Redis[], count: number): Promise<{ pool: Redis[]; release: () => void }> {
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`throughput: connections must be a whole number >= 1, got ${count}`);
  if (Array.isArray(target)) {
    const list = target as readonly Redis[];
    if (list.length < count) throw new UsageError(`throughput: ${count} connections asked for, ${list.length} given`);
    return { pool: list.slice(0, count), release: () => undefined };
  }
  const session = target as Session;
  const opened: Redis[] = [];
  const release = (): void => {
    for (const redis of opened) redis.disconnect();
  };
  try {
    while (opened.length < count - 1) opened.push(await session.connectAnother());
  } catch (err) {
    release();
    throw err;
  }
  return { pool: [session.redis, ...opened], release };
}

/**
 * Measures one layout in steady state, in three phases measured separately:
 * `write` (record a success or failure), `read` (a metrics snapshot) and
 * `request` (what Stoplight does per request: a read, then a write, at the
 * same time; the write is sent when the read has answered, and the request's
 * latency is both round trips).
 *
 * Writes advance an injected clock by `1 / rate` per event per light, so the
 * window slides and 6.0 pays its eviction at the real amortized cost; reads
 * happen at the time of the latest write. After the run the clock stands at
 * `startAt + ceil((write.ops + request.ops) / lights.length) / rate`.
 *
 * `serverUsecPerCall` is the server's script time per operation, from
 * `INFO commandstats` deltas (a request counts its two calls); null when
 * INFO is not readable.
 */
export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputResult> {
  checkOptions(options);
  const { layout, windowSeconds, onProgress } = options;
  const connections = options.connections ?? 1;
  const pipeline = options.pipeline ?? 1;
  const clock = new EventClock(options.lights, options.rate, options.startAt);
  const context: WorkloadContext = {
    layout,
    clock,
    windowSeconds,
    failureRate: options.failureRate ?? 0,
    errorJson: options.errorJson ?? defaultErrorJson,
    rng: createRng(options.seed ?? 1),
  };
  const stop = options.ops !== undefined ? { ops: options.ops } : { seconds: options.seconds as number };

  const { pool, release } = await acquire(options.redis, connections);
  try {
    for (const redis of pool) await installScripts(redis, layout.scripts);
    const observer = pool[0] as Redis;

    const phase = async (name: ThroughputPhase, nextCall: () => ScriptCall, callsPerOp: number): Promise<LatencyStats> => {
      const before = await readScriptCommandStats(observer);
      const load = await runLoad({
        connections: pool,
        pipeline,
        stop,
        nextCall,
        callsPerOp,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(onProgress ? { onProgress: (progress: LoadProgress) => onProgress({ ...progress, phase: name }) } : {}),
      });
      const delta = scriptCommandDelta(before, await readScriptCommandStats(observer));
      // Per call times calls per op rather than usec / ops: on a shared server
      // other clients' scripts add calls as well as time, and this stays an average.
      const serverUsecPerCall = delta?.usecPerCall == null ? null : delta.usecPerCall * callsPerOp;
      const { ops, seconds, opsPerSec, p50Ms, p99Ms, p999Ms, meanMs } = load;
      return { opsPerSec, p50Ms, p99Ms, p999Ms, meanMs, ops, seconds, serverUsecPerCall };
    };

    const write = await phase('write', writeWorkload(context), 1);
    const read = await phase('read', readWorkload(context), 1);
    const request = await phase('request', requestWorkload(context), 2);
    return { write, read, request, connections, pipeline };
  } finally {
    release();
  }
}
