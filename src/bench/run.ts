import type { Redis } from 'ioredis';
import { ExitCode, InterruptedError, ScriptError, SwcError } from '../core/errors.js';
import { layoutLabel, namespacedLayout } from '../layouts/index.js';
import type { Layout, LayoutOptions, Light } from '../layouts/types.js';
import { performance } from 'node:perf_hooks';
import { measureCommandsPerCall, readScriptCommandStats, scriptCommandDelta, type CommandsPerCall, type ScriptCommandStats } from '../measure/commandstats.js';
import { LayoutClient } from '../layouts/client.js';
import { measureKeys, usedMemory } from '../measure/memory.js';
import { steadyLightCount } from './steady-lights.js';
import { settleLazyFree } from '../measure/lazyfree.js';
import { withLongestParts } from '../measure/encoding.js';
import { encodingHints } from '../measure/encoding-advice.js';
import type { BenchReport, CellCommands, CellResult, IncompleteRun, MemoryResult, RealtimeResult, ThroughputResult } from '../measure/types.js';
import { namedRejection } from '../core/rejection.js';
import { verifyLayout } from '../verify/verify.js';
import { measureThroughputRounds, type RoundsProgress, type ThroughputPhase } from '../measure/throughput.js';
import type { Session } from '../redis/connect.js';
import { disturbances, serverCounters, serverInfo, type ServerCounters } from '../redis/info.js';
import { classifyRedisError } from '../redis/errors.js';
import { keySlot } from '../redis/slot.js';
import { installScripts, loadScripts, OversizeReplyError } from '../redis/scripts.js';
import { RespConnection } from '../redis/resp.js';
import { cappedBatch, runLoad, type Pace } from '../measure/load.js';
import { type ScriptCall } from '../lua/source.js';
import { BENCH_EPOCH, errorJsonFor, evenTraffic, eventCount, lightSeed, type TrafficSpec } from '../traffic/events.js';
import { SWC_VERSION } from '../core/version.js';
import { aliveKey, deleteKeys, markRun, otherLiveRuns, runKey, waitForTurn, type Namespace } from './namespace.js';
import { cellsOf, plannedEvents, type BenchPlan, type Cell } from './plan.js';
import { publishedKb } from './presets.js';
import { driveRealtime } from './realtime.js';
import { byShard, clusterChanged, redisOf, shardOfLight, singleShard, spreadLights, type ShardSet } from './shards.js';
import { AccuracyLane, accuracyLight, cellAccuracy } from './accuracy.js';
import type { ClusterFinding, ShardTotals } from '../measure/types.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { unixSecondsOf } from '../core/format.js';

/** Calls per pipeline while filling a window: large enough to amortize round trips. */
const FILL_BATCH = 1000;
/** Fill batches in flight: at 10 µs a call, four batches keep the server busy for twice a read interval. */
const FILL_DEPTH = 4;
/** How often the fill reads replies (see runLoad's readIntervalMs). */
const FILL_READ_INTERVAL_MS = 20;

/** Progress of a run, as events (the caller decides how to show them). */
export interface BenchProgress {
  /** A cell started. */
  onCellStart?(cell: Cell, index: number, total: number): void;
  /** Events written so far in the whole run. */
  onEvents?(written: number, total: number): void;
  /** A throughput phase started; it interleaves the layouts of `group` (the cells of one window and rate), `cell` the first. */
  onPhase?(cell: Cell, phase: ThroughputPhase, group: readonly Cell[]): void;
  /** Where a throughput phase is (round, layout, fraction of the round), a few times a second. */
  onThroughput?(group: readonly Cell[], progress: RoundsProgress): void;
  /** A cell finished. */
  onCellDone?(result: CellResult, index: number, total: number): void;
  /** Something the run cannot check or vouch for (e.g. INFO not allowed). */
  onWarning?(message: string): void;
  /** Other runs are writing to the server: this one waits for them to end before it starts. */
  onWait?(others: readonly string[]): void;
}

/**
 * A fall of used_memory during a cell that only adds keys, beyond what
 * client buffers and allocator noise explain: somebody else freed memory
 * (another run's clean-up, a mass delete), so the delta is not this cell's.
 */
const IMPLAUSIBLE_DROP_BYTES = 256 * 1024;

/** A cell whose figures would be wrong: something disturbed the server while it ran. */
export class DisturbedCellError extends SwcError {
  constructor(message: string) {
    super(message, ExitCode.runtime);
  }
}

/**
 * A script error stopped the run after at least one memory phase had
 * finished: `report` holds every figure measured until then (a cell whose
 * later phase did not run has its memory only) and says where it stopped
 * (`report.incomplete`). Exit 3, as any script error.
 */
export class IncompleteBenchError extends ScriptError {
  constructor(
    message: string,
    readonly report: BenchReport & { readonly incomplete: IncompleteRun },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Calls of verify's traffic replayed to find the command a failing layout's script sent (see diagnose). */
const DIAGNOSE_CALLS = 3000;

/**
 * The command the server rejected for one of `layouts`, found the way
 * `swc verify` finds it: its seeded traffic through the layout, each script
 * error's shortest reproduction replayed under MONITOR. Only on a private
 * server (MONITOR sees every client's commands). Null when none failed.
 */
async function diagnose(
  redis: Redis,
  layouts: readonly Layout[],
  seed: number,
  signal?: AbortSignal,
): Promise<{ layout: Layout; error: string; rejected?: string } | null> {
  for (const layout of layouts) {
    const result = await verifyLayout(redis, layout, {
      seed,
      calls: DIAGNOSE_CALLS,
      maxListed: 1,
      shrinkMs: 5000,
      monitorRejected: true,
      ...(signal ? { signal } : {}),
    }).catch(() => null);
    const [failure] = result?.scriptErrors ?? [];
    if (failure) return { layout, error: failure.error, ...(failure.rejected !== undefined ? { rejected: failure.rejected } : {}) };
  }
  return null;
}

/** What a cell's accuracy phase gives (see cellAccuracy). */
type CellAccuracy = NonNullable<Awaited<ReturnType<typeof cellAccuracy>>>;

/** A cell whose memory phase has ended. */
interface Filled {
  readonly cell: Cell;
  readonly index: number;
  readonly layout: Layout;
  readonly name: string;
  readonly memory: MemoryResult;
  readonly events: number;
  readonly lights: Light[];
  readonly span: Span;
  readonly realtime?: RealtimeResult;
  readonly shards?: ShardTotals[];
}

/** A cell waiting to be reported: its result once its accuracy phase (perhaps on the lane) has ended. */
interface Reported {
  readonly result: Promise<CellResult>;
  readonly index: number;
  settled: boolean;
}

/** Inputs of {@link runBench}. */
export interface BenchRun {
  /** A single server (give this or `shards`). */
  readonly session?: Session;
  /** The shards to write to: a cluster's primaries ({@link clusterShards}); default the single `session`. */
  readonly shards?: ShardSet;
  /** Layouts that could not run on the cluster (CROSSSLOT), reported beside the results. */
  readonly findings?: readonly ClusterFinding[];
  /** How lights were spread over the shards, for the result. */
  readonly lightSpread?: string;
  readonly plan: BenchPlan;
  /** Every key of the run goes under this prefix. */
  readonly namespace: Namespace;
  readonly progress?: BenchProgress;
  /** Extra options echoed into the report. */
  readonly options?: Record<string, unknown>;
  /** Aborting stops the run before its next pipeline; the run then rejects with an InterruptedError. */
  readonly signal?: AbortSignal;
  /**
   * Runs each cell's accuracy phase on the run's server after the cell, even
   * with a private server (no accuracy lane, see AccuracyLane): its
   * server-µs probe then has the machine to itself (`--suggest` ranks on it).
   */
  readonly accuracyInLine?: boolean;
  /** How long to wait for other runs on the server before giving up (see waitForTurn); default DEFAULT_TURN_TIMEOUT_MS. */
  readonly turnWaitMs?: number;
}

function lightsOf(set: ShardSet, layout: Layout, cell: Cell, count: number): Light[] {
  const base = `w${cell.windowSeconds}-r${cell.rate}`;
  if (!set.cluster) return Array.from({ length: count }, (_, i) => ({ name: `${base}-l${i}` }));
  return spreadLights(set, layout, base, count);
}

/** Says which node a shard's failure happened on (a single server's errors stay as they were). */
function onShard<T>(set: ShardSet, shard: number, work: Promise<T>): Promise<T> {
  if (!set.cluster) return work;
  const node = set.shards[shard]?.node ?? '?';
  return work.catch((err: unknown) => {
    if (err instanceof InterruptedError) throw err;
    if (err instanceof Error && err.message.includes(node)) throw err;
    throw withPlace(clusterChanged(err), `on node ${node}`);
  });
}

/** used_memory summed over every shard. */
async function usedMemoryOf(set: ShardSet): Promise<number> {
  let total = 0;
  for (const [i, shard] of set.shards.entries()) total += await onShard(set, i, usedMemory(shard.session.redis));
  return total;
}

function trafficOf(plan: BenchPlan, cell: Cell, lightIndex: number): TrafficSpec {
  return {
    rate: cell.rate,
    durationSeconds: cell.durationSeconds,
    failureRate: plan.failureRate,
    seed: lightSeed(plan.seed, lightIndex),
    startAt: BENCH_EPOCH,
  };
}

/**
 * Writes the lights' traffic through a layout in pipelined batches, on one
 * lean load socket: the load engine builds each batch while the one before
 * is on the server, so the fill's wall time stays close to the server's own
 * script time. Lights are written one after another, each in event order.
 */
export async function fill(
  connection: RespConnection,
  layout: Layout,
  lights: readonly Light[],
  specs: readonly TrafficSpec[],
  windowSeconds: number,
  written: (n: number) => void,
  signal: AbortSignal | undefined,
  maxOpsPerSecond?: number,
): Promise<void> {
  const batch = cappedBatch(FILL_BATCH, maxOpsPerSecond);
  // One cap clock over every light's run: each light's first batch waits its share too.
  const pace: Pace | undefined = maxOpsPerSecond !== undefined ? { startedMs: performance.now(), sent: 0 } : undefined;
  for (const [i, light] of lights.entries()) {
    const spec = specs[i] as TrafficSpec;
    // Each light's errors cycle from the first, as they always have: the same seed gives the same bytes.
    let failures = 0;
    const events = evenTraffic(spec)[Symbol.iterator]();
    const total = eventCount(spec);
    if (total === 0) continue;
    let reported = 0;
    const nextCall = (): ScriptCall => {
      const next = events.next();
      if (next.done) throw new Error('fill: the traffic ended before its event count');
      const event = next.value;
      const options = { at: event.at, windowSeconds, eventId: event.eventId };
      return event.outcome === 'success'
        ? layout.recordSuccess(light, options)
        : layout.recordFailure(light, { ...options, errorJson: errorJsonFor(event.at, failures++, layout.stampPrecision) });
    };
    await runLoad({
      connections: [connection],
      pipeline: batch,
      // Batches queued on the server while one runs, and replies read every 20 ms rather
      // than as they come: the server never waits for swc, and swc's wake-ups do not take
      // the CPU from it between scripts (on a loaded 2-core machine: 1.1-1.2× instead of 1.4×).
      depth: FILL_DEPTH,
      readIntervalMs: FILL_READ_INTERVAL_MS,
      stop: { ops: total },
      nextCall,
      ...(maxOpsPerSecond !== undefined ? { maxOpsPerSecond } : {}),
      ...(pace ? { pace } : {}),
      ...(signal ? { signal } : {}),
      // Every batch: the caller's error names the events written so far, exactly.
      progressIntervalMs: 0,
      placeInErrors: false,
      onProgress: ({ done }) => {
        written(done - reported);
        reported = done;
      },
    });
    if (pace) pace.sent += total;
  }
}

/** Runs a small cell through `layout` (injected clock, even in a realtime run: it only warms up) and deletes its keys. */
async function warmUp(set: ShardSet, plan: BenchPlan, layout: Layout): Promise<void> {
  const cell: Cell = { layout: layout.name as Cell['layout'], windowSeconds: 60, rate: 50, durationSeconds: 60 };
  // One light per shard: every node compiles the scripts and makes its first allocations here.
  const { lights, span } = await runMemory(set, { ...plan, lights: set.shards.length, realtime: false }, cell, layout, () => undefined);
  await deleteLights(set, layout, lights, span);
}

/** The Unix seconds a cell's traffic covered: where 5.x hour keys can be. */
interface Span {
  readonly from: number;
  readonly to: number;
}

/** Deletes every key the layout says the lights have for traffic in `span`. */
async function deleteLights(set: ShardSet, layout: Layout, lights: readonly Light[], span: Span): Promise<void> {
  await deleteRouted(
    set,
    lights.flatMap((light) => layout.keysOf(light, span.from, span.to).map((k) => k.key)),
  );
}

/** Deletes keys, each on the shard that owns it. */
async function deleteRouted(set: ShardSet, keys: readonly string[]): Promise<void> {
  for (const [shard, mine] of byShard(set, keys)) {
    await onShard(set, shard, deleteKeys((set.shards[shard] as ShardSet['shards'][number]).session.redis, mine));
  }
}

/** Says where a run stopped, keeping the error's type (and so its exit code). */
function withPlace(err: unknown, where: string): unknown {
  if (err instanceof InterruptedError) return err;
  const classified = classifyRedisError(err);
  if (classified instanceof SwcError) return classified.at(where);
  // Not from Redis (a bug): keep it, with the place.
  return new SwcError(`${err instanceof Error ? err.message : String(err)} (${where})`, ExitCode.runtime, { cause: err });
}

/** Waits until the server has freed client `id` (at most about a second); a refused CLIENT (or no id) waits a moment instead. */
async function waitClosed(observer: Redis, id: unknown): Promise<void> {
  if (typeof id !== 'number') {
    await new Promise((r) => setTimeout(r, 100));
    return;
  }
  try {
    // Short sleeps: the server frees a closed client within a millisecond or two, and
    // every cell waits here once (10 ms steps cost a blog preset about 6% of its wall time).
    const deadline = performance.now() + 1000;
    while (performance.now() < deadline) {
      const list = String(await observer.client('LIST', 'ID', String(id)));
      if (list.trim() === '') return;
      await new Promise((r) => setTimeout(r, 1));
    }
  } catch {
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Closes a connection and waits until the server has freed it (at most about a second). */
async function closeAndWait(observer: Redis, connection: Redis): Promise<void> {
  try {
    const id = await connection.client('ID');
    await connection.quit();
    for (let i = 0; i < 100; i += 1) {
      const list = String(await observer.client('LIST', 'ID', String(id)));
      if (list.trim() === '') return;
      await new Promise((r) => setTimeout(r, 10));
    }
  } catch {
    // Managed services may refuse CLIENT; the connection still closes, only
    // the used_memory delta may include its buffers for a moment.
    connection.disconnect();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Fills lights `from` onwards with their traffic (injected clock): every
 * shard fills its own lights at once, each on a writer of its own, closed
 * before this returns so its buffers stay out of the used_memory delta.
 */
async function fillLights(
  set: ShardSet,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  lights: readonly Light[],
  owner: readonly number[],
  from: number,
  written: (n: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  await Promise.all(
    set.shards.map((shard, s) =>
      onShard(
        set,
        s,
        (async () => {
          const mine = lights.flatMap((_light, i) => (i >= from && owner[i] === s ? [i] : []));
          if (mine.length === 0) return;
          const writer = await RespConnection.open(shard.session.redis.options);
          let id: unknown;
          try {
            [id] = await writer.call([['CLIENT', 'ID']]);
            await loadScripts(writer.channel, layout.scripts);
            await fill(
              writer,
              layout,
              mine.map((i) => lights[i] as Light),
              mine.map((i) => trafficOf(plan, cell, i)),
              cell.windowSeconds,
              written,
              signal,
              // The cap is over every connection: shards fill at once, each its share.
              plan.maxOpsPerSecond !== undefined ? plan.maxOpsPerSecond / set.shards.length : undefined,
            );
          } finally {
            writer.close();
          }
          await waitClosed(shard.session.redis, id);
        })(),
      ),
    ),
  );
}

/**
 * Fills a cell's lights (injected clock, or real traffic with `plan.realtime`)
 * and measures their memory; the caller removes their keys.
 */
async function runMemory(
  set: ShardSet,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  written: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ memory: MemoryResult; events: number; lights: Light[]; span: Span; realtime?: RealtimeResult; shards?: ShardTotals[] }> {
  const session = (set.shards[0] as ShardSet['shards'][number]).session;
  const { redis } = session;
  let lights = lightsOf(set, layout, cell, plan.lights);
  // Each light's keys live on one shard (one slot per light for a cluster-safe layout).
  let owner = lights.map((light) => shardOfLight(set, layout, light));
  // Keys of earlier cells a lazy-free thread still holds would be freed during this cell's fill.
  await settleLazyFree(redisOf(set));
  const before = await usedMemoryOf(set);
  // A pipelined writer leaves a large query buffer behind on its connection;
  // writing on a connection of its own and closing it keeps that buffer out
  // of the used_memory delta.
  let realtime: RealtimeResult | undefined;
  if (plan.realtime) {
    if (set.cluster) throw new SwcError('--realtime: not supported on Redis Cluster', ExitCode.usage);
    const writer = await session.connectAnother();
    try {
      realtime = await driveRealtime({
        redis: writer,
        layout,
        lights,
        windowSeconds: cell.windowSeconds,
        rate: cell.rate,
        seconds: cell.durationSeconds,
        failureRate: plan.failureRate,
        seed: plan.seed,
        onEvents: written,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      writer.disconnect();
      throw err;
    }
    await closeAndWait(redis, writer);
  } else {
    await fillLights(set, plan, cell, layout, lights, owner, 0, written, signal);
  }
  let after = await usedMemoryOf(set);
  // A preset cell with skiplists: more lights, until the skiplists' random levels average out.
  if (plan.steadyLights && !plan.realtime && !set.cluster && lights.length > 0) {
    const keys = await measureKeys(redis, layout.keysOf(lights[0] as Light, BENCH_EPOCH, BENCH_EPOCH + cell.durationSeconds));
    const bytes = keys.reduce((sum, k) => sum + k.bytes, 0);
    const count = steadyLightCount(keys, bytes, lights.length, plan.steadyLights);
    if (count > lights.length) {
      const have = lights.length;
      lights = lightsOf(set, layout, cell, count);
      owner = lights.map((light) => shardOfLight(set, layout, light));
      await fillLights(set, plan, cell, layout, lights, owner, have, written, signal);
      after = await usedMemoryOf(set);
    }
  }
  // Real traffic wrote 5.x hour keys by this machine's clock, between these seconds.
  const span: Span = realtime
    ? { from: Math.floor(unixSecondsOf(realtime.startedAt)), to: Math.ceil(unixSecondsOf(realtime.endedAt)) }
    : { from: BENCH_EPOCH, to: BENCH_EPOCH + cell.durationSeconds };
  let total = 0;
  let firstKeys: MemoryResult['keys'] = [];
  const totals = set.shards.map((shard) => ({ node: shard.node, lights: 0, keys: 0, bytes: 0 }));
  for (const [i, light] of lights.entries()) {
    const shard = owner[i] as number;
    const shardRedis = (set.shards[shard] as ShardSet['shards'][number]).session.redis;
    const keys = await onShard(set, shard, measureKeys(shardRedis, layout.keysOf(light, span.from, span.to)));
    // The first light's keys are reported, with what decides their encoding.
    if (i === 0) firstKeys = await onShard(set, shard, withLongestParts(shardRedis, keys));
    const bytes = keys.reduce((sum, k) => sum + k.bytes, 0);
    total += bytes;
    const t = totals[shard] as ShardTotals;
    totals[shard] = { ...t, lights: t.lights + 1, keys: t.keys + keys.length, bytes: t.bytes + bytes };
  }
  return {
    memory: {
      bytesPerLight: total / lights.length,
      usedMemoryDeltaPerLight: (after - before) / lights.length,
      keys: firstKeys,
      lights: lights.length,
    },
    events: eventCount(trafficOf(plan, cell, 0)),
    lights,
    span,
    ...(realtime ? { realtime } : {}),
    ...(set.cluster ? { shards: totals } : {}),
  };
}

/** How a cluster run names its lights (said in the result). */
export const LIGHT_SPREAD =
  'light i of a cell goes to primary i mod n (primaries in slot order): named <window>-<rate>-l<j> with the lowest unused j whose keys hash to a slot of that primary';

/** One INFO reading per shard; null where INFO is not allowed. */
type Readings = (ServerCounters | null)[];

async function readCounters(set: ShardSet): Promise<Readings> {
  const out: Readings = [];
  for (const [i, shard] of set.shards.entries()) out.push(await onShard(set, i, serverCounters(shard.session.redis)));
  return out;
}

/** What disturbed any shard between two readings; on a cluster each names its node. */
function disturbedOf(set: ShardSet, before: Readings, after: Readings): string[] {
  return set.shards.flatMap((shard, i) => {
    const a = before[i];
    const b = after[i];
    if (!a || !b) return [];
    return disturbances(a, b).map((d) => (set.cluster ? `node ${shard.node}: ${d}` : d));
  });
}

/** Script counters summed over the shards; null when any shard's are unreadable. */
async function readScriptStats(set: ShardSet): Promise<ScriptCommandStats | null> {
  let calls = 0;
  let usec = 0;
  for (const shard of set.shards) {
    const stats = await readScriptCommandStats(shard.session.redis);
    if (!stats) return null;
    calls += stats.calls;
    usec += stats.usec;
  }
  return { calls, usec };
}

/** How the plan's layouts are built: with the run's scripts folder (`--scripts`) when it has one. */
function layoutOptionsOf(plan: BenchPlan): LayoutOptions {
  return plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {};
}

/**
 * The plan's layouts whose script calls take keys in more than one hash
 * slot (a cluster node refuses those with CROSSSLOT), each with the slots
 * of one sample call. Asks each layout for a write and a read over the
 * plan's widest window, so no layout is named here.
 */
export function layoutsAcrossSlots(plan: BenchPlan, prefix: string): { layout: string; slots: number[] }[] {
  const window = Math.max(...plan.windows);
  const at = BENCH_EPOCH + (plan.durationSeconds ?? window);
  const out: { layout: string; slots: number[] }[] = [];
  for (const name of new Set(plan.layouts)) {
    const layout = namespacedLayout(name, prefix, layoutOptionsOf(plan));
    const light: Light = { name: 'slot-check' };
    for (const call of [layout.recordSuccess(light, { at, windowSeconds: window }), layout.getMetrics(light, { at, windowSeconds: window })]) {
      const slots = [...new Set(call.keys.map(keySlot))];
      if (slots.length > 1) {
        out.push({ layout: name, slots });
        break;
      }
    }
  }
  return out;
}

/** Calls of each operation that commands per call is taken over: few, since each is exact. */
export const COMMANDS_CALLS = 10;

/** Why a run reports no commands per call; undefined when it does. */
export function commandsSkippedReason(set: ShardSet, plan: Pick<BenchPlan, 'commandsPerCall'>): string | undefined {
  if (plan.commandsPerCall === false) return 'not measured: --no-commands';
  if (set.cluster) return 'not measured on a cluster: INFO commandstats is per node, and each call runs on one';
  if (!set.private) return "not measured on a shared server (--redis-url): other clients' commands would count in INFO commandstats as the layout's";
  return undefined;
}

/**
 * Commands per call of a cell's write, failure and read, on one of its filled
 * lights, from `from` on, 1/rate seconds apart (steady state: the window is
 * full, so each write evicts as the cell's own writes did). Each op is
 * measured up to three times until two agree, so the run's own heartbeat (a
 * SET now and then) landing between two readings cannot change the figure.
 */
async function cellCommands(
  redis: Redis,
  layout: Layout,
  light: Light,
  cell: Cell,
  from: number,
): Promise<{ commands: CellCommands | undefined; until: number }> {
  const client = await LayoutClient.open(redis, layout);
  let at = from;
  const step = 1 / cell.rate;
  let failures = 0;
  const ops = {
    write: () => client.recordSuccess(light, { windowSeconds: cell.windowSeconds, at: (at += step) }),
    failure: () =>
      client.recordFailure(light, { windowSeconds: cell.windowSeconds, at: (at += step), errorJson: errorJsonFor(at, failures++, layout.stampPrecision) }),
    read: () => client.getMetrics(light, { windowSeconds: cell.windowSeconds, at: (at += step) }),
  };
  const measured: Partial<Record<keyof typeof ops, CommandsPerCall>> = {};
  for (const [op, run] of Object.entries(ops) as [keyof typeof ops, () => Promise<unknown>][]) {
    const seen: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await measureCommandsPerCall(redis, run, COMMANDS_CALLS);
      if (!result) return { commands: undefined, until: at };
      measured[op] = result;
      const text = JSON.stringify(result);
      if (seen.includes(text)) break;
      seen.push(text);
    }
  }
  const { write, failure, read } = measured;
  return { commands: write && failure && read ? { write, failure, read } : undefined, until: at };
}

/**
 * Runs a plan: for each cell, drives one window (or the plan's duration) of
 * evenly spaced traffic through the layout with an injected clock, measures
 * memory per light, then removes the cell's keys. With `plan.realtime` the
 * traffic is real instead: paced at the cell's rate for its duration on the
 * server's clock, one cell after another, and measured for pacing and latency. Writes only under
 * `namespace`; the caller removes the namespace on every way out.
 */
export async function runBench(run: BenchRun): Promise<BenchReport> {
  const { plan, namespace, progress } = run;
  const given = run.shards ?? (run.session ? singleShard(run.session) : undefined);
  if (!given || given.shards.length === 0) throw new Error('runBench: give a session or shards');
  const set: ShardSet = given;
  const { session } = set.shards[0] as ShardSet['shards'][number];
  const { redis } = session;
  // A cluster that reshards or loses a node mid-run says so (exit 3), never a figure.
  const withContext = (err: unknown, where: string): unknown => withPlace(set.cluster ? clusterChanged(err) : err, where);
  const started = Date.now();
  const info = await serverInfo(redis);
  const cells = cellsOf(plan);
  // Counters are read on the session's own connection: the fill writes on a
  // connection of its own and the load on lean sockets of its own, so this
  // one is idle while they run (and no extra client counts against maxclients).
  const watcher = redis;
  // Each marker on the shard that owns its key (a single server owns both).
  const runShard = set.shardOfKey(runKey(namespace));
  const aliveShard = set.shardOfKey(aliveKey(namespace));
  const runRedis = redisOf(set)[runShard] as Redis;
  const aliveRedis = redisOf(set)[aliveShard] as Redis;
  // Other runs' alive keys may sit on any primary.
  const everyNode = set.cluster ? redisOf(set) : watcher;
  const heartbeat = await markRun(runRedis, namespace, aliveRedis).catch((err: unknown) => {
    throw withContext(err, 'while marking the run');
  });
  /** The accuracy phases' own private server, when the run has one to copy (see AccuracyLane). */
  let lane: AccuracyLane | undefined;
  /** Each cell's result once its memory phase ended (memory only), and once every phase ended, by cell index. */
  const memoryOnly = new Map<number, CellResult>();
  const finished = new Map<number, CellResult>();
  /** The layouts (and phase) a script error after the memory phase came from. */
  let failing: { layouts: Layout[]; phase: IncompleteRun['phase'] } | undefined;
  try {
    return await runCells();
  } catch (err) {
    throw await incompleteOf(err);
  } finally {
    heartbeat.stop();
    // The markers go with the run; the caller's clean-up catches them if this fails.
    // Bounded: under a long CLIENT PAUSE the DEL waits, and the caller's clean-up reports what is left.
    // The lane's server stops meanwhile (it holds nothing of the user's).
    await Promise.all([
      Promise.race([deleteRouted(set, [runKey(namespace), aliveKey(namespace)]).catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]),
      lane?.close(),
    ]);
  }

  /**
   * A script error in a throughput or accuracy phase, after some memory phase
   * ended: the figures measured so far, where it stopped and, on a private
   * server, the command the server rejected and its known cause. Any other
   * error is returned as it is.
   */
  async function incompleteOf(err: unknown): Promise<unknown> {
    if (!(err instanceof ScriptError) || err instanceof IncompleteBenchError || !failing || memoryOnly.size === 0) return err;
    const { layouts, phase } = failing;
    try {
      // A reply over swc's bound is no server rejection: replaying verify's traffic under MONITOR would only read the megabytes again.
      const found = !(err instanceof OversizeReplyError) && set.private && !set.cluster ? await diagnose(redis, layouts, plan.seed, run.signal) : null;
      const results = [...memoryOnly.keys()].sort((a, b) => a - b).map((i) => finished.get(i) ?? (memoryOnly.get(i) as CellResult));
      const error = found?.error ?? err.message;
      const cause = found ? namedRejection(found.error, found.rejected) : null;
      const incomplete: IncompleteRun = {
        layout: (found?.layout ?? layouts[0])?.name ?? '?',
        phase,
        error: err.message,
        ...(found?.rejected !== undefined ? { rejected: found.rejected } : {}),
        ...(cause ? { cause } : {}),
      };
      const report = { ...(await reportOf(results, null)), incomplete };
      return new IncompleteBenchError(cause ? `${cause.name}: ${error}` : err.message, report, { cause: err });
    } catch {
      return err;
    }
  }

  /** The report of `results`; `scriptsBefore` the script counters at the start (null: not reported). */
  async function reportOf(results: CellResult[], scripts: { before: ScriptCommandStats | null; wallStarted: number } | null): Promise<BenchReport> {
    const measuringSeconds = scripts ? (performance.now() - scripts.wallStarted) / 1000 : undefined;
    const labelled = [...new Set(plan.layouts)].flatMap((name) => {
      const label = layoutLabel(name);
      return label === undefined ? [] : [[name, label] as const];
    });
    const labels = labelled.length > 0 ? Object.fromEntries(labelled) : undefined;
    const delta = scripts ? scriptCommandDelta(scripts.before, await readScriptStats(set)) : null;
    // The accuracy phases' scripts ran on the lane's server, at the same time as the run's own: reported apart, never added.
    const onLane = lane && scripts ? await lane.scriptStats() : undefined;
    const commandsSkipped = commandsSkippedReason(set, plan);
    return {
      schemaVersion: SCHEMA_VERSION,
      swcVersion: SWC_VERSION,
      redis: {
        version: info.version,
        memAllocator: info.memAllocator,
        mode: info.mode,
        private: set.private,
        config: info.config,
        // Which build measured (a non-Redis server only: Redis reports stay as they were).
        ...(info.server ? { server: info.server.name, serverVersion: info.server.version } : {}),
      },
      options: run.options ?? {},
      results,
      startedAt: new Date(started).toISOString(),
      elapsedSeconds: (Date.now() - started) / 1000,
      ...(measuringSeconds !== undefined ? { measuringSeconds } : {}),
      serverScriptSeconds: delta ? delta.usec / 1e6 : null,
      ...(onLane !== undefined ? { accuracyServerScriptSeconds: onLane ? onLane.usec / 1e6 : null } : {}),
      encodingHints: encodingHints(results, info.config),
      ...(set.cluster
        ? {
            cluster: {
              shards: set.shards.length,
              nodes: set.shards.map((s) => s.node),
              private: set.private,
              lightSpread: run.lightSpread ?? LIGHT_SPREAD,
              findings: run.findings ?? [],
            },
          }
        : {}),
      ...(labels ? { layoutLabels: labels } : {}),
      ...(commandsSkipped !== undefined ? { commandsSkipped } : {}),
    };
  }

  /** A cell's result: its memory, and what its later phases measured. */
  function cellResultOf(f: Filled, throughput?: ThroughputResult, accuracy?: CellAccuracy, commands?: CellCommands): CellResult {
    const { cell, memory, events, realtime, shards } = f;
    const kb = publishedKb(plan.preset, cell.layout, cell.windowSeconds, cell.rate);
    return {
      layout: cell.layout,
      windowSeconds: cell.windowSeconds,
      rate: cell.rate,
      durationSeconds: cell.durationSeconds,
      // What the window holds at the end: a run shorter than the window fills only part of it.
      eventsInWindow: Math.round(cell.rate * Math.min(realtime?.durationSeconds ?? cell.durationSeconds, cell.windowSeconds)),
      events,
      memory,
      ...(throughput ? { throughput } : {}),
      ...(realtime ? { realtime } : {}),
      ...(accuracy ? { accuracy: accuracy.accuracy, ...(accuracy.serverCost ? { serverCost: accuracy.serverCost } : {}) } : {}),
      ...(commands ? { commands } : {}),
      ...(kb !== undefined ? { published: { kb, bytes: kb * 1024, diff: memory.bytesPerLight / (kb * 1024) - 1 } } : {}),
      ...(shards ? { shards } : {}),
    };
  }

  async function runCells(): Promise<BenchReport> {
    const commandsSkipped = commandsSkippedReason(set, plan);
    // Runs on one server take turns: another run's writes would land in this one's figures.
    await waitForTurn(everyNode, heartbeat, {
      ...(run.signal ? { signal: run.signal } : {}),
      ...(run.turnWaitMs !== undefined ? { timeoutMs: run.turnWaitMs } : {}),
      ...(progress?.onWait ? { onWait: (others: readonly string[]) => progress.onWait?.(others) } : {}),
    });
    let last: Readings = await readCounters(set);
    // Started before the clock: a server's start-up is not the run's work.
    lane = set.cluster || run.accuracyInLine ? undefined : await AccuracyLane.open(session.server, plan, (message) => progress?.onWarning?.(message));
    // The run's own server's script time over the run, beside the run's wall time: how much of the wall that server's scripts take.
    const scriptsBefore = await readScriptStats(set);
    const wallStarted = performance.now();
    if (last.every((r) => r === null)) progress?.onWarning?.('INFO is not allowed: evictions, pauses and restarts during the run cannot be noticed');
    else if (last.some((r) => r === null))
      progress?.onWarning?.(
        `INFO is not allowed on ${set.shards
          .filter((_, i) => last[i] === null)
          .map((s) => s.node)
          .join(', ')}: evictions, pauses and restarts there cannot be noticed`,
      );
    /** Fails the cell when a server was disturbed since the last reading. */
    const watch = async (cell: string, what: string): Promise<void> => {
      const now = await readCounters(set);
      const found = disturbedOf(set, last, now);
      last = last.map((r, i) => now[i] ?? r);
      if (found.length > 0) {
        throw new DisturbedCellError(`${cell} failed during its ${what}: ${found.join('; ')}; a figure taken then would be wrong, so none is reported`);
      }
    };
    const liveOthers = async (cell: string): Promise<void> => {
      const found = (await otherLiveRuns(everyNode, namespace)).filter((o) => o.state === 'writing');
      if (found.length > 0) {
        throw new DisturbedCellError(
          `${cell} failed: another swc run wrote to this server while it ran (${found.map((o) => o.prefix).join(', ')}); its writes would land in this cell's figures`,
        );
      }
    };
    // Load every script and run each layout once on a throw-away light before
    // the first measurement: compiling Lua and the server's first allocations
    // would otherwise land in the first cell's used_memory delta.
    for (const name of new Set(cells.map((c) => c.layout))) {
      const layout = namespacedLayout(name, namespace.prefix, layoutOptionsOf(plan));
      for (const [i, shard] of set.shards.entries()) await onShard(set, i, installScripts(shard.session.redis, layout.scripts));
      await warmUp(set, plan, layout).catch((err: unknown) => {
        throw withContext(err, `while warming up ${layout.name}`);
      });
    }
    const totalEvents = plannedEvents(plan);
    let written = 0;
    const results: CellResult[] = [];
    /** Cells measured and cleaned up, not yet reported, in cell order. */
    const reported: Reported[] = [];
    /** Reports the cells at the head of the queue whose accuracy phase has ended (with `all`, waits for every one). */
    const report = async (all: boolean): Promise<void> => {
      for (let head = reported[0]; head && (all || head.settled); head = reported[0]) {
        reported.shift();
        const result = await head.result;
        results.push(result);
        finished.set(head.index, result);
        progress?.onCellDone?.(result, head.index, cells.length);
      }
    };
    // Cells of one window and rate run together: each layout's memory phase,
    // then their throughput phases with the layouts interleaved round by round.
    const groupsOf: Cell[][] = [];
    for (const cell of cells) {
      const last = groupsOf.at(-1);
      const head = last?.[0];
      if (last && head && head.windowSeconds === cell.windowSeconds && head.rate === cell.rate) last.push(cell);
      else groupsOf.push([cell]);
    }
    let index = 0;
    for (const group of groupsOf) {
      const filled: Filled[] = [];
      for (const cell of group) {
        // An accuracy phase that failed on the lane stops the run at the next cell.
        if (lane?.failure) throw lane.failure.error;
        progress?.onCellStart?.(cell, index, cells.length);
        const layout = namespacedLayout(cell.layout, namespace.prefix, layoutOptionsOf(plan));
        const name = `cell ${index + 1}/${cells.length} (${cell.layout}, window ${cell.windowSeconds} s at ${cell.rate}/s)`;
        const where = (): string => `in ${name} after ${written.toLocaleString('en-US')} of ${totalEvents.toLocaleString('en-US')} events`;
        const measured = await runMemory(
          set,
          plan,
          cell,
          layout,
          (n) => {
            written += n;
            progress?.onEvents?.(written, totalEvents);
          },
          run.signal,
        ).catch((err: unknown) => {
          throw withContext(err, where());
        });
        const { memory, lights } = measured;
        // A server that restarted mid-cell lost what was written before, an
        // eviction took some of it, a pause stretched it: stop instead of
        // reporting such a figure.
        await watch(name, 'memory phase');
        if (memory.usedMemoryDeltaPerLight * lights.length < -IMPLAUSIBLE_DROP_BYTES) {
          throw new DisturbedCellError(
            `${name} failed during its memory phase: used_memory fell by ${Math.round((-memory.usedMemoryDeltaPerLight * lights.length) / 1024).toLocaleString('en-US')} KB ` +
              "while this run only added keys: another client (another swc run?) freed memory, so the used_memory figure is not this cell's",
          );
        }
        const entry: Filled = { cell, index, layout, name, ...measured };
        filled.push(entry);
        // Kept if a later phase's script fails: the memory figure stands (see IncompleteBenchError).
        memoryOnly.set(index, cellResultOf(entry));
        index += 1;
      }
      const first = filled[0];
      const lastFilled = filled.at(-1);
      if (!first || !lastFilled) continue;
      const groupName =
        filled.length === 1
          ? first.name
          : `cells ${first.index + 1}-${lastFilled.index + 1}/${cells.length} (${filled.map((f) => f.cell.layout).join(', ')}, window ${first.cell.windowSeconds} s at ${first.cell.rate}/s)`;
      let throughputs: ThroughputResult[] | undefined;
      if (plan.throughput) {
        // Nothing runs beside a throughput phase: the lane's accuracy phases end first.
        await lane?.drain();
        let failures = 0;
        let phase: ThroughputPhase | undefined;
        // A reading at each phase change, so a pause is blamed on the phase it fell in.
        const readings: { phase: ThroughputPhase; reading: Promise<Readings> }[] = [];
        const where = `in ${groupName} after ${written.toLocaleString('en-US')} of ${totalEvents.toLocaleString('en-US')} events`;
        throughputs = await measureThroughputRounds({
          redis: set.cluster ? set : session,
          targets: filled.map((f) => ({
            layout: f.layout,
            // Lights a preset cell added for steadier bytes stay out of the throughput phase.
            lights: f.lights.slice(0, plan.lights),
            windowSeconds: f.cell.windowSeconds,
            rate: f.cell.rate,
            startAt: f.span.to,
            failureRate: plan.failureRate,
            seed: plan.seed,
            errorJson: (at: number) => errorJsonFor(at, failures++, f.layout.stampPrecision),
          })),
          connections: plan.throughput.connections,
          pipeline: plan.throughput.pipeline,
          rounds: plan.throughput.rounds ?? 1,
          ...(plan.throughput.ops !== undefined ? { ops: plan.throughput.ops } : { seconds: plan.throughput.seconds }),
          ...(plan.throughput.appViewMs ? { appViewMs: plan.throughput.appViewMs } : {}),
          ...(plan.throughput.maxOpsPerSecond !== undefined ? { maxOpsPerSecond: plan.throughput.maxOpsPerSecond } : {}),
          ...(plan.throughput.percentiles ? { percentiles: plan.throughput.percentiles } : {}),
          ...(run.signal ? { signal: run.signal } : {}),
          onProgress: (p) => {
            progress?.onThroughput?.(group, p);
            if (p.phase === phase) return;
            if (phase) readings.push({ phase, reading: readCounters(set) });
            progress?.onPhase?.(first.cell, (phase = p.phase), group);
          },
        }).catch((err: unknown) => {
          failing = { layouts: filled.map((f) => f.layout), phase: 'throughput' };
          throw withContext(err, `${where}, throughput phase ${phase ?? 'write'}`);
        });
        for (const { phase: ended, reading } of readings) {
          const now = await reading;
          const found = disturbedOf(set, last, now);
          last = last.map((r, i) => now[i] ?? r);
          if (found.length > 0) {
            throw new DisturbedCellError(
              `${groupName} failed during its ${ended} throughput phase: ${found.join('; ')}; a figure taken then would be wrong, so none is reported`,
            );
          }
        }
        await watch(groupName, `${phase ?? 'request'} throughput phase`);
      }
      await liveOthers(groupName);
      for (const [i, f] of filled.entries()) {
        const { cell, lights, span, layout } = f;
        const throughput = throughputs?.[i];
        // Where the injected clock stopped, so every hour key it wrote is deleted below.
        let clockSpan = throughput
          ? { ...span, to: Math.ceil(throughput.clockEndAt !== undefined ? unixSecondsOf(throughput.clockEndAt) : span.to) + 1 }
          : span;
        let commands: CellCommands | undefined;
        const costLight = lights[0];
        if (commandsSkipped === undefined && costLight && !f.realtime) {
          const probe = await cellCommands(redisOf(set)[0] as Redis, layout, costLight, cell, clockSpan.to).catch((err: unknown) => {
            // The first phase after memory that calls a cell's scripts again: a script error here keeps the memory figures too.
            failing ??= { layouts: [layout], phase: 'commands-per-call' };
            throw withContext(err, `in ${f.name}, commands-per-call phase`);
          });
          commands = probe.commands;
          // Its writes went past the cell's clock: their keys are deleted with the cell's.
          clockSpan = { ...clockSpan, to: Math.ceil(probe.until) + 1 };
        }
        const accuracyOn = (target: Redis): Promise<CellAccuracy | undefined> =>
          cellAccuracy(target, plan, cell, layout, run.signal, (n) => {
            written += n;
            progress?.onEvents?.(written, totalEvents);
          }).catch((err: unknown) => {
            failing ??= { layouts: [layout], phase: 'accuracy' };
            throw withContext(err, `in ${f.name}, accuracy phase`);
          });
        let accuracy: CellAccuracy | undefined | Promise<CellAccuracy | undefined>;
        if (lane) {
          // On the lane's own server, while the run goes on with the next cells.
          accuracy = lane.run(accuracyOn, `${f.name}'s accuracy phase`);
        } else {
          accuracy = await accuracyOn(redisOf(set)[shardOfLight(set, layout, accuracyLight(cell))] as Redis);
          if (accuracy) await watch(f.name, 'accuracy phase');
        }
        const resultOf = (accuracy: CellAccuracy | undefined): CellResult => cellResultOf(f, throughput, accuracy, commands);
        await deleteLights(set, layout, lights, clockSpan).catch((err: unknown) => {
          throw withContext(
            err,
            `in ${f.name} after ${written.toLocaleString('en-US')} of ${totalEvents.toLocaleString('en-US')} events, while deleting its keys`,
          );
        });
        if (accuracy instanceof Promise) {
          const entry: Reported = { result: accuracy.then(resultOf), index: f.index, settled: false };
          // Awaited when reported; a failure before then stops the run at its next cell (lane.failure) or at the end.
          entry.result.then(
            () => (entry.settled = true),
            () => (entry.settled = true),
          );
          reported.push(entry);
        } else {
          // In line: measured already, so reported with its group.
          reported.push({ result: Promise.resolve(resultOf(accuracy)), index: f.index, settled: true });
        }
      }
      // Reported in cell order, once measured and cleaned up: a group at once,
      // or, with the lane, each cell once its accuracy phase has ended.
      await report(false);
    }
    await report(true);
    return reportOf(results, { before: scriptsBefore, wallStarted });
  }
}
