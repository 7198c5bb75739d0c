import type { Redis } from 'ioredis';
import { RefusalError, RedisUnavailableError, ServerStartError, SwcError } from '../core/errors.js';
import type { Layout, Light } from '../layouts/types.js';
import { measureAccuracy, type AccuracyResult, type ServerCost } from '../measure/accuracy.js';
import { readScriptCommandStats, scriptCommandDelta, type ScriptCommandStats } from '../measure/commandstats.js';
import { connect } from '../redis/connect.js';
import { disturbances, serverCounters, type ServerCounters } from '../redis/info.js';
import type { PrivateServer } from '../redis/server.js';
import { BENCH_EPOCH, lightSeed } from '../traffic/events.js';
import { deleteKeys } from '../run/namespace.js';
import type { BenchPlan, Cell } from './plan.js';

/** The light a cell's accuracy is measured on. */
export function accuracyLight(cell: Cell): Light {
  return { name: `w${cell.windowSeconds}-r${cell.rate}-accuracy` };
}

/**
 * The accuracy of a cell's layout (and its server time per write and read)
 * when the plan asks for it (`plan.accuracy`, on by default), measured on a
 * light of its own (deleted afterwards) over a lean connection of its own,
 * so the memory and throughput figures are untouched; undefined otherwise.
 */
export async function cellAccuracy(
  redis: Redis,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  signal?: AbortSignal,
  onEvents?: (written: number) => void,
): Promise<{ accuracy: AccuracyResult; serverCost?: ServerCost } | undefined> {
  if (!plan.accuracy) return undefined;
  const light = accuracyLight(cell);
  let endAt = BENCH_EPOCH + 2 * cell.windowSeconds + 1;
  // After a failure part-way, the probe may have written past the traffic's end: cover it.
  const keys = (): string[] =>
    layout.keysOf(light, BENCH_EPOCH, Math.max(endAt, BENCH_EPOCH + 2 * cell.windowSeconds + Math.ceil(1000 / cell.rate) + 1)).map((k) => k.key);
  let measured: Awaited<ReturnType<typeof measureAccuracy>>;
  try {
    measured = await measureAccuracy(redis, layout, light, {
      windowSeconds: cell.windowSeconds,
      rate: cell.rate,
      failureRate: plan.failureRate,
      // A stream of its own, the same for every layout of the cell.
      seed: lightSeed(plan.seed, 1_000_003),
      threshold: plan.accuracy.threshold,
      startAt: BENCH_EPOCH,
      ...(signal ? { signal } : {}),
      ...(onEvents ? { onEvents } : {}),
      ...(plan.maxOpsPerSecond !== undefined ? { maxOpsPerSecond: plan.maxOpsPerSecond } : {}),
    });
  } catch (err) {
    // The failure is the news: a delete that fails too (a server gone) must not hide it; the caller's clean-up reports what is left.
    await deleteKeys(redis, keys()).catch(() => undefined);
    throw err;
  }
  endAt = measured.endAt;
  await deleteKeys(redis, keys());
  return { accuracy: measured.accuracy, ...(measured.serverCost ? { serverCost: measured.serverCost } : {}) };
}

/**
 * Where the accuracy phases run when the run has a private server of its
 * own: on a second private server, started with the same binary and
 * settings, one phase after another, while the run goes on with the next
 * cells' fills. The server is what a memory-only run waits for (the fill
 * keeps it about 85% busy, and an accuracy phase writes about as many
 * events again), and a second one runs on another core. Memory is read on
 * the run's own server, which holds no accuracy light while a cell fills or
 * is measured (in a run without throughput phases it takes the phases the
 * lane has not started once every cell is measured: phases/ahead.ts); the
 * accuracy figures compare the layout's reads with the model, not with the
 * clock, so they are the same as in line. The server-µs probe at the end
 * of a phase runs beside whatever the other server does (its fastest
 * pipeline is kept, which a busy machine slows least). Throughput phases wait until the lane is idle
 * ({@link drain}), so nothing runs beside them. A user's server, a cluster
 * or a realtime run gets no lane: accuracy phases run on the run's server,
 * after each cell.
 */
export class AccuracyLane {
  private tail: Promise<unknown> = Promise.resolve();
  private failed: { error: unknown } | undefined;
  private readonly statsBefore: Promise<ScriptCommandStats | null>;
  /** Restarts and evictions are checked after every phase, against this reading. */
  private counters: Promise<ServerCounters | null>;

  /** Set by {@link close}: the server's end is then no failure. */
  private closing = false;

  private constructor(
    private readonly server: PrivateServer,
    private readonly redis: Redis,
    onDeath?: () => void,
  ) {
    this.statsBefore = readScriptCommandStats(redis);
    this.counters = serverCounters(redis);
    // A lane server that dies (killed, out of memory) fails the run at once, not when the next phase or cell reaches it.
    void server.exited?.then(({ code, signal }) => {
      if (this.closing) return;
      const how = signal !== null ? `killed by ${signal}` : `exit code ${code ?? '?'}`;
      this.failed ??= { error: new RedisUnavailableError(`${this.where} stopped (${how}) during the run`) };
      this.redis.disconnect();
      onDeath?.();
    });
  }

  /** The lane's server, as messages name it. */
  private get where(): string {
    return `swc's second private server (127.0.0.1:${this.server.port}, where the accuracy phases run)`;
  }

  /**
   * A lane beside `server`; undefined when the plan has no accuracy phase,
   * the run has no private server to copy, or it is a realtime run (or when
   * the second server does not start: `warn` says so, and the phases run in
   * line).
   */
  static async open(
    server: PrivateServer | undefined,
    plan: BenchPlan,
    warn?: (message: string) => void,
    onDeath?: () => void,
  ): Promise<AccuracyLane | undefined> {
    if (!plan.accuracy || !server || plan.realtime) return undefined;
    let sibling: PrivateServer;
    try {
      sibling = await server.startSibling();
    } catch (err) {
      if (!(err instanceof ServerStartError)) throw err;
      warn?.(`a second private server for the accuracy phases did not start (${err.message}); they run on the run's own server, after each cell`);
      return undefined;
    }
    try {
      return new AccuracyLane(sibling, await connect(sibling.url), onDeath);
    } catch (err) {
      await sibling.stop();
      throw err;
    }
  }

  /** The first phase queued with {@link run} that failed, or the server's death, once either happened: the run stops with it. */
  get failure(): { error: unknown } | undefined {
    return this.failed;
  }

  /** Queues `work` on the lane's server, after every phase queued before it; `what` names it (a cell's accuracy phase). A failure stops every phase after it (see failure). */
  run<T>(work: (redis: Redis) => Promise<T>, what = 'an accuracy phase'): Promise<T> {
    const next = this.tail.then(() => this.runNow(work, what));
    this.tail = next.catch((error: unknown) => {
      this.failed ??= { error };
    });
    return next;
  }

  /**
   * Runs `work` on the lane's server now, with no queue: the caller runs one
   * phase at a time (see AccuracyAhead). Its failure is the caller's to
   * report; only the server's death stops the lane.
   */
  async runNow<T>(work: (redis: Redis) => Promise<T>, what = 'an accuracy phase'): Promise<T> {
    const where = `on ${this.where}`;
    if (this.failed) throw this.failed.error;
    let result: T;
    try {
      result = await work(this.redis);
    } catch (err) {
      // The server died under the phase: its death is the one line to say.
      const died = this.failed as { error: unknown } | undefined;
      if (died) throw died.error;
      // Not the user's server: say which one failed. A bug in swc is left as it is.
      if (err instanceof SwcError) throw err.at(where);
      if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError) throw err;
      throw new RedisUnavailableError(`${err instanceof Error ? err.message : String(err)} ${where}`, { cause: err });
    }
    // A figure taken while the lane's server restarted or evicted would be wrong (a copied maxmemory with an eviction policy, say).
    const before = await this.counters;
    const after = await serverCounters(this.redis);
    this.counters = Promise.resolve(after ?? before);
    const found = before && after ? disturbances(before, after) : [];
    if (found.length > 0) {
      throw new RefusalError(`${what} was disturbed ${where}: ${found.join('; ')}; a figure taken then would be wrong, so none is reported`);
    }
    return result;
  }

  /** Waits until every phase queued so far has ended (a throughput phase must not share the machine); throws the first failure. */
  async drain(): Promise<void> {
    await this.tail;
    if (this.failed) throw this.failed.error;
  }

  /** The lane server's script time since it opened (µs and calls); null when INFO is refused. */
  async scriptStats(): Promise<ScriptCommandStats | null> {
    return scriptCommandDelta(await this.statsBefore, await readScriptCommandStats(this.redis));
  }

  /** Disconnects and stops the lane's server; safe to call twice. */
  async close(): Promise<void> {
    this.closing = true;
    this.redis.disconnect();
    await this.server.stop();
  }
}
