/**
 * The three TTL-windowed packages driven through their own calls on the test
 * server: swc's memory figure against MEMORY USAGE of the keys the package
 * wrote, and swc's accuracy against a count of what was sent and allowed.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { benchClient } from '../../../src/bench/client-bench.js';
import { fastifyRateLimit } from '../../../src/clients/fastify-rate-limit.js';
import { rateLimitRedis } from '../../../src/clients/rate-limit-redis.js';
import { rateLimiterFlexible } from '../../../src/clients/rate-limiter-flexible.js';
import type { ClientAdapter } from '../../../src/clients/types.js';
import { measureClientMemory } from '../../../src/measure/client-memory.js';
import { connect } from '../../../src/redis/connect.js';
import { redisUrl, testRedis } from '../../helpers.js';
import { countingAdapter } from './counting.js';

const redis = await testRedis();
const prefixOf = (): string => `swc-bench:${randomBytes(4).toString('hex')}`;
const ADAPTERS: readonly ClientAdapter[] = [rateLimiterFlexible, rateLimitRedis, fastifyRateLimit];

/** Keys under `prefix`, each with MEMORY USAGE … SAMPLES 0, read here without swc's code. */
async function usageUnder(prefix: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const key of await redis.keys(`${prefix}*`)) out[key] = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  return out;
}

describe.concurrent.each(ADAPTERS.map((a) => [a.name, a] as const))('%s through its own calls', (_name, adapter) => {
  it('memory per client is MEMORY USAGE of the keys the package wrote for it, each with a TTL within the window', async () => {
    const prefix = `${prefixOf()}:`;
    const opened: Redis[] = [];
    const env = { redis, connect: async () => (opened.push(await connect(redisUrl())), opened.at(-1) as Redis), requireFrom: process.cwd() };
    // A 10 s window: the keys outlive the test's reads.
    const { limiter } = await adapter.open(env, { prefix, limit: 2, windowMs: 10_000 });
    const ids = ['m-0000', 'm-0001', 'm-0002'];
    const answers: boolean[] = [];
    try {
      for (const id of ids) for (let i = 0; i < 3; i += 1) answers.push(await limiter.decide(id));
    } finally {
      await limiter.close();
      for (const r of opened) r.disconnect();
    }
    expect(answers).toEqual([true, true, false, true, true, false, true, true, false]);
    const usage = await usageUnder(prefix);
    const memory = await measureClientMemory(redis, prefix, ids, (k, p) => adapter.clientOfKey(k, p));
    expect(Object.keys(usage)).toHaveLength(3);
    expect(memory.keys).toBe(3);
    expect(memory.bytes).toBe(Object.values(usage).reduce((a, b) => a + b, 0));
    expect(memory.bytesPerClient).toBe(memory.bytes / 3);
    expect(memory.withoutTtl).toEqual([]);
    expect(memory.maxTtlMs).toBeGreaterThan(0);
    expect(memory.maxTtlMs).toBeLessThanOrEqual(10_000);
    await redis.del(...Object.keys(usage));
  });

  it('accuracy counts what was sent and what the package allowed', async () => {
    const counted = countingAdapter(adapter);
    const prefix = prefixOf();
    const result = await benchClient(
      counted.adapter,
      { redis, connect: () => connect(redisUrl()), requireFrom: process.cwd(), prefix },
      { windowSeconds: 1, rate: 4, limit: 4, clients: 1, multiple: 4, commands: false },
    );
    for (const [phase, tag] of [
      ['steady', 's'],
      ['overload', 'o'],
      ['burst', 'b'],
    ] as const) {
      const seen = counted.of(tag);
      expect(result.accuracy[phase].sent).toBe(seen.sent);
      expect(result.accuracy[phase].allowed).toBe(seen.allowed);
    }
    // Twice the limit for three windows: some refused. The burst's over-admission depends on real timing (a stall moves it), so only its arithmetic is held.
    expect(result.accuracy.overload.allowed).toBeLessThan(result.accuracy.overload.sent);
    const { burst } = result.accuracy;
    expect(burst.overLimit).toBe(Math.max(0, burst.maxInWindow - 4));
    expect(burst.maxInWindow).toBeLessThanOrEqual(burst.allowed);
    expect(result.clock.kind).toBe('real-time');
    expect(result.memory.atRate.keysPerClient).toBe(1);
    const left = await redis.keys(`${prefix}:*`);
    if (left.length > 0) await redis.del(...left);
  });
});
