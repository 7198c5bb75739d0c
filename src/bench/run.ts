import type { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../core/errors.js';
import { unixSecondsOf } from '../core/format.js';
import { namespacedLayout } from '../layouts/index.js';
import type { Layout, Light } from '../layouts/types.js';
import { withLongestParts } from '../measure/encoding.js';
import { settleLazyFree } from '../measure/lazyfree.js';
import { cappedBatch, type Pace } from '../measure/load.js';
import { usedMemory } from '../measure/memory.js';
import type { BenchReport, ClusterFinding, KeyMemory, MemoryResult, RealtimeResult, ShardTotals } from '../measure/types.js';
import type { Session } from '../redis/connect.js';
import { serverInfo } from '../redis/info.js';
import type { CommandCap } from '../redis/command-cap.js';
import { RespConnection } from '../redis/resp.js';
import { installScripts, loadScripts } from '../redis/scripts.js';
import { keySlot } from '../redis/slot.js';
import { BENCH_EPOCH, errorJsonFor, evenTraffic, eventCount, lightSeed, type TrafficSpec } from '../traffic/events.js';
import { FILL_BATCH, writeLightEvents } from '../run/replay.js';
import { aliveKey, markRun, runKey, type Namespace } from '../run/namespace.js';
import { cellsOf, plannedEvents, type BenchPlan, type Cell } from './plan.js';
import { driveRealtime } from './realtime.js';
import { clusterChanged, redisOf, shardOfLight, spreadLights } from './shards.js';
import { singleTarget, type Shard, type Target } from '../redis/target.js';
import { measureSteadyKeys, steadyLightCount, steadyTarget } from './steady-lights.js';
import { commandCapOf, learnCommands } from './phases/cap.js';
import { commandsSkippedReason } from './phases/commands.js';
import { deathOf } from './phases/deaths.js';
import { cellNameOf, eventsSoFar, layoutOptionsOf, wrote, type BenchProgress, type Filled, type RunContext, type Span } from './phases/context.js';
import { watch } from './phases/disturbance.js';
import { endRun } from './phases/end.js';
import { DisturbedCellError } from './phases/errors.js';
import { finishGroup, groupsOf } from './phases/group.js';
import { incompleteOf } from './phases/incomplete.js';
import { deleteLights, onShard, withPlace } from './phases/on-shards.js';
import { ReportQueue } from './phases/queue.js';
import { cellResultOf, reportOf } from './phases/result.js';
import { startMeasuring } from './phases/start.js';
import { AccuracyAhead } from './phases/ahead.js';

export { COMMANDS_CALLS, commandsSkippedReason } from './phases/commands.js';
export type { BenchProgress } from './phases/context.js';
export { DisturbedCellError, IncompleteBenchError } from './phases/errors.js';
export { LIGHT_SPREAD } from './phases/result.js';

/**
 * A fall of used_memory during a cell that only adds keys, beyond what
 * client buffers and allocator noise explain: somebody else freed memory
 * (another run's clean-up, a mass delete), so the delta is not this cell's.
 */
const IMPLAUSIBLE_DROP_BYTES = 256 * 1024;

/** Inputs of {@link runBench}. */
export interface BenchRun {
  /** A single server (give this or `shards`). */
  readonly session?: Session;
  /** The shards to write to: a cluster's primaries ({@link clusterTarget}); default the single `session`. */
  readonly shards?: Target;
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

function lightsOf(target: Target, layout: Layout, cell: Cell, count: number): Light[] {
  const base = `w${cell.windowSeconds}-r${cell.rate}`;
  if (!target.cluster) return Array.from({ length: count }, (_, i) => ({ name: `${base}-l${i}` }));
  return spreadLights(target, layout, base, count);
}

/** used_memory summed over every shard. */
async function usedMemoryOf(target: Target): Promise<number> {
  const each = await target.each((shard, i) => onShard(target, i, usedMemory(shard.session.redis)));
  return each.reduce((sum, bytes) => sum + bytes, 0);
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
  // Under a command cap (on the connection) batches are its size, and it paces them; else the call cap, if any.
  const batch = connection.cap ? connection.cap.batch(FILL_BATCH) : cappedBatch(FILL_BATCH, maxOpsPerSecond);
  // One cap clock over every light's run: each light's first batch waits its share too.
  const pace: Pace | undefined = maxOpsPerSecond !== undefined ? { startedMs: performance.now(), sent: 0 } : undefined;
  for (const [i, light] of lights.entries()) {
    const spec = specs[i] as TrafficSpec;
    const total = eventCount(spec);
    // Each light's errors cycle from the first, as they always have: the same seed gives the same bytes.
    await writeLightEvents(
      connection,
      layout,
      { light, events: evenTraffic(spec)[Symbol.iterator](), total, errorJson: (at, index) => errorJsonFor(at, index, layout.stampPrecision) },
      {
        batch,
        windowSeconds,
        written,
        ...(signal ? { signal } : {}),
        ...(maxOpsPerSecond !== undefined ? { maxOpsPerSecond } : {}),
        ...(pace ? { pace } : {}),
      },
    );
    if (pace) pace.sent += total;
  }
}

/**
 * Runs a small cell through `layout` (injected clock, even in a realtime run:
 * it only warms up) and deletes its keys. Under a command cap the cell is one
 * short window (3,000 calls would take minutes of the cap), and the
 * commands of each of the layout's scripts are counted on its full window
 * before any cell fills (see learnCommands).
 */
async function warmUp(target: Target, plan: BenchPlan, layout: Layout, cap: CommandCap | undefined): Promise<void> {
  const name = layout.name as Cell['layout'];
  const cell: Cell = cap
    ? { layout: name, windowSeconds: 10, rate: 1, durationSeconds: 10 }
    : { layout: name, windowSeconds: 60, rate: 50, durationSeconds: 60 };
  // One light per shard: every node compiles the scripts and makes its first allocations here.
  const { lights, span } = await runMemory(target, { ...plan, lights: target.shards.length, realtime: false }, cell, layout, () => undefined);
  const first = lights[0];
  let to = span.to;
  if (cap && first) to = Math.ceil(await learnCommands(redisOf(target)[shardOfLight(target, layout, first)] as Redis, cap, layout, first, cell, span.to)) + 1;
  await deleteLights(target, layout, lights, { ...span, to });
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
  target: Target,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  lights: readonly Light[],
  owner: readonly number[],
  from: number,
  written: (n: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  // One shard failing (its primary killed) stops the others before their next batch, and this returns only
  // once every writer is done: a writer still filling after the run failed would write keys after the clean-up looked.
  const stop = new AbortController();
  const follow = (): void => stop.abort();
  if (signal?.aborted) stop.abort();
  signal?.addEventListener('abort', follow, { once: true });
  let first: { error: unknown } | undefined;
  await Promise.allSettled(
    target.shards.map((shard, s) =>
      onShard(
        target,
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
              stop.signal,
              // The cap is over every connection: shards fill at once, each its share.
              plan.maxOpsPerSecond !== undefined ? plan.maxOpsPerSecond / target.shards.length : undefined,
            );
          } finally {
            writer.close();
          }
          await waitClosed(shard.session.redis, id);
        })(),
      ).catch((error: unknown) => {
        first ??= { error };
        stop.abort();
      }),
    ),
  );
  signal?.removeEventListener('abort', follow);
  if (first) throw first.error;
}

/** Drives a cell's real traffic through its lights, on a writer of its own that is closed before this returns. */
async function fillRealtime(
  session: Session,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  lights: readonly Light[],
  written: (n: number) => void,
  signal: AbortSignal | undefined,
): Promise<RealtimeResult> {
  const writer = await session.connectAnother();
  let realtime: RealtimeResult;
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
  await closeAndWait(session.redis, writer);
  return realtime;
}

/**
 * Fills a cell's lights (injected clock, or real traffic with `plan.realtime`)
 * and measures their memory; the caller removes their keys.
 */
async function runMemory(
  target: Target,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  written: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ memory: MemoryResult; events: number; lights: Light[]; span: Span; realtime?: RealtimeResult; shards?: ShardTotals[] }> {
  const session = (target.shards[0] as Shard).session;
  const { redis } = session;
  let lights = lightsOf(target, layout, cell, plan.lights);
  // Each light's keys live on one shard (one slot per light for a cluster-safe layout).
  let owner = lights.map((light) => shardOfLight(target, layout, light));
  // Keys of earlier cells a lazy-free thread still holds would be freed during this cell's fill.
  await settleLazyFree(redisOf(target));
  const before = await usedMemoryOf(target);
  // A pipelined writer leaves a large query buffer behind on its connection;
  // writing on a connection of its own and closing it keeps that buffer out
  // of the used_memory delta.
  let realtime: RealtimeResult | undefined;
  if (plan.realtime) {
    if (target.cluster) throw new UsageError('--realtime: not supported on Redis Cluster');
    realtime = await fillRealtime(session, plan, cell, layout, lights, written, signal);
  } else {
    await fillLights(target, plan, cell, layout, lights, owner, 0, written, signal);
  }
  let after = await usedMemoryOf(target);
  // The first light's keys as the steady check measured them: later lights do not touch them, and measuring
  // them again would settle and copy every skiplist a second time (a draw like the first, at twice the cost).
  let firstMeasured: KeyMemory[] | undefined;
  // A preset cell with skiplists: copies of them (or, where none can be made, more lights) until their random levels average out.
  if (plan.steadyLights && !plan.realtime && !target.cluster && lights.length > 0) {
    const keys = await measureSteadyKeys(redis, layout.keysOf(lights[0] as Light, BENCH_EPOCH, BENCH_EPOCH + cell.durationSeconds), plan.steadyLights);
    firstMeasured = keys;
    const bytes = keys.reduce((sum, k) => sum + k.bytes, 0);
    const count = steadyLightCount(keys, bytes, lights.length, plan.steadyLights);
    if (count > lights.length) {
      const have = lights.length;
      lights = lightsOf(target, layout, cell, count);
      owner = lights.map((light) => shardOfLight(target, layout, light));
      await fillLights(target, plan, cell, layout, lights, owner, have, written, signal);
      after = await usedMemoryOf(target);
    }
  }
  // Real traffic wrote 5.x hour keys by this machine's clock, between these seconds.
  const span: Span = realtime
    ? { from: Math.floor(unixSecondsOf(realtime.startedAt)), to: Math.ceil(unixSecondsOf(realtime.endedAt)) }
    : { from: BENCH_EPOCH, to: BENCH_EPOCH + cell.durationSeconds };
  let total = 0;
  let firstKeys: MemoryResult['keys'] = [];
  const totals = target.shards.map((shard) => ({ node: shard.node, lights: 0, keys: 0, bytes: 0 }));
  for (const [i, light] of lights.entries()) {
    const shard = owner[i] as number;
    const shardRedis = (target.shards[shard] as Shard).session.redis;
    const keys =
      i === 0 && firstMeasured
        ? firstMeasured
        : await onShard(
            target,
            shard,
            measureSteadyKeys(shardRedis, layout.keysOf(light, span.from, span.to), steadyTarget(plan, target.cluster !== undefined)),
          );
    // The first light's keys are reported, with what decides their encoding.
    if (i === 0) firstKeys = await onShard(target, shard, withLongestParts(shardRedis, keys));
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
    ...(target.cluster ? { shards: totals } : {}),
  };
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

/**
 * The run's context, once the run is marked on the server: its shards, the
 * server's info and the plan's cells (see RunContext).
 */
async function prepare(run: BenchRun & { readonly halt?: () => void }): Promise<RunContext> {
  const { plan, namespace } = run;
  const given = run.shards ?? (run.session ? singleTarget(run.session) : undefined);
  if (!given || given.shards.length === 0) throw new Error('runBench: give a session or shards');
  const target: Target = given;
  const { session } = target.shards[0] as Shard;
  // A cluster that reshards or loses a node mid-run says so (exit 3), never a figure.
  const withContext = (err: unknown, where: string): unknown => withPlace(target.cluster ? clusterChanged(err) : err, where);
  // --max-ops for a library caller whose session has no cap yet: from the first command on.
  commandCapOf(target, plan);
  const started = Date.now();
  const info = await serverInfo(session.redis);
  const cells = cellsOf(plan);
  // Each marker on the shard that owns its key (a single server owns both).
  const runRedis = redisOf(target)[target.shardOfKey(runKey(namespace))] as Redis;
  const aliveRedis = redisOf(target)[target.shardOfKey(aliveKey(namespace))] as Redis;
  const heartbeat = await markRun(runRedis, namespace, aliveRedis).catch((err: unknown) => {
    throw withContext(err, 'while marking the run');
  });
  return {
    run,
    target,
    session,
    plan,
    namespace,
    progress: run.progress,
    cells,
    totalEvents: plannedEvents(plan),
    info,
    started,
    heartbeat,
    withContext,
    written: 0,
    last: [],
    lane: undefined,
    ahead: undefined,
    memoryOnly: new Map(),
    finished: new Map(),
    failing: undefined,
  };
}

/**
 * Loads every script and runs each layout once on a throw-away light before
 * the first measurement: compiling Lua and the server's first allocations
 * would otherwise land in the first cell's used_memory delta.
 */
async function warmUpLayouts(ctx: RunContext): Promise<void> {
  const { target, plan } = ctx;
  for (const name of new Set(ctx.cells.map((c) => c.layout))) {
    const layout = namespacedLayout(name, ctx.namespace.prefix, layoutOptionsOf(plan));
    await target.each((shard, i) => onShard(target, i, installScripts(shard.session.redis, layout.scripts)));
    await warmUp(target, plan, layout, commandCapOf(target, plan)).catch((err: unknown) => {
      throw ctx.withContext(err, `while warming up ${layout.name}`);
    });
  }
}

/**
 * The memory phase of one cell (cell `index` of the plan): fills its lights,
 * measures them, and fails it when the server was disturbed meanwhile. The
 * figure is kept in case a later phase's script fails (see IncompleteBenchError).
 */
async function memoryPhase(ctx: RunContext, cell: Cell, index: number): Promise<Filled> {
  const { cells, plan, lane } = ctx;
  // An accuracy phase queued on the lane after its cell that failed stops the run at the next cell (one started with the run is reported at its cell's turn).
  if (lane?.failure) throw lane.failure.error;
  ctx.progress?.onCellStart?.(cell, index, cells.length);
  const layout = namespacedLayout(cell.layout, ctx.namespace.prefix, layoutOptionsOf(plan));
  const name = cellNameOf(ctx, cell, index);
  const measured = await runMemory(ctx.target, plan, cell, layout, (n) => wrote(ctx, n), ctx.run.signal).catch((err: unknown) => {
    throw ctx.withContext(err, `in ${name} ${eventsSoFar(ctx)}`);
  });
  const { memory, lights } = measured;
  // A server that restarted mid-cell lost what was written before, an
  // eviction took some of it, a pause stretched it: stop instead of
  // reporting such a figure.
  await watch(ctx, name, 'memory phase');
  if (memory.usedMemoryDeltaPerLight * lights.length < -IMPLAUSIBLE_DROP_BYTES) {
    throw new DisturbedCellError(
      `${name} failed during its memory phase: used_memory fell by ${Math.round((-memory.usedMemoryDeltaPerLight * lights.length) / 1024).toLocaleString('en-US')} KB ` +
        "while this run only added keys: another client (another swc run?) freed memory, so the used_memory figure is not this cell's",
    );
  }
  const entry: Filled = { cell, index, layout, name, ...measured };
  // Kept if a later phase's script fails: the memory figure stands (see IncompleteBenchError).
  ctx.memoryOnly.set(index, cellResultOf(plan, entry));
  return entry;
}

/**
 * The run's phases in order: its turn and first readings, the warm-up, then
 * group by group (cells of one window and rate) each cell's memory phase and
 * the group's later phases; the report once every cell is reported.
 */
async function runCells(ctx: RunContext): Promise<BenchReport> {
  const commandsSkipped = commandsSkippedReason(ctx.target, ctx.plan);
  const measuring = await startMeasuring(ctx);
  ctx.ahead = AccuracyAhead.start(ctx);
  await warmUpLayouts(ctx);
  const queue = new ReportQueue(ctx);
  let index = 0;
  for (const group of groupsOf(ctx.cells)) {
    const filled: Filled[] = [];
    for (const cell of group) filled.push(await memoryPhase(ctx, cell, index++));
    await finishGroup(ctx, group, filled, commandsSkipped, queue);
  }
  // The run's own server is idle now: it takes the accuracy phases the lane has not started.
  await ctx.ahead?.finishInLine(ctx.session.redis);
  await queue.report(true);
  return reportOf(ctx, queue.results, measuring);
}

/**
 * Runs a plan: for each cell, drives one window (or the plan's duration) of
 * evenly spaced traffic through the layout with an injected clock, measures
 * memory per light, then removes the cell's keys. With `plan.realtime` the
 * traffic is real instead: paced at the cell's rate for its duration on the
 * server's clock, one cell after another, and measured for pacing and latency. Writes only under
 * `namespace`; the caller removes the namespace on every way out.
 */
export async function runBench(given: BenchRun): Promise<BenchReport> {
  // The caller's signal, or the run's own halt: a dead accuracy-lane server stops the run at its next batch, not at its next cell.
  const halt = new AbortController();
  if (given.signal?.aborted) halt.abort();
  given.signal?.addEventListener('abort', () => halt.abort(), { once: true });
  const ctx = await prepare({ ...given, signal: halt.signal, halt: () => halt.abort() });
  try {
    return await runCells(ctx);
  } catch (err) {
    // No accuracy phase starts while the failure is looked into (incompleteOf may replay verify's traffic for seconds).
    ctx.ahead?.stop();
    throw await incompleteOf(ctx, await deathOf(ctx, err, given.signal?.aborted === true));
  } finally {
    await endRun(ctx);
  }
}
