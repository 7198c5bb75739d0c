/**
 * The guards of `bench --client` and `verify --client` on a user's server (a
 * server this file starts, holding keys of its own): every key a package
 * writes is under the run's namespace (keyspace notifications name each one),
 * the run removes them, and the user's keys are byte-for-byte as before.
 */
import { describe, expect, it } from 'vitest';
import { runClientBench } from '../../../src/bench/client-run.js';
import { createNamespace } from '../../../src/run/namespace.js';
import { fastifyRateLimit } from '../../../src/clients/fastify-rate-limit.js';
import { rateLimitRedis } from '../../../src/clients/rate-limit-redis.js';
import { rateLimiterFlexible } from '../../../src/clients/rate-limiter-flexible.js';
import { ratelimiter } from '../../../src/clients/ratelimiter.js';
import { rollingRateLimiter } from '../../../src/clients/rolling-rate-limiter.js';
import { upstashRatelimit } from '../../../src/clients/upstash-ratelimit.js';
import type { ClientAdapter } from '../../../src/clients/types.js';
import { connect } from '../../../src/redis/connect.js';
import { openTarget, type Target } from '../../../src/run/open.js';
import { digest, fileServers, fillUsersServer, keysMatching } from '../../helpers.js';

const servers = fileServers('client-guard');

/** A bench of `adapters` on a server this file starts, filled with user keys: the report, every key the run touched (keyspace notifications), and the user keys' digest before and after. */
async function benchOnUsersServer(adapters: readonly ClientAdapter[]) {
  const { url, redis } = await servers.start();
  await fillUsersServer(redis);
  const before = await digest(redis, 'app:*');
  await redis.call('CONFIG', 'SET', 'notify-keyspace-events', 'KA');
  const listener = servers.track(await connect(url));
  const touched = new Set<string>();
  listener.on('pmessage', (_pattern: string, channel: string) => touched.add(channel.replace(/^__keyspace@\d+__:/, '')));
  await listener.psubscribe('__keyspace@*__:*');
  const namespace = createNamespace();
  let target: Target | undefined;
  const report = await runClientBench({
    adapters,
    plan: { windowSeconds: 1, rate: 3, limit: 3, clients: 2, multiple: 4, commands: true },
    requireFrom: process.cwd(),
    open: async () => (target = await openTarget({ url })),
    usersUrl: url,
    namespace,
  });
  await target?.close();
  // A round trip after the run, so every notification is in.
  await redis.ping();
  return {
    report,
    touched: [...touched],
    prefix: namespace.prefix,
    left: await keysMatching(redis, 'swc-bench:*'),
    before,
    after: await digest(redis, 'app:*'),
  };
}

describe('bench --client on a server swc did not start', () => {
  it('writes only under the run namespace, removes its keys and leaves the user keys as they were', async () => {
    const run = await benchOnUsersServer([rateLimiterFlexible, rateLimitRedis, fastifyRateLimit]);
    expect(run.report.clients.map((c) => c.packageName)).toEqual(['rate-limiter-flexible', 'rate-limit-redis', '@fastify/rate-limit']);
    // On a server others use, commandstats would count their commands as the package's: not measured.
    expect(run.report.clients.every((c) => 'skipped' in c.commands)).toBe(true);
    // Each package's one key per client, under the namespace (the three name them alike there).
    for (const id of ['m-0000', 'm-0001', 'x-0000', 's-0000', 'o-0000', 'b-0000']) expect(run.touched).toContain(`${run.prefix}:${id}`);
    expect(run.touched.filter((k) => !k.startsWith(`${run.prefix}:`))).toEqual([]);
    expect(run.left).toEqual([]);
    expect(run.after).toEqual(run.before);
  });

  it('holds the same for the three packages on an injected clock (their keys named their own way, all under the namespace)', async () => {
    const run = await benchOnUsersServer([upstashRatelimit, ratelimiter, rollingRateLimiter]);
    expect(run.report.clients.map((c) => c.packageName)).toEqual(['@upstash/ratelimit', 'ratelimiter', 'rolling-rate-limiter']);
    // Each package wrote keys, every one of them under the namespace, and none is left.
    // @upstash/ratelimit adds its own colon after the prefix it is given (the run's ends in one): <ns>::<id>:<window>.
    for (const prefix of [`${run.prefix}::m-0000:`, `${run.prefix}:limit:m-0000`, `${run.prefix}:m-0000`]) {
      expect(run.touched.some((k) => k.startsWith(prefix))).toBe(true);
    }
    expect(run.touched.filter((k) => !k.startsWith(`${run.prefix}:`))).toEqual([]);
    expect(run.left).toEqual([]);
    expect(run.after).toEqual(run.before);
  });
});
