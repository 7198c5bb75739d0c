import type { Redis } from 'ioredis';
import { ExitCode, InterruptedError, RedisUnavailableError, SwcError } from '../errors.js';
import { namespacedLayout } from '../layouts/index.js';
import type { Layout, Light } from '../layouts/types.js';
import { measureKeys, usedMemory } from '../measure/memory.js';
import type { BenchReport, CellResult, MemoryResult, RealtimeResult, ThroughputResult } from '../measure/types.js';
import { measureThroughput, type ThroughputPhase } from '../measure/throughput.js';
import type { Session } from '../redis/connect.js';
import { serverInfo, serverRunId } from '../redis/info.js';
import { classifyRedisError } from '../redis/errors.js';
import { execPipeline, installScripts } from '../redis/scripts.js';
import { type ScriptCall } from '../lua/source.js';
import { BENCH_EPOCH, errorJsonFor, evenTraffic, eventCount, lightSeed, type TrafficSpec } from '../traffic/events.js';
import { SWC_VERSION } from '../version.js';
import { deleteKeys, type Namespace } from './namespace.js';
import { cellsOf, plannedEvents, type BenchPlan, type Cell } from './plan.js';
import { publishedKb } from './presets.js';
import { driveRealtime } from './realtime.js';

/** Calls per pipeline while filling a window: large enough to amortize round trips. */
const FILL_BATCH = 1000;

/** Progress of a run, as events (the caller decides how to show them). */
export interface BenchProgress {
  /** A cell started. */
  onCellStart?(cell: Cell, index: number, total: number): void;
  /** Events written so far in the whole run. */
  onEvents?(written: number, total: number): void;
  /** A throughput phase of a cell started. */
  onPhase?(cell: Cell, phase: ThroughputPhase): void;
  /** A cell finished. */
  onCellDone?(result: CellResult, index: number, total: number): void;
}

/** Inputs of {@link runBench}. */
export interface BenchRun {
  readonly session: Session;
  readonly plan: BenchPlan;
  /** Every key of the run goes under this prefix. */
  readonly namespace: Namespace;
  readonly progress?: BenchProgress;
  /** Extra options echoed into the report. */
  readonly options?: Record<string, unknown>;
  /** Aborting stops the run before its next pipeline; the run then rejects with an InterruptedError. */
  readonly signal?: AbortSignal;
}

function lightsOf(cell: Cell, count: number): Light[] {
  return Array.from({ length: count }, (_, i) => ({ name: `w${cell.windowSeconds}-r${cell.rate}-l${i}` }));
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

/** Writes one light's traffic through a layout in pipelined batches. */
async function fill(
  redis: Redis,
  layout: Layout,
  light: Light,
  spec: TrafficSpec,
  windowSeconds: number,
  written: (n: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  let batch: ScriptCall[] = [];
  let failures = 0;
  const flush = async (): Promise<void> => {
    if (signal?.aborted) throw new InterruptedError();
    const replies = await execPipeline(redis, batch);
    const failed = replies.find(([err]) => err);
    if (failed?.[0]) throw failed[0];
    written(batch.length);
    batch = [];
  };
  for (const event of evenTraffic(spec)) {
    const options = { at: event.at, windowSeconds, eventId: event.eventId };
    batch.push(
      event.outcome === 'success'
        ? layout.recordSuccess(light, options)
        : layout.recordFailure(light, { ...options, errorJson: errorJsonFor(event.at, failures++) }),
    );
    if (batch.length >= FILL_BATCH) await flush();
  }
  if (batch.length > 0) await flush();
}

/** Runs a small cell through `layout` (injected clock, even in a realtime run: it only warms up) and deletes its keys. */
async function warmUp(session: Session, plan: BenchPlan, layout: Layout): Promise<void> {
  const cell: Cell = { layout: layout.name as Cell['layout'], windowSeconds: 60, rate: 50, durationSeconds: 60 };
  const { lights, span } = await runMemory(session, { ...plan, lights: 1, realtime: false }, cell, layout, () => undefined);
  await deleteLights(session.redis, layout, lights, span);
}

/** The Unix seconds a cell's traffic covered: where 5.x hour keys can be. */
interface Span {
  readonly from: number;
  readonly to: number;
}

/** Deletes every key the layout says the lights have for traffic in `span`. */
async function deleteLights(redis: Redis, layout: Layout, lights: readonly Light[], span: Span): Promise<void> {
  await deleteKeys(redis, lights.flatMap((light) => layout.keysOf(light, span.from, span.to).map((k) => k.key)));
}

/** Says where a run stopped, keeping the error's type (and so its exit code). */
function withContext(err: unknown, where: string): unknown {
  if (err instanceof InterruptedError) return err;
  const classified = classifyRedisError(err);
  if (classified instanceof SwcError) return classified.at(where);
  // Not from Redis (a bug): keep it, with the place.
  return new SwcError(`${err instanceof Error ? err.message : String(err)} (${where})`, ExitCode.runtime, { cause: err });
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
 * Fills a cell's lights (injected clock, or real traffic with `plan.realtime`)
 * and measures their memory; the caller removes their keys.
 */
async function runMemory(
  session: Session,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  written: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ memory: MemoryResult; events: number; lights: Light[]; span: Span; realtime?: RealtimeResult }> {
  const { redis } = session;
  const lights = lightsOf(cell, plan.lights);
  const before = await usedMemory(redis);
  // A pipelined writer leaves a large query buffer behind on its connection;
  // writing on a connection of its own and closing it keeps that buffer out
  // of the used_memory delta.
  const writer = await session.connectAnother();
  let realtime: RealtimeResult | undefined;
  try {
    if (plan.realtime) {
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
    } else {
      for (const [i, light] of lights.entries()) {
        await fill(writer, layout, light, trafficOf(plan, cell, i), cell.windowSeconds, written, signal);
      }
    }
  } catch (err) {
    writer.disconnect();
    throw err;
  }
  await closeAndWait(redis, writer);
  const after = await usedMemory(redis);
  // Real traffic wrote 5.x hour keys by this machine's clock, between these seconds.
  const span: Span = realtime
    ? { from: Math.floor(realtime.startedAt), to: Math.ceil(realtime.endedAt) }
    : { from: BENCH_EPOCH, to: BENCH_EPOCH + cell.durationSeconds };
  let total = 0;
  let firstKeys: MemoryResult['keys'] = [];
  for (const [i, light] of lights.entries()) {
    const keys = await measureKeys(redis, layout.keysOf(light, span.from, span.to));
    if (i === 0) firstKeys = keys;
    total += keys.reduce((sum, k) => sum + k.bytes, 0);
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
  };
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
  const { session, plan, namespace, progress } = run;
  const { redis } = session;
  const started = Date.now();
  const info = await serverInfo(redis);
  const cells = cellsOf(plan);
  const layoutOptions = plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {};
  // Load every script and run each layout once on a throw-away light before
  // the first measurement: compiling Lua and the server's first allocations
  // would otherwise land in the first cell's used_memory delta.
  for (const name of new Set(cells.map((c) => c.layout))) {
    const layout = namespacedLayout(name, namespace.prefix, layoutOptions);
    await installScripts(redis, layout.scripts);
    await warmUp(session, plan, layout);
  }
  const totalEvents = plannedEvents(plan);
  let written = 0;
  const results: CellResult[] = [];
  for (const [index, cell] of cells.entries()) {
    progress?.onCellStart?.(cell, index, cells.length);
    const layout = namespacedLayout(cell.layout, namespace.prefix, layoutOptions);
    const where = (): string =>
      `in cell ${index + 1}/${cells.length} (${cell.layout}, window ${cell.windowSeconds} s at ${cell.rate}/s) ` +
      `after ${written.toLocaleString('en-US')} of ${totalEvents.toLocaleString('en-US')} events`;
    const { memory, events, lights, span, realtime } = await runMemory(
      session,
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
    // A server that restarted mid-cell lost what was written before: its
    // figures would be wrong, so stop instead.
    if ((await serverRunId(redis)) !== info.runId) {
      throw new RedisUnavailableError(`the server restarted ${where()}; its data was lost, so this run's figures would be wrong`);
    }
    let clockSpan = span;
    let throughput: ThroughputResult | undefined;
    if (plan.throughput) {
      let failures = 0;
      let phase: ThroughputPhase | undefined;
      throughput = await measureThroughput({
        redis: session,
        layout,
        lights,
        windowSeconds: cell.windowSeconds,
        rate: cell.rate,
        startAt: span.to,
        failureRate: plan.failureRate,
        seed: plan.seed,
        connections: plan.throughput.connections,
        pipeline: plan.throughput.pipeline,
        ...(plan.throughput.ops !== undefined ? { ops: plan.throughput.ops } : { seconds: plan.throughput.seconds }),
        errorJson: (at) => errorJsonFor(at, failures++),
        ...(run.signal ? { signal: run.signal } : {}),
        onProgress: (p) => {
          if (p.phase !== phase) progress?.onPhase?.(cell, (phase = p.phase));
        },
      }).catch((err: unknown) => {
        throw withContext(err, `${where()}, throughput phase ${phase ?? 'write'}`);
      });
      // Where the injected clock stopped, so every hour key it wrote is deleted below.
      clockSpan = { ...span, to: span.to + Math.ceil((throughput.write.ops + throughput.request.ops) / lights.length) / cell.rate + 1 };
    }
    const kb = publishedKb(plan.preset, cell.layout, cell.windowSeconds, cell.rate);
    const result: CellResult = {
      layout: cell.layout,
      windowSeconds: cell.windowSeconds,
      rate: cell.rate,
      durationSeconds: cell.durationSeconds,
      // What the window holds at the end: a run shorter than the window fills only part of it.
      eventsInWindow: Math.round(cell.rate * Math.min(realtime?.seconds ?? cell.durationSeconds, cell.windowSeconds)),
      events,
      memory,
      ...(throughput ? { throughput } : {}),
      ...(realtime ? { realtime } : {}),
      ...(kb !== undefined ? { published: { kb, bytes: kb * 1024, diff: memory.bytesPerLight / (kb * 1024) - 1 } } : {}),
    };
    await deleteLights(redis, layout, lights, clockSpan);
    results.push(result);
    progress?.onCellDone?.(result, index, cells.length);
  }
  return {
    schemaVersion: 1,
    swcVersion: SWC_VERSION,
    redis: {
      version: info.version,
      memAllocator: info.memAllocator,
      mode: info.mode,
      private: Boolean(session.server),
      config: info.config,
    },
    options: run.options ?? {},
    results,
    startedAt: new Date(started).toISOString(),
    elapsedSeconds: (Date.now() - started) / 1000,
  };
}
