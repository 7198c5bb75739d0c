/**
 * A package whose time comes from Date.now is driven on the injected clock:
 * three windows of a minute pass within one test (the allowed count shows
 * windows went by), and the process's clock is back afterwards, also when the
 * package throws.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { benchClient, type ClientPlan } from '../../../src/bench/client-bench.js';
import type { ClientAdapter } from '../../../src/clients/types.js';
import { connect } from '../../../src/redis/connect.js';
import { redisUrl, testRedis } from '../../helpers.js';

const redis = await testRedis();

/** A counter per client and calendar window of Date.now (the test's own package, on the real server). */
function dateWindowed(failAfter = Number.POSITIVE_INFINITY): ClientAdapter {
  return {
    packageName: 'swc-test-date-window',
    name: 'date-window',
    algorithm: 'fixed-window',
    clock: { kind: 'injected', source: 'Date.now' },
    ttlSlackMs: 0,
    defaultPrefix: '',
    clientOfKey: () => null,
    open: (env, settings) => {
      let calls = 0;
      return Promise.resolve({
        version: '0.0.0',
        limiter: {
          async decide(id) {
            calls += 1;
            if (calls > failAfter) throw new Error('the package failed');
            const key = `${settings.prefix}${id}:${Math.floor(Date.now() / settings.windowMs)}`;
            const [[, count]] = (await env.redis
              .multi()
              .incr(key)
              .pexpire(key, settings.windowMs * 2)
              .exec()) as [[null, number], unknown];
            return count <= settings.limit;
          },
          close: () => Promise.resolve(),
        },
      });
    },
  };
}

const PLAN: ClientPlan = { windowSeconds: 60, rate: 0.05, limit: 3, clients: 1, multiple: 4, commands: false };

describe('a package on the injected clock', () => {
  it('sees minutes pass in a test, and the clock is restored', async () => {
    const now = Date.now;
    const prefix = `swc-bench:${randomBytes(4).toString('hex')}`;
    const result = await benchClient(dateWindowed(), { redis, connect: () => connect(redisUrl()), requireFrom: process.cwd(), prefix }, PLAN);
    expect(Date.now).toBe(now);
    expect(result.clock).toEqual({ kind: 'injected', source: 'Date.now' });
    // Twice the limit for three windows of a minute: at least three windows' worth allowed, so the package's minutes went by.
    expect(result.accuracy.overload.sent).toBe(18);
    expect(result.accuracy.overload.allowed).toBeGreaterThanOrEqual(9);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  it('restores the clock when the package throws', async () => {
    const now = Date.now;
    const prefix = `swc-bench:${randomBytes(4).toString('hex')}`;
    await expect(benchClient(dateWindowed(5), { redis, connect: () => connect(redisUrl()), requireFrom: process.cwd(), prefix }, PLAN)).rejects.toThrow(
      'the package failed',
    );
    expect(Date.now).toBe(now);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });
});
