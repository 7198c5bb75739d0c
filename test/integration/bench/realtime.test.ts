import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, deleteNamespace } from '../../../src/run/namespace.js';
import { driveRealtime } from '../../../src/bench/realtime.js';
import { InterruptedError } from '../../../src/core/errors.js';
import { namespacedLayout } from '../../../src/layouts/index.js';
import type { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import type { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import type { Light } from '../../../src/layouts/types.js';
import { installScripts } from '../../../src/redis/scripts.js';
import { evenTraffic, lightSeed } from '../../../src/traffic/events.js';
import { testRedis } from '../../helpers.js';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

const RATE = 50;
const SECONDS = 2;
const FAILURE_RATE = 0.3;
const SEED = 11;
const lights: Light[] = [{ name: 'rt-0' }, { name: 'rt-1' }];

/** Failures the seeded stream of light `i` holds, as the injected mode would write them. */
function expectedFailures(i: number): number {
  let failures = 0;
  for (const e of evenTraffic({ rate: RATE, durationSeconds: SECONDS, failureRate: FAILURE_RATE, seed: lightSeed(SEED, i), startAt: 0 })) {
    if (e.outcome === 'failure') failures += 1;
  }
  return failures;
}

async function serverSeconds(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) + Number(us) / 1e6;
}

async function run(name: 'stoplight-v5' | 'stoplight-v6') {
  const namespace = createNamespace();
  const layout = namespacedLayout(name, namespace.prefix);
  await installScripts(redis, layout.scripts);
  let written = 0;
  const result = await driveRealtime({
    redis,
    layout,
    lights,
    windowSeconds: 60,
    rate: RATE,
    seconds: SECONDS,
    failureRate: FAILURE_RATE,
    seed: SEED,
    onEvents: (n) => (written += n),
  });
  return { namespace, layout, result, written, now: await serverSeconds() };
}

describe('driveRealtime', () => {
  it('paces 5.x traffic on the server clock: every event lands, scored with real server seconds', async () => {
    const { namespace, layout, result, written, now } = await run('stoplight-v5');
    const v5 = layout as StoplightV5;
    expect(written).toBe(RATE * SECONDS * lights.length);
    expect(result).toMatchObject({ requestedRate: RATE, events: RATE * SECONDS, eventsTotal: RATE * SECONDS * lights.length, lights: 2 });
    // Loose on purpose: a busy 2-core machine still gets within 20% over 2 s.
    expect(result.achievedRate).toBeGreaterThan(RATE * 0.8);
    expect(result.achievedRate).toBeLessThan(RATE * 1.2);
    expect(result.durationSeconds).toBeGreaterThan(SECONDS * 0.8);
    expect(result.lateMaxMs).toBeGreaterThanOrEqual(result.lateP99Ms * 0.99);
    expect(result.write.p50Ms).toBeLessThanOrEqual(result.write.p99Ms);
    expect(result.write.p99Ms).toBeLessThanOrEqual(result.write.p999Ms);
    expect(result.write.ops).toBe(RATE * SECONDS * lights.length);
    for (const [i, light] of lights.entries()) {
      const keys = layout.keysOf(light, Math.floor(Date.parse(result.startedAt) / 1000), Math.ceil(Date.parse(result.endedAt) / 1000));
      let successes = 0;
      let failures = 0;
      for (const { key, role } of keys.filter((k) => k.role !== 'metadata')) {
        const scored = await redis.zrange(key, 0, -1, 'WITHSCORES');
        for (let j = 1; j < scored.length; j += 2) {
          const score = Number(scored[j]);
          expect(score).toBeGreaterThanOrEqual(Math.floor(now) - SECONDS - 5);
          expect(score).toBeLessThanOrEqual(now + 1);
        }
        if (role === 'success events') successes += scored.length / 2;
        else failures += scored.length / 2;
      }
      expect(successes + failures).toBe(RATE * SECONDS);
      expect(failures).toBe(expectedFailures(i));
      expect(await redis.exists(v5.metadataKey(light))).toBe(1);
    }
    expect(await deleteNamespace(redis, namespace)).toBeGreaterThan(0);
  });

  it('paces 6.0 traffic on the server clock: totals equal events sent, buckets are real server seconds', async () => {
    const { namespace, layout, result, now } = await run('stoplight-v6');
    const v6 = layout as StoplightV6;
    expect(result.achievedRate).toBeGreaterThan(RATE * 0.8);
    expect(result.achievedRate).toBeLessThan(RATE * 1.2);
    for (const [i, light] of lights.entries()) {
      const hash = await redis.hgetall(v6.metricsKey(light));
      expect(Number(hash.total_successes) + Number(hash.total_failures)).toBe(RATE * SECONDS);
      expect(Number(hash.total_failures)).toBe(expectedFailures(i));
      const seconds = (await redis.zrange(v6.indexKey(light), 0, -1, 'WITHSCORES')).filter((_, j) => j % 2 === 1).map(Number);
      // 50/s over 2 s touches 2 or 3 distinct server seconds.
      expect(seconds.length).toBeGreaterThanOrEqual(2);
      for (const s of seconds) {
        expect(s).toBeGreaterThanOrEqual(Math.floor(now) - SECONDS - 5);
        expect(s).toBeLessThanOrEqual(now + 1);
      }
    }
    expect(await deleteNamespace(redis, namespace)).toBe(4);
  });

  it('stops on an abort, even between slow events', async () => {
    const namespace = createNamespace();
    const layout = namespacedLayout('stoplight-v6', namespace.prefix);
    await installScripts(redis, layout.scripts);
    const stop = new AbortController();
    // Events are 1,000 s apart: a nap that ran to the next event instead of ending on the abort would pass the test's
    // timeout (300 s, vitest.config.ts), so the rejection itself shows the nap ended on the abort.
    const running = driveRealtime({ redis, layout, lights, windowSeconds: 60, rate: 0.001, seconds: 3000, failureRate: 0, seed: 1, signal: stop.signal });
    await new Promise((r) => setTimeout(r, 1200));
    stop.abort();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);
    await deleteNamespace(redis, namespace);
  });

  it('rejects a rate and duration that make no event', async () => {
    const layout = namespacedLayout('stoplight-v6', createNamespace().prefix);
    await expect(driveRealtime({ redis, layout, lights, windowSeconds: 60, rate: 0.1, seconds: 1, failureRate: 0, seed: 1 })).rejects.toThrow(
      /less than one event/,
    );
  });
});
