/**
 * verify --client's use case on the test server: the three TTL-windowed
 * packages agree with the fixed-window model; a package allowing one more than
 * it was set up with is named, with a reproduction shrunk to one client's
 * limit + 1 decisions.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fastifyRateLimit } from '../../../src/clients/fastify-rate-limit.js';
import { rateLimitRedis } from '../../../src/clients/rate-limit-redis.js';
import { rateLimiterFlexible } from '../../../src/clients/rate-limiter-flexible.js';
import { upstashRatelimit } from '../../../src/clients/upstash-ratelimit.js';
import { ratelimiter } from '../../../src/clients/ratelimiter.js';
import { rollingRateLimiter } from '../../../src/clients/rolling-rate-limiter.js';
import type { ClientAdapter } from '../../../src/clients/types.js';
import { connect } from '../../../src/redis/connect.js';
import { verifyClient, type ClientVerifyPlan } from '../../../src/verify/clients.js';
import { redisUrl, testRedis } from '../../helpers.js';
import { countingAdapter } from './counting.js';

const redis = await testRedis();
const PLAN: ClientVerifyPlan = { calls: 30, clients: 4, seed: 11, windowMs: 1000, limit: 3, shrinkMs: 20_000, shrinkReplays: 40 };
const context = () => ({ connect: () => connect(redisUrl()), requireFrom: process.cwd(), prefix: `swc-bench:${randomBytes(4).toString('hex')}` });

async function removeUnder(prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

describe.concurrent('verify --client', () => {
  it.each([rateLimiterFlexible, rateLimitRedis, fastifyRateLimit].map((a) => [a.name, a] as const))(
    '%s agrees with the fixed-window model',
    async (_name, adapter) => {
      const ctx = context();
      const result = await verifyClient(adapter, ctx, PLAN);
      await removeUnder(ctx.prefix);
      expect(result.finding).toBeNull();
      expect(result.calls).toBe(PLAN.calls);
      expect(result.clock.kind).toBe('real-time');
      // Every key it wrote had a TTL, within its window.
      expect(result.ttl.keys).toBeGreaterThan(0);
      expect(result.ttl).toMatchObject({ withoutTtl: [], overBound: [], boundMs: PLAN.windowMs });
    },
  );

  it('names the keys a package leaves without a TTL (rate-limiter-flexible with a duration of 0), with the server policy', async () => {
    const ctx = context();
    const forever: ClientAdapter = { ...rateLimiterFlexible, open: (env, settings) => rateLimiterFlexible.open(env, { ...settings, windowMs: 0 }) };
    const result = await verifyClient(forever, ctx, { ...PLAN, calls: 12, shrinkReplays: 3 });
    await removeUnder(ctx.prefix);
    expect(result.ttl.withoutTtl.length).toBeGreaterThan(0);
    expect(result.ttl.withoutTtl.every((k) => k.startsWith(`${ctx.prefix}:main:`))).toBe(true);
    const [, policy] = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    expect(result.ttl.maxmemoryPolicy).toBe(policy);
  });

  it('names a package that allows one more than its limit, with a reproduction shrunk to limit + 1 decisions', async () => {
    const ctx = context();
    const result = await verifyClient(countingAdapter(rateLimitRedis, 1).adapter, ctx, PLAN);
    await removeUnder(ctx.prefix);
    expect(result.finding).not.toBeNull();
    const repro = result.finding?.reproduction ?? [];
    expect(result.finding?.shrunk).toBe(true);
    expect(repro).toHaveLength(PLAN.limit + 1);
    expect(repro.at(-1)).toMatchObject({ expected: false, got: true });
    expect(repro.slice(0, -1).every((d) => d.expected && d.got)).toBe(true);
  });
});

// Not beside the others: an injected clock replaces the process's Date.now while it runs.
describe('verify --client on the injected clock', () => {
  it('on the injected clock: @upstash/ratelimit agrees with the two-window model over minutes of traffic', async () => {
    const ctx = context();
    const result = await verifyClient(upstashRatelimit, ctx, { ...PLAN, calls: 400, windowMs: 60_000 });
    await removeUnder(ctx.prefix);
    expect(result.clock.kind).toBe('injected');
    expect(result.finding).toBeNull();
    expect(result.calls).toBe(400);
  });

  it.each([ratelimiter, rollingRateLimiter].map((a) => [a.name, a] as const))(
    '%s agrees with the sliding-log model with the deviation it declares (denied calls count), and not with the exact log',
    async (_name, adapter) => {
      const ctx = context();
      const result = await verifyClient(adapter, ctx, { ...PLAN, calls: 400, windowMs: 60_000 });
      await removeUnder(ctx.prefix);
      expect(result.clock.kind).toBe('injected');
      expect(result.deviation?.why).toMatch(/denied|blocked/i);
      expect(result.finding).toBeNull();
      expect(result.calls).toBe(400);
    },
  );
});
