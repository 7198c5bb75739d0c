import type { Redis } from 'ioredis';
import { installScripts, runScript } from '../redis/scripts.js';
import type { CallOptions, FailureOptions, Layout, Light, RecordOptions, Snapshot } from './types.js';

/** A layout bound to one connection, with its scripts installed. */
export class LayoutClient {
  private constructor(
    readonly redis: Redis,
    readonly layout: Layout,
  ) {}

  /** Installs the layout's scripts on `redis` (SCRIPT LOAD, once per connection). */
  static async open(redis: Redis, layout: Layout): Promise<LayoutClient> {
    await installScripts(redis, layout.scripts);
    return new LayoutClient(redis, layout);
  }

  async recordSuccess(light: Light, options: RecordOptions): Promise<void> {
    await runScript(this.redis, this.layout.recordSuccess(light, options));
  }

  /** Records a failure; returns the snapshot when the layout returns one in the same round trip. */
  async recordFailure(light: Light, options: FailureOptions): Promise<Snapshot | null> {
    const reply = await runScript(this.redis, this.layout.recordFailure(light, options));
    return this.layout.capabilities.failureReturnsSnapshot ? this.layout.parseFailure(reply) : null;
  }

  async getMetrics(light: Light, options: CallOptions): Promise<Snapshot> {
    return this.layout.parseMetrics(await runScript(this.redis, this.layout.getMetrics(light, options)));
  }
}
