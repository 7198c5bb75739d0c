import type { Redis } from 'ioredis';
import { keyNamesOf } from './key-names.js';
import { loadPackage } from './load.js';
import type { ClientAdapter } from './types.js';

const PACKAGE = '@fastify/rate-limit';

/** The parts of a fastify instance swc uses. */
interface FastifyApp {
  register(plugin: unknown, options: Record<string, unknown>): unknown;
  ready(): Promise<unknown>;
  close(): Promise<unknown>;
  get(path: string, handler: () => Promise<unknown>): unknown;
  inject(request: { method: string; url: string; headers: Record<string, string> }): Promise<{ statusCode: number }>;
}

/** The header that carries the client id to the plugin's key generator. */
const CLIENT_HEADER = 'x-swc-client';

/**
 * `@fastify/rate-limit` with its Redis store, inside a real fastify app: the plugin is
 * registered globally with `redis` (ioredis), `nameSpace` and a key generator reading a
 * header, and each decision is one request through `fastify.inject()` (no socket): allowed
 * unless the plugin answers 429. The figures include the app's own cost per request.
 *
 * From the package's code (store/RedisStore.js, index.js): one string key per client,
 * `<nameSpace><key>` (default `fastify-rate-limit-`), written by its script (`INCR`, and
 * `PEXPIRE <timeWindow>` when the count is 1), so the window opens at the first request after
 * the key expired and is timed by the key's TTL on the server (real time). A request is
 * refused when the count is over `max`.
 */
export const fastifyRateLimit: ClientAdapter = {
  packageName: PACKAGE,
  name: 'fastify-rate-limit',
  algorithm: 'fixed-window',
  clock: { kind: 'real-time', source: 'the TTL of its key on the server (PEXPIRE, milliseconds)', why: 'the window ends when Redis expires the key' },
  ttlSlackMs: 0,
  ...keyNamesOf(PACKAGE),
  async open(env, settings) {
    const loaded = loadPackage(PACKAGE, env.requireFrom);
    const fastify = loadPackage('fastify', env.requireFrom).module as (options?: Record<string, unknown>) => FastifyApp;
    const redis: Redis = await env.connect();
    const app = fastify({ logger: false });
    await app.register(loaded.module, {
      global: true,
      max: settings.limit,
      timeWindow: settings.windowMs,
      redis,
      nameSpace: settings.prefix,
      skipOnError: false,
      keyGenerator: (request: { headers: Record<string, string | undefined> }) => request.headers[CLIENT_HEADER] ?? '',
    });
    app.get('/', () => Promise.resolve('ok'));
    await app.ready();
    return {
      version: loaded.version,
      limiter: {
        async decide(id) {
          const reply = await app.inject({ method: 'GET', url: '/', headers: { [CLIENT_HEADER]: id } });
          if (reply.statusCode === 429) return false;
          if (reply.statusCode === 200) return true;
          throw new Error(`${PACKAGE}: the app answered ${reply.statusCode}`);
        },
        async close() {
          await app.close();
          redis.disconnect();
        },
      },
    };
  },
};
