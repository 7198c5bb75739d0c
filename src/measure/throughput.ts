import type { Redis } from 'ioredis';
import { UsageError } from '../core/errors.js';
import type { Layout, Light } from '../layouts/types.js';
import type { Session } from '../redis/connect.js';
import type { Target } from '../redis/target.js';
import { shardOfLight } from './placement.js';
import { installScripts, loadScripts } from '../redis/scripts.js';
import { type ScriptCall } from '../lua/source.js';
import { EventClock } from '../traffic/event-clock.js';
import { createRng } from '../traffic/random.js';
import { readScriptCommandStats, readServerCpuSeconds, scriptCommandDelta } from './commandstats.js';
import { RespConnection } from '../redis/resp.js';
import { measureAppView } from './app-view.js';
import { runLoadGroups, type LoadGroup, type LoadProgress, type LoadStop } from './load.js';
import type { ScriptCommandStats } from './commandstats.js';
import { NOISY_SPREAD, type LatencyStats, type RoundStats, type Spread, type ThroughputRatio, type ThroughputResult } from './types.js';
import { defaultErrorJson, readWorkload, requestWorkload, writeWorkload, type ErrorJson, type WorkloadContext } from './workload.js';
import { isoMoment } from '../core/format.js';

/** The three operations measured, in the order they run. */
export type ThroughputPhase = 'write' | 'read' | 'request';

/** Progress of one phase. */
export interface ThroughputProgress extends LoadProgress {
  readonly phase: ThroughputPhase;
}

/** One layout's share of a throughput run: its lights (already filled) and its traffic. */
export interface ThroughputTarget {
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
  /** The error a failure stores; default a `Timeout::Error` stamped with the event's second. */
  readonly errorJson?: ErrorJson;
}

/** Where a run is: the phase, the round and the layout measured. */
export interface RoundsProgress extends LoadProgress {
  readonly phase: ThroughputPhase;
  /** 0-based round. */
  readonly round: number;
  /** Index of the target measured. */
  readonly target: number;
}

const isSharded = (target: Session | readonly Redis[] | Target): target is Target => !Array.isArray(target) && 'shards' in target;

/** Options of {@link measureThroughputRounds}. */
export interface RoundsOptions {
  /**
   * Where to send load: a session (exactly `connections` load sockets are
   * opened for the run and closed after it; the session's connection reads
   * the counters), or ioredis connections to load next to (at least
   * `connections` of them; the first reads the counters), or the primaries
   * of a cluster's {@link Target}: every target's lights are split by the
   * primary that owns their keys, each primary gets its own load sockets,
   * and every primary is busy at the same time.
   */
  readonly redis: Session | readonly Redis[] | Target;
  /** The layouts measured, in order; every layout after the first gets ratios to the first. */
  readonly targets: readonly ThroughputTarget[];
  /** Default 1. */
  readonly connections?: number;
  /** Operations per pipelined batch; default 1. */
  readonly pipeline?: number;
  /** Rounds per phase (default 1): each phase alternates the targets round by round, A B A B …. */
  readonly rounds?: number;
  /** Operations per phase per target, split evenly over the rounds (give this or `seconds`). */
  readonly ops?: number;
  /** Wall seconds per phase per target, split evenly over the rounds (give this or `ops`). */
  readonly seconds?: number;
  /** Also time one application thread per target ({@link measureAppView}) for this many ms, after the rounds. */
  readonly appViewMs?: number;
  /** Latency percentiles to report besides p50/p99/p99.9 (`--percentiles`), per round, their medians in `percentilesMs`. */
  readonly percentiles?: readonly number[];
  readonly onProgress?: (progress: RoundsProgress) => void;
  /** A load cap: operations per second at most (bench --max-ops on a shared server). */
  readonly maxOpsPerSecond?: number;
  /** Aborting stops the current phase before its next batch (InterruptedError). */
  readonly signal?: AbortSignal;
}

/** Options of {@link measureThroughput}: one layout, one round unless asked. */
export interface ThroughputOptions extends ThroughputTarget {
  readonly redis: Session | readonly Redis[];
  /** Default 1. */
  readonly connections?: number;
  /** Operations per pipelined batch; default 1. */
  readonly pipeline?: number;
  /** Rounds per phase; default 1. */
  readonly rounds?: number;
  /** Operations per phase (give this or `seconds`). */
  readonly ops?: number;
  /** Wall seconds per phase (give this or `ops`). */
  readonly seconds?: number;
  readonly onProgress?: (progress: ThroughputProgress) => void;
  /** Aborting stops the current phase before its next batch (InterruptedError). */
  readonly signal?: AbortSignal;
}

function checkTarget(target: ThroughputTarget): void {
  const { windowSeconds, failureRate = 0 } = target;
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new UsageError(`throughput: window must be a whole number of seconds >= 1, got ${windowSeconds}`);
  }
  if (!(failureRate >= 0 && failureRate <= 1)) throw new UsageError(`throughput: failure rate must be in 0..1, got ${failureRate}`);
}

function checkOptions(options: RoundsOptions): void {
  const { ops, seconds, rounds = 1 } = options;
  if (options.targets.length === 0) throw new UsageError('throughput: at least one layout is needed');
  for (const target of options.targets) checkTarget(target);
  if ((ops === undefined) === (seconds === undefined)) {
    throw new UsageError('throughput: give either ops or seconds per phase');
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError(`throughput: rounds must be a whole number >= 1, got ${rounds}`);
  if (ops !== undefined && ops < rounds) throw new UsageError(`throughput: ${ops} ops per phase cannot be split over ${rounds} rounds`);
}

/** The load sockets, the connection that reads the counters, and how to give back what was opened here. */
async function acquire(target: Session | readonly Redis[], count: number): Promise<{ pool: (Redis | RespConnection)[]; observer: Redis; release: () => void }> {
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`throughput: connections must be a whole number >= 1, got ${count}`);
  if (Array.isArray(target)) {
    const list = target as readonly Redis[];
    if (list.length < count) throw new UsageError(`throughput: ${count} connections asked for, ${list.length} given`);
    return { pool: list.slice(0, count), observer: list[0] as Redis, release: () => undefined };
  }
  const session = target as Session;
  // Only the load sockets: --connections 4 is four sockets carrying load,
  // plus the session's own connection, idle but for the counters.
  const opened: RespConnection[] = [];
  const release = (): void => {
    for (const connection of opened) connection.close();
  };
  try {
    while (opened.length < count) opened.push(await RespConnection.open(session.redis.options));
  } catch (err) {
    release();
    throw err;
  }
  return { pool: opened, observer: session.redis, release };
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median, min, max and spread of a non-empty list (see {@link Spread}). */
export function spreadOf(values: readonly number[]): Spread {
  const mid = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  const spread = mid > 0 ? (max - min) / mid : max > min ? Number.POSITIVE_INFINITY : 0;
  return { median: mid, min, max, spreadFraction: spread, noisy: spread > NOISY_SPREAD };
}

/** One round of one phase of one target. */
interface RoundFigures {
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly meanMs: number;
  readonly ops: number;
  readonly seconds: number;
  readonly serverUsecPerCall: number | null;
  readonly serverCpuUsecPerCall: number | null;
  readonly percentilesMs?: Readonly<Record<string, number>>;
}

/** The median over the rounds of each percentile asked for; nothing when none was. */
function percentilesOf(rounds: readonly RoundFigures[]): { percentilesMs?: Record<string, number> } {
  const keys = Object.keys(rounds[0]?.percentilesMs ?? {});
  if (keys.length === 0) return {};
  return { percentilesMs: Object.fromEntries(keys.map((k) => [k, median(rounds.map((r) => r.percentilesMs?.[k] ?? 0))])) };
}

/** The rounds of one phase of one target, summed up: medians, with their spread. */
function summarize(rounds: readonly RoundFigures[]): LatencyStats {
  const of = (pick: (r: RoundFigures) => number): Spread => spreadOf(rounds.map(pick));
  const server = rounds.every((r) => r.serverUsecPerCall !== null) ? of((r) => r.serverUsecPerCall as number) : null;
  const cpu = rounds.every((r) => r.serverCpuUsecPerCall !== null) ? of((r) => r.serverCpuUsecPerCall as number) : null;
  const stats: RoundStats = {
    count: rounds.length,
    opsPerSec: of((r) => r.opsPerSec),
    p50Ms: of((r) => r.p50Ms),
    p99Ms: of((r) => r.p99Ms),
    p999Ms: of((r) => r.p999Ms),
    serverUsecPerCall: server,
    serverCpuUsecPerCall: cpu,
  };
  return {
    opsPerSec: stats.opsPerSec.median,
    p50Ms: stats.p50Ms.median,
    p99Ms: stats.p99Ms.median,
    p999Ms: stats.p999Ms.median,
    meanMs: median(rounds.map((r) => r.meanMs)),
    ops: rounds.reduce((sum, r) => sum + r.ops, 0),
    durationSeconds: rounds.reduce((sum, r) => sum + r.seconds, 0),
    serverUsecPerCall: server?.median ?? null,
    ...percentilesOf(rounds),
    serverCpuUsecPerCall: cpu?.median ?? null,
    rounds: stats,
    noisy: stats.opsPerSec.noisy || Boolean(server?.noisy),
  };
}

/** Counters summed over nodes; null when any node's are unreadable. */
function sumStats(list: readonly (ScriptCommandStats | null)[]): ScriptCommandStats | null {
  if (list.some((s) => s === null)) return null;
  return (list as ScriptCommandStats[]).reduce((sum, s) => ({ calls: sum.calls + s.calls, usec: sum.usec + s.usec }), { calls: 0, usec: 0 });
}

/** `total` split into `parts` whole shares that differ by at most one. */
const share = (total: number, parts: number, index: number): number => Math.floor(total / parts) + (index < total % parts ? 1 : 0);

/**
 * Measures layouts in steady state, in three phases measured separately:
 * `write` (record a success or failure), `read` (a metrics snapshot) and
 * `request` (what Stoplight does per request: a read, then a write, at the
 * same time; the write is sent when the read has answered, and the request's
 * latency is both round trips).
 *
 * Each phase runs `rounds` rounds, and each round measures every target in
 * turn (A B A B …), so drift on a busy machine falls on all layouts alike.
 * A figure is the median of its rounds, with min, max and spread beside it;
 * every target after the first gets its ratios to the first as the median
 * of the per-round ratios (rounds measured back to back).
 *
 * Writes advance each target's injected clock by `1 / rate` per event per
 * light, so the window slides and 6.0 pays its eviction at the real
 * amortized cost; reads happen at the time of the latest write. After the
 * run a target's clock stands at
 * `startAt + ceil((write.ops + request.ops) / lights.length) / rate`.
 *
 * `serverUsecPerCall` is the server's script time per operation, from
 * `INFO commandstats` deltas (a request counts its two calls); null when
 * INFO is not readable.
 */
export async function measureThroughputRounds(options: RoundsOptions): Promise<ThroughputResult[]> {
  checkOptions(options);
  const { targets, onProgress } = options;
  const connections = options.connections ?? 1;
  const pipeline = options.pipeline ?? 1;
  const rounds = options.rounds ?? 1;
  const sharded = isSharded(options.redis) ? options.redis : undefined;
  // Each target's lights by shard (one part holding them all on a single server), each part with its own clock.
  const parts: { shard: number; context: WorkloadContext }[][] = targets.map((t) => {
    const byShard = new Map<number, Light[]>();
    for (const light of t.lights) {
      const shard = sharded ? shardOfLight(sharded, t.layout, light) : 0;
      byShard.set(shard, [...(byShard.get(shard) ?? []), light]);
    }
    return [...byShard.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([shard, lights]) => ({
        shard,
        context: {
          layout: t.layout,
          clock: new EventClock(lights, t.rate, t.startAt),
          windowSeconds: t.windowSeconds,
          failureRate: t.failureRate ?? 0,
          errorJson: t.errorJson ?? defaultErrorJson,
          // Shard 0 draws the stream a single server draws.
          rng: createRng((t.seed ?? 1) + shard * 7919),
        },
      }));
  });
  const stopOf = (round: number): LoadStop =>
    options.ops !== undefined ? { ops: share(options.ops, rounds, round) } : { seconds: (options.seconds as number) / rounds };

  const acquired: { pool: (Redis | RespConnection)[]; observer: Redis; release: () => void }[] = [];
  const release = (): void => {
    for (const a of acquired) a.release();
  };
  try {
    if (sharded) for (const shard of sharded.shards) acquired.push(await acquire(shard.session, connections));
    else acquired.push(await acquire(options.redis as Session | readonly Redis[], connections));
  } catch (err) {
    release();
    throw err;
  }
  const nodes = sharded?.shards.map((s) => s.node);
  const observers = acquired.map((a) => a.observer);
  const readStats = async (): Promise<(ScriptCommandStats | null)[]> => {
    const out: (ScriptCommandStats | null)[] = [];
    for (const observer of observers) out.push(await readScriptCommandStats(observer));
    return out;
  };
  /** The main thread's CPU seconds summed over the nodes; null when any node refuses INFO. */
  const readCpu = async (): Promise<number | null> => {
    const each = await Promise.all(observers.map((observer) => readServerCpuSeconds(observer)));
    return each.some((c) => c === null) ? null : each.reduce<number>((sum, c) => sum + (c as number), 0);
  };
  try {
    const scripts = [...new Set(targets.flatMap((t) => t.layout.scripts))];
    for (const { pool } of acquired) {
      for (const connection of pool) {
        if (connection instanceof RespConnection) await loadScripts(connection.channel, scripts);
        else await installScripts(connection, scripts);
      }
    }

    const phase = async (name: ThroughputPhase, workload: (c: WorkloadContext) => () => ScriptCall, callsPerOp: number): Promise<RoundFigures[][]> => {
      const nextCalls = parts.map((mine) =>
        mine.map(({ shard, context }): LoadGroup => ({
          connections: (acquired[shard] as (typeof acquired)[number]).pool,
          nextCall: workload(context),
          ...(nodes ? { node: nodes[shard] as string } : {}),
        })),
      );
      const figures: RoundFigures[][] = targets.map(() => []);
      for (let round = 0; round < rounds; round += 1) {
        for (const [index, groups] of nextCalls.entries()) {
          // Both readings together (ioredis pipelines them on each observer).
          const [before, cpuBefore] = await Promise.all([readStats(), readCpu()]);
          const load = await runLoadGroups(groups, {
            pipeline,
            stop: stopOf(round),
            callsPerOp,
            ...(options.maxOpsPerSecond !== undefined ? { maxOpsPerSecond: options.maxOpsPerSecond } : {}),
            ...(options.percentiles ? { percentiles: options.percentiles } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
            ...(onProgress ? { onProgress: (progress: LoadProgress) => onProgress({ ...progress, phase: name, round, target: index }) } : {}),
          });
          // Every node's script time and CPU: the calls, microseconds and seconds summed over the shards.
          const [after, cpuAfter] = await Promise.all([readStats(), readCpu()]);
          const delta = scriptCommandDelta(sumStats(before), sumStats(after));
          // Per call times calls per op rather than usec / ops: on a shared server
          // other clients' scripts add calls as well as time, and this stays an average.
          const serverUsecPerCall = delta?.usecPerCall == null ? null : delta.usecPerCall * callsPerOp;
          // The server's CPU time over the round per script call: the script's cost plus
          // reading and answering the call, without the time the server sat descheduled.
          const serverCpuUsecPerCall =
            cpuBefore === null || cpuAfter === null || !delta || delta.calls === 0 || cpuAfter < cpuBefore
              ? null
              : (((cpuAfter - cpuBefore) * 1e6) / delta.calls) * callsPerOp;
          const { ops, seconds, opsPerSec, p50Ms, p99Ms, p999Ms, meanMs } = load;
          (figures[index] as RoundFigures[]).push({
            opsPerSec,
            p50Ms,
            p99Ms,
            p999Ms,
            meanMs,
            ops,
            seconds,
            serverUsecPerCall,
            serverCpuUsecPerCall,
            ...(load.percentilesMs ? { percentilesMs: load.percentilesMs } : {}),
          });
        }
      }
      return figures;
    };

    const write = await phase('write', writeWorkload, 1);
    const read = await phase('read', readWorkload, 1);
    const request = await phase('request', requestWorkload, 2);
    // One application thread talks to one node: on a cluster, the lights of the first target's first shard.
    const appShard = parts[0]?.[0]?.shard ?? 0;
    const appContexts = parts.map((mine) => mine.find((p) => p.shard === appShard)?.context);
    const app =
      options.appViewMs !== undefined && options.appViewMs > 0 && appContexts.every(Boolean)
        ? await measureAppView({
            redis: observers[appShard] as Redis,
            targets: appContexts.map((context, i) => ({ name: String(i), context: context as WorkloadContext })),
            timeMs: options.appViewMs,
            rounds,
            ...(options.signal ? { signal: options.signal } : {}),
          })
        : undefined;

    const perRound = (of: RoundFigures[][], i: number, pick: (r: RoundFigures) => number | null): Spread | null => {
      const mine = of[i] as RoundFigures[];
      const ref = of[0] as RoundFigures[];
      const ratios: number[] = [];
      for (const [round, r] of mine.entries()) {
        const a = pick(r);
        const b = pick(ref[round] as RoundFigures);
        if (a === null || b === null || !(b > 0)) return null;
        ratios.push(a / b);
      }
      return spreadOf(ratios);
    };
    const first = targets[0] as ThroughputTarget;
    return targets.map((_, i) => {
      const ratio: ThroughputRatio | undefined =
        i === 0
          ? undefined
          : {
              reference: first.layout.name,
              write: perRound(write, i, (r) => r.opsPerSec) as Spread,
              read: perRound(read, i, (r) => r.opsPerSec) as Spread,
              request: perRound(request, i, (r) => r.opsPerSec) as Spread,
              serverUsecPerRequest: perRound(request, i, (r) => r.serverUsecPerCall),
              serverCpu: {
                write: perRound(write, i, (r) => r.serverCpuUsecPerCall),
                read: perRound(read, i, (r) => r.serverCpuUsecPerCall),
                request: perRound(request, i, (r) => r.serverCpuUsecPerCall),
              },
            };
      const view = app?.get(String(i));
      return {
        write: summarize(write[i] as RoundFigures[]),
        read: summarize(read[i] as RoundFigures[]),
        request: summarize(request[i] as RoundFigures[]),
        connections,
        pipeline,
        rounds,
        ...(ratio ? { ratio } : {}),
        ...(view ? { app: view } : {}),
        clockEndAt: isoMoment(Math.max(...(parts[i] ?? []).map((p) => p.context.clock.now))),
      };
    });
  } finally {
    release();
  }
}

/** {@link measureThroughputRounds} for one layout. */
export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputResult> {
  const { redis, connections, pipeline, rounds, ops, seconds, onProgress, signal, ...target } = options;
  const [result] = await measureThroughputRounds({
    redis,
    targets: [target],
    ...(connections !== undefined ? { connections } : {}),
    ...(pipeline !== undefined ? { pipeline } : {}),
    ...(rounds !== undefined ? { rounds } : {}),
    ...(ops !== undefined ? { ops } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    ...(signal ? { signal } : {}),
    ...(onProgress ? { onProgress: ({ round: _r, target: _t, ...progress }: RoundsProgress) => onProgress(progress) } : {}),
  });
  return result as ThroughputResult;
}
