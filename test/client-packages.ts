import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// The six rate-limiter packages (devDependencies), each called with its own
// defaults (no prefix option) on a test's server, so the keys it writes are
// the ones an application that set nothing would have. Shared by the key-name
// tests and the lights/inspect tests; no package code is copied here.

const require = createRequire(import.meta.url);

/** The client ids each package is called for. */
export const CLIENT_IDS = ['10.0.0.7', 'user-42'] as const;

/** Window of every limiter here, in ms: long enough for a test to read the keys, short enough to say the TTL is the window's. */
export const WINDOW_MS = 60_000;

/** Keys present on the server (a test's own: every key, with KEYS). */
async function allKeys(redis: Redis): Promise<Set<string>> {
  return new Set(await redis.keys('*'));
}

interface Ioredis extends Redis {
  duplicate(): Redis;
}

/** One package's decisions for every id: the calls an application makes. */
const DRIVERS: Record<string, (redis: Ioredis) => Promise<void>> = {
  'rate-limiter-flexible': async (redis) => {
    const { RateLimiterRedis } = require('rate-limiter-flexible') as {
      RateLimiterRedis: new (o: object) => { consume(id: string): Promise<unknown> };
    };
    // Its own connection: the package defines a command on the client it is given.
    const own = redis.duplicate();
    const limiter = new RateLimiterRedis({ storeClient: own, points: 5, duration: WINDOW_MS / 1000 });
    for (const id of CLIENT_IDS) await limiter.consume(id);
    own.disconnect();
  },
  'rate-limit-redis': async (redis) => {
    const { RedisStore } = require('rate-limit-redis') as {
      RedisStore: new (o: object) => { init(o: { windowMs: number }): Promise<void>; increment(id: string): Promise<unknown> };
    };
    const store = new RedisStore({ sendCommand: (...args: string[]) => redis.call(args[0] as string, ...args.slice(1)) });
    await store.init({ windowMs: WINDOW_MS });
    for (const id of CLIENT_IDS) await store.increment(id);
  },
  '@fastify/rate-limit': async (redis) => {
    const fastify = (require('fastify') as (o?: object) => FastifyApp)();
    const own = redis.duplicate();
    await fastify.register(require('@fastify/rate-limit'), { redis: own, max: 5, timeWindow: WINDOW_MS, global: true });
    fastify.get('/', async () => 'ok');
    fastify.get('/orders-list', { config: { rateLimit: { max: 3, timeWindow: WINDOW_MS } } }, async () => 'ok');
    for (const id of CLIENT_IDS.filter((i) => /^[\d.]+$/.test(i))) {
      for (const url of ['/', '/orders-list']) await fastify.inject({ method: 'GET', url, remoteAddress: id });
    }
    await fastify.close();
    own.disconnect();
  },
  '@upstash/ratelimit': async (redis) => {
    const { Ratelimit } = require('@upstash/ratelimit') as {
      Ratelimit: { new (o: object): { limit(id: string): Promise<unknown> }; slidingWindow(tokens: number, window: string): unknown };
    };
    const limiter = new Ratelimit({ redis: upstashOver(redis), limiter: Ratelimit.slidingWindow(5, `${WINDOW_MS / 1000} s`) });
    for (const id of CLIENT_IDS) await limiter.limit(id);
  },
  ratelimiter: async (redis) => {
    const Limiter = require('ratelimiter') as new (o: object) => { get(cb: (err: unknown) => void): void };
    for (const id of CLIENT_IDS) {
      const limiter = new Limiter({ id, db: redis, max: 5, duration: WINDOW_MS });
      await new Promise<void>((resolve, reject) => limiter.get((err) => (err ? reject(err as Error) : resolve())));
    }
  },
  'rolling-rate-limiter': async (redis) => {
    const { RedisRateLimiter } = require('rolling-rate-limiter') as {
      RedisRateLimiter: new (o: object) => { limit(id: string): Promise<boolean> };
    };
    // No namespace: what JavaScript that leaves the option out gets.
    const limiter = new RedisRateLimiter({ client: redis, interval: WINDOW_MS, maxInInterval: 5 });
    for (const id of CLIENT_IDS) await limiter.limit(id);
  },
};

interface FastifyApp {
  register(plugin: unknown, options: object): Promise<void>;
  get(url: string, optionsOrHandler: unknown, handler?: unknown): void;
  inject(request: { method: string; url: string; remoteAddress: string }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The calls @upstash/ratelimit makes of its REST client (`evalsha`, then
 * `eval` after NOSCRIPT), answered over `redis`. Its scripts open with
 * `#!lua flags=allow-key-locking`, a flag Redis 7.0 refuses; that line is
 * dropped and the script's body runs unchanged, so the keys are named and
 * written by the package's own code.
 */
function upstashOver(redis: Redis): object {
  const body = (script: string): string => script.replace(/^#!lua[^\n]*\n/, '');
  return {
    evalsha: () => Promise.reject(new Error('NOSCRIPT swc test client: scripts go by eval')),
    eval: (script: string, keys: string[], args: unknown[]) => redis.eval(body(script), keys.length, ...keys, ...args.map(String)),
  };
}

/** The packages, in the order tables list them. */
export const PACKAGES = Object.keys(DRIVERS);

/**
 * Calls each package with its defaults, one after another, on `redis` (a
 * server of the test's own) and returns the keys each one made: the keys
 * present after its calls and not before.
 */
export async function keysWrittenByPackages(redis: Redis): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of PACKAGES) {
    const before = await allKeys(redis);
    await (DRIVERS[name] as (r: Ioredis) => Promise<void>)(redis as Ioredis);
    out[name] = [...(await allKeys(redis))].filter((k) => !before.has(k)).sort();
  }
  return out;
}

/** The key rate-limiter-flexible writes with `duration: 0` (its option for a limit that never resets): no TTL. */
export const FOREVER_KEY = 'rlflx:forever';
/** A counter planted under rate-limit-redis's default prefix with no TTL (what a release that forgot the expiry left). */
export const PLANTED_KEY = 'rl:planted';

/** Writes the two keys with no TTL: one through rate-limiter-flexible's own `duration: 0`, one planted. */
export async function writeKeysWithoutTtl(redis: Redis): Promise<void> {
  const { RateLimiterRedis } = require('rate-limiter-flexible') as {
    RateLimiterRedis: new (o: object) => { consume(id: string): Promise<unknown> };
  };
  const own = (redis as Ioredis).duplicate();
  await new RateLimiterRedis({ storeClient: own, points: 5, duration: 0 }).consume('forever');
  own.disconnect();
  await redis.set(PLANTED_KEY, '3');
}

/** The key rate-limiter-flexible writes for client `u1` with `keyPrefix: 'login'`: a prefix an application set. */
export const LOGIN_KEY = 'login:u1';

/** Writes {@link LOGIN_KEY} through rate-limiter-flexible with its own prefix. */
export async function writeWithOwnPrefix(redis: Redis): Promise<void> {
  const { RateLimiterRedis } = require('rate-limiter-flexible') as {
    RateLimiterRedis: new (o: object) => { consume(id: string): Promise<unknown> };
  };
  const own = (redis as Ioredis).duplicate();
  await new RateLimiterRedis({ storeClient: own, points: 5, duration: WINDOW_MS / 1000, keyPrefix: 'login' }).consume('u1');
  own.disconnect();
}
