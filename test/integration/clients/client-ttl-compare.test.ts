/**
 * A package run whose keys never expire fails `swc compare`: bench --client
 * records each such key in its result (with the server's maxmemory-policy),
 * and the verdict of a report carrying that result is not ok.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchClient } from '../../../src/bench/client-bench.js';
import { rateLimiterFlexible } from '../../../src/clients/rate-limiter-flexible.js';
import type { ClientAdapter } from '../../../src/clients/types.js';
import { compareReports, DEFAULT_COMPARE_OPTIONS } from '../../../src/compare/diff.js';
import type { BenchReport } from '../../../src/measure/types.js';
import { connect } from '../../../src/redis/connect.js';
import { redisUrl, testRedis } from '../../helpers.js';

const redis = await testRedis();
const PLAN = { windowSeconds: 1, rate: 2, limit: 2, clients: 1, multiple: 2, commands: false } as const;

describe('bench --client on a package that leaves keys without a TTL', () => {
  it('names every such key with the policy, and compare fails on the report; the same package with its TTLs passes', async () => {
    const prefix = `swc-bench:${randomBytes(4).toString('hex')}`;
    const context = { redis, connect: () => connect(redisUrl()), requireFrom: process.cwd(), prefix };
    // rate-limiter-flexible with a duration of 0 keeps its counters forever (its own option, its own calls).
    const forever: ClientAdapter = { ...rateLimiterFlexible, open: (env, settings) => rateLimiterFlexible.open(env, { ...settings, windowMs: 0 }) };
    const [kept, timed] = [await benchClient(forever, context, PLAN), await benchClient(rateLimiterFlexible, context, PLAN)];
    const left = await redis.keys(`${prefix}:*`);
    if (left.length > 0) await redis.del(...left);
    const [, policy] = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];

    expect(kept.ttlFindings?.length).toBe(kept.ttl.withoutTtl);
    expect(kept.ttl.withoutTtl).toBeGreaterThan(0);
    for (const f of kept.ttlFindings ?? []) {
      expect(f).toMatchObject({ ttlMs: null, windowMs: 1000, policy, package: 'rate-limiter-flexible' });
      expect(f.key.startsWith(`${prefix}:`)).toBe(true);
    }
    expect(timed.ttlFindings).toBeUndefined();

    const baseline = JSON.parse(readFileSync(path.join(process.cwd(), 'fixtures/baselines/small.json'), 'utf8')) as BenchReport;
    const failing = compareReports(baseline, { ...baseline, clients: [kept] } as BenchReport, DEFAULT_COMPARE_OPTIONS);
    expect(failing.ok).toBe(false);
    expect(failing.ttlFindings?.map((f) => f.cell)).toEqual((kept.ttlFindings ?? []).map(() => '--client rate-limiter-flexible'));
    expect(compareReports(baseline, { ...baseline, clients: [timed] } as BenchReport, DEFAULT_COMPARE_OPTIONS).ok).toBe(true);
  });
});
