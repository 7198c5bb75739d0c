import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import type { BenchPlan } from '../../../src/bench/plan.js';
import { runBench } from '../../../src/bench/run.js';
import { PRESET_STEADY_LIGHTS } from '../../../src/bench/steady-lights.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { redisUrl, testRedis } from '../../helpers.js';

let session: Session;
let redis: Redis;
beforeAll(async () => {
  session = await openSession({ redisUrl: redisUrl() });
  redis = await testRedis();
});
afterAll(() => session.close());

const plan = (overrides: Partial<BenchPlan> = {}): BenchPlan => ({
  layouts: ['stoplight-v5', 'stoplight-v6'],
  windows: [60],
  rates: [1, 10],
  failureRate: 0.5,
  lights: 2,
  seed: 7,
  ...overrides,
});

async function namespaceKeys(pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

describe('runBench memory', () => {
  it('measures every cell per light, with encodings, and leaves none of its keys behind', async () => {
    const namespace = createNamespace();
    const report = await runBench({ session, plan: plan(), namespace });
    expect(report.schemaVersion).toBe(3);
    expect(report.redis.version).toMatch(/^\d+\.\d+/);
    expect(report.results.map((r) => [r.layout, r.windowSeconds, r.rate])).toEqual([
      ['stoplight-v5', 60, 1],
      ['stoplight-v6', 60, 1],
      ['stoplight-v5', 60, 10],
      ['stoplight-v6', 60, 10],
    ]);
    for (const r of report.results) {
      expect(r.events).toBe(60 * r.rate);
      expect(r.eventsInWindow).toBe(60 * r.rate);
      expect(r.memory.lights).toBe(2);
      expect(Number.isFinite(r.memory.bytesPerLight)).toBe(true);
      expect(r.memory.keys.reduce((s, k) => s + k.bytes, 0)).toBeGreaterThan(0);
      for (const key of r.memory.keys) expect(key.key.startsWith(`${namespace.prefix}:`)).toBe(true);
    }
    const v5 = report.results.filter((r) => r.layout === 'stoplight-v5');
    const v6 = report.results.filter((r) => r.layout === 'stoplight-v6');
    // 5.x stores every event: the v5 zsets hold all 600 events at 10 req/s.
    const v5at10 = v5[1]?.memory.keys.filter((k) => k.type === 'zset').reduce((s, k) => s + k.elements, 0);
    expect(v5at10).toBe(600);
    // 6.0 indexes one bucket per second that saw traffic, whatever the rate.
    expect(v6[1]?.memory.keys.find((k) => k.type === 'zset')?.elements).toBe(60);
    expect(v5[1]!.memory.bytesPerLight).toBeGreaterThan(5 * v5[0]!.memory.bytesPerLight);
    expect(await namespaceKeys(namespace.pattern)).toEqual([]);
  });

  it('repeats the same bytes for the same seed where no skiplist is involved', async () => {
    // 1 req/s for 60 s: zsets stay listpacks, so every byte is determined by the traffic.
    const once = await runBench({ session, plan: plan({ rates: [1] }), namespace: createNamespace() });
    const twice = await runBench({ session, plan: plan({ rates: [1] }), namespace: createNamespace() });
    for (const r of once.results) expect(r.memory.keys.every((k) => k.encoding !== 'skiplist')).toBe(true);
    expect(twice.results.map((r) => r.memory.bytesPerLight)).toEqual(once.results.map((r) => r.memory.bytesPerLight));
  });

  it('stays within 1% for skiplist cells, whose node levels Redis draws at random', async () => {
    const cells = plan({ rates: [20], lights: 1, windows: [300] });
    const a = await runBench({ session, plan: cells, namespace: createNamespace() });
    const b = await runBench({ session, plan: cells, namespace: createNamespace() });
    expect(a.results.some((r) => r.memory.keys.some((k) => k.encoding === 'skiplist'))).toBe(true);
    a.results.forEach((r, i) => {
      const other = b.results[i]!.memory.bytesPerLight;
      expect(Math.abs(other / r.memory.bytesPerLight - 1)).toBeLessThan(0.01);
    });
  });

  it('a preset cell with skiplists (steadyLights): one light, each skiplist averaged over copies, two runs within 0.5%', async () => {
    const cells = plan({ rates: [10], lights: 1, windows: [180], steadyLights: PRESET_STEADY_LIGHTS });
    const a = await runBench({ session, plan: cells, namespace: createNamespace() });
    const b = await runBench({ session, plan: cells, namespace: createNamespace() });
    a.results.forEach((r, i) => {
      expect(r.memory.lights).toBe(1);
      const skiplists = r.memory.keys.filter((k) => k.encoding === 'skiplist');
      expect(skiplists.length).toBeGreaterThan(0);
      for (const k of skiplists) expect(k.copies).toBeGreaterThan(1);
      // One reading of a 3-minute 6.0 light spreads by about 0.3%: two readings would differ by over 0.5% one time in five.
      expect(Math.abs(b.results[i]!.memory.bytesPerLight / r.memory.bytesPerLight - 1)).toBeLessThan(0.005);
    });
  });

  it('uses the duration when it differs from the window: 5.x keeps events that left the window', async () => {
    const report = await runBench({
      session,
      plan: plan({ rates: [10], lights: 1, durationSeconds: 180 }),
      namespace: createNamespace(),
    });
    const v5 = report.results.find((r) => r.layout === 'stoplight-v5')!;
    const v6 = report.results.find((r) => r.layout === 'stoplight-v6')!;
    expect(v5.events).toBe(1800);
    expect(v5.memory.keys.filter((k) => k.type === 'zset').reduce((s, k) => s + k.elements, 0)).toBe(1800);
    // 6.0 evicted all but the last window's buckets.
    expect(v6.memory.keys.find((k) => k.type === 'zset')?.elements).toBe(60);
  });
});
