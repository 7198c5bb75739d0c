import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import type { Light } from '../../../src/layouts/types.js';
import { measureThroughput, type ThroughputPhase } from '../../../src/measure/throughput.js';
import type { LatencyStats } from '../../../src/measure/types.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { execPipeline, installScripts, runScript } from '../../../src/redis/scripts.js';
import { HOUR_START, redisUrl, uniqueName } from '../../helpers.js';

const v5 = new StoplightV5();
const v6 = new StoplightV6();
let session: Session;
let redis: Redis;
let second: Redis;

beforeAll(async () => {
  session = await openSession({ redisUrl: redisUrl() });
  redis = session.redis;
  second = await session.connectAnother();
  await installScripts(redis, [...v5.scripts, ...v6.scripts]);
});
afterAll(() => session.close());

/** One success per event at `rate` per second for `seconds`, ending at `start + seconds`. */
async function fillV6(light: Light, start: number, seconds: number, rate: number, windowSeconds: number): Promise<void> {
  const calls = Array.from({ length: seconds * rate }, (_, j) => v6.recordSuccess(light, { windowSeconds, at: start + (j + 1) / rate }));
  for (const [err] of await execPipeline(redis, calls)) if (err) throw err;
}

/** The 6.0 hash's running totals next to the sums of its bucket fields. */
async function audit(light: Light) {
  const hash = await redis.hgetall(v6.metricsKey(light));
  const sums = { s: 0, f: 0 };
  const buckets = new Set<string>();
  for (const [field, value] of Object.entries(hash)) {
    const match = /^(bucket:\d+):([sf])$/.exec(field);
    if (!match?.[1]) continue;
    buckets.add(match[1]);
    sums[match[2] as 's' | 'f'] += Number(value);
  }
  return {
    totals: { s: Number(hash.total_successes ?? 0), f: Number(hash.total_failures ?? 0) },
    sums,
    buckets: [...buckets].sort(),
    index: (await redis.zrange(v6.indexKey(light), 0, -1)).sort(),
  };
}

function expectOrdered(stats: LatencyStats): void {
  expect(stats.p50Ms).toBeGreaterThan(0);
  expect(stats.p50Ms).toBeLessThanOrEqual(stats.p99Ms);
  expect(stats.p99Ms).toBeLessThanOrEqual(stats.p999Ms);
}

describe('measureThroughput', () => {
  it('keeps a filled 6.0 light consistent while the window slides', async () => {
    const light = { name: uniqueName('steady') };
    const windowSeconds = 60;
    // A power of two: event times are exact binary fractions, so floor() is unambiguous.
    const rate = 8;
    const startAt = HOUR_START + windowSeconds;
    await fillV6(light, HOUR_START, windowSeconds, rate, windowSeconds);
    const phases: ThroughputPhase[] = [];

    const result = await measureThroughput({
      redis: [redis, second],
      layout: v6,
      lights: [light],
      windowSeconds,
      rate,
      startAt,
      failureRate: 0.25,
      seed: 3,
      connections: 2,
      pipeline: 4,
      ops: 300,
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
    });

    expect(phases).toEqual(['write', 'read', 'request']);
    expect([result.write.ops, result.read.ops, result.request.ops]).toEqual([300, 300, 300]);
    expect(result).toMatchObject({ connections: 2, pipeline: 4 });
    for (const stats of [result.write, result.read, result.request]) {
      expectOrdered(stats);
      expect(stats.serverUsecPerCall).toBeGreaterThan(0);
    }

    const { totals, sums, buckets, index } = await audit(light);
    expect(totals).toEqual(sums);
    expect(index).toEqual(buckets);
    expect(totals.f).toBeGreaterThan(0);

    // 600 writes at 8/s: the clock moved 75 s, and the window holds the
    // events of the last 60 whole seconds, all from the measured phases.
    const writes = result.write.ops + result.request.ops;
    const endAt = startAt + writes / rate;
    expect(endAt).toBe(HOUR_START + 135);
    const inWindow = Array.from({ length: writes }, (_, j) => Math.floor(startAt + (j + 1) / rate)).filter((second) => second > endAt - windowSeconds).length;
    expect(totals.s + totals.f).toBe(inWindow);
    const snapshot = v6.parseMetrics(await runScript(redis, v6.getMetrics(light, { windowSeconds, at: endAt })));
    expect(snapshot.successes + snapshot.failures).toBe(inWindow);
    const stamps = await redis.hmget(v6.metricsKey(light), 'last_success_at', 'last_error_at');
    expect(Math.max(...stamps.map(Number))).toBe(endAt);
  });

  it('lands every write on 5.x lights in turn, with connections from a session', async () => {
    const lights = [{ name: uniqueName('rr-a') }, { name: uniqueName('rr-b') }, { name: uniqueName('rr-c') }];
    // Close to an hour boundary, so events spread over two hour keys.
    const startAt = HOUR_START + 3570;
    const result = await measureThroughput({
      redis: session,
      layout: v5,
      lights,
      windowSeconds: 120,
      rate: 2,
      startAt,
      failureRate: 0.5,
      connections: 3,
      pipeline: 5,
      ops: 200,
    });
    expect(result.connections).toBe(3);
    const endAt = startAt + Math.ceil(400 / lights.length) / 2;
    const perLight: number[] = [];
    for (const light of lights) {
      let events = 0;
      for (const { key, role } of v5.keysOf(light, startAt, endAt)) if (role !== 'metadata') events += await redis.zcard(key);
      perLight.push(events);
    }
    expect(perLight).toEqual([134, 133, 133]);
  });

  it('rejects a run without a stop condition', async () => {
    const base = { redis: [redis], layout: v6, lights: [{ name: 'x' }], windowSeconds: 60, rate: 1, startAt: HOUR_START };
    await expect(measureThroughput(base)).rejects.toThrow(UsageError);
    await expect(measureThroughput({ ...base, ops: 1, seconds: 1 })).rejects.toThrow(UsageError);
    await expect(measureThroughput({ ...base, ops: 1, failureRate: 2 })).rejects.toThrow(UsageError);
  });
});
