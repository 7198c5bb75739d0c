import type { Redis } from 'ioredis';
import { keyNamesOf } from './key-names.js';
import { loadPackage } from './load.js';
import type { ClientAdapter } from './types.js';

const PACKAGE = 'rate-limit-redis';

/** The store's calls swc makes (the interface express-rate-limit calls it through). */
interface Store {
  init(options: { windowMs: number }): Promise<void>;
  increment(key: string): Promise<{ totalHits: number; resetTime: Date }>;
}

/**
 * `rate-limit-redis`, the Redis store of `express-rate-limit`, with `sendCommand` over ioredis.
 *
 * From the package's code (dist/index.cjs): one string key per client, `<prefix><key>`
 * (default prefix `rl:`), written by its increment script (EVALSHA, loaded with SCRIPT LOAD
 * at `init` and again on NOSCRIPT): `PTTL`; a key with none left is `SET … 1 PX <windowMs>`,
 * else `INCR`. The window opens at the first hit after the key expired and is timed by the
 * key's TTL on the server (real time). express-rate-limit refuses a request when the store's
 * `totalHits` is over its `limit`; swc applies that same rule to the store's answer.
 */
export const rateLimitRedis: ClientAdapter = {
  packageName: PACKAGE,
  name: PACKAGE,
  algorithm: 'fixed-window',
  clock: { kind: 'real-time', source: 'the TTL of its key on the server (PX, milliseconds)', why: 'the window ends when Redis expires the key' },
  ttlSlackMs: 0,
  ...keyNamesOf(PACKAGE),
  async open(env, settings) {
    const loaded = loadPackage(PACKAGE, env.requireFrom);
    const module = loaded.module as { RedisStore?: new (options: Record<string, unknown>) => Store; default?: new (options: Record<string, unknown>) => Store };
    const RedisStore = module.RedisStore ?? module.default;
    if (!RedisStore) throw new Error(`${PACKAGE} ${loaded.version}: exports no RedisStore`);
    const redis: Redis = await env.connect();
    const store = new RedisStore({
      prefix: settings.prefix,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args),
    });
    await store.init({ windowMs: settings.windowMs });
    return {
      version: loaded.version,
      limiter: {
        decide: async (id) => (await store.increment(id)).totalHits <= settings.limit,
        close: async () => void redis.disconnect(),
      },
    };
  },
};
