import type { Redis } from 'ioredis';
import { installScripts, runScript, type RunnerOptions } from '../redis/scripts.js';
import type { CallOptions, FailureOptions, Layout, Light, RecordOptions, Snapshot } from './types.js';

/**
 * A layout bound to one connection, with its scripts installed. Calls go
 * through the script runner: reloaded after a SCRIPT FLUSH, retried while
 * another client's script keeps the server BUSY (within `busyWaitMs`), and
 * failing with typed errors (ServerStateError, ScriptError, RedisUnavailableError).
 */
export class LayoutClient {
  private constructor(
    readonly redis: Redis,
    readonly layout: Layout,
    private readonly options: RunnerOptions,
  ) {}

  /** Loads the layout's scripts on `redis`'s server (one MULTI/EXEC of SCRIPT LOAD). */
  static async open(redis: Redis, layout: Layout, options: RunnerOptions = {}): Promise<LayoutClient> {
    await installScripts(redis, layout.scripts, options);
    return new LayoutClient(redis, layout, options);
  }

  async recordSuccess(light: Light, options: RecordOptions): Promise<void> {
    await runScript(this.redis, this.layout.recordSuccess(light, options), this.options);
  }

  /** Records a failure; returns the snapshot when the layout returns one in the same round trip. */
  async recordFailure(light: Light, options: FailureOptions): Promise<Snapshot | null> {
    const reply = await runScript(this.redis, this.layout.recordFailure(light, options), this.options);
    return this.layout.capabilities.failureReturnsSnapshot ? this.layout.parseFailure(reply) : null;
  }

  async getMetrics(light: Light, options: CallOptions): Promise<Snapshot> {
    return this.layout.parseMetrics(await runScript(this.redis, this.layout.getMetrics(light, options), this.options));
  }
}
