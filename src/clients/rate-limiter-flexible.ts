import type { Redis } from 'ioredis';
import { keyNamesOf } from './key-names.js';
import { loadPackage } from './load.js';
import type { ClientAdapter } from './types.js';

const PACKAGE = 'rate-limiter-flexible';

/** What swc calls of the package: its RateLimiterRedis class and the rejection it consumes with. */
interface Flexible {
  RateLimiterRedis: new (options: Record<string, unknown>) => { consume(key: string, points?: number): Promise<unknown> };
}

/**
 * `rate-limiter-flexible`'s `RateLimiterRedis` over an ioredis `storeClient`.
 *
 * From the package's code (lib/RateLimiterRedis.js, RateLimiterAbstract.js): one string key
 * per client, `<keyPrefix>:<key>`, written by a script of its own (`SET … 0 EX <duration> NX`,
 * `INCRBY`, `PTTL`, and `EXPIRE` when the key had none). `duration` is whole seconds: the
 * window opens at the first decision after the key expired and is timed by the key's TTL on
 * the server, so swc cannot move it (real time). `consume` resolves when the points fit and
 * rejects with a result object (not an Error) when they do not; a duration of 0 keeps keys
 * forever.
 */
export const rateLimiterFlexible: ClientAdapter = {
  packageName: PACKAGE,
  name: PACKAGE,
  algorithm: 'fixed-window',
  clock: { kind: 'real-time', source: 'the TTL of its key on the server (EX, whole seconds)', why: 'the window ends when Redis expires the key' },
  ttlSlackMs: 0,
  ...keyNamesOf(PACKAGE),
  async open(env, settings) {
    const loaded = loadPackage(PACKAGE, env.requireFrom);
    const { RateLimiterRedis } = loaded.module as Flexible;
    const redis: Redis = await env.connect();
    // The package joins its keyPrefix and the key with ':'; the run's prefix already ends with one.
    const keyPrefix = settings.prefix.replace(/:$/, '');
    const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix, points: settings.limit, duration: settings.windowMs / 1000 });
    return {
      version: loaded.version,
      limiter: {
        async decide(id) {
          try {
            await limiter.consume(id, 1);
            return true;
          } catch (rejection) {
            // A Redis error is an Error; a refusal is the package's result object.
            if (rejection instanceof Error) throw rejection;
            return false;
          }
        },
        close: async () => void redis.disconnect(),
      },
    };
  },
};
