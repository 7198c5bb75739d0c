import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSafePlan } from '../../../src/bench/cluster-safety.js';
import { createNamespace } from '../../../src/run/namespace.js';
import type { BenchPlan } from '../../../src/bench/plan.js';
import { runBench } from '../../../src/bench/run.js';
import { shardOfLight, spreadLights } from '../../../src/bench/shards.js';
import { clusterTarget, type Target } from '../../../src/redis/target.js';
import { createLayout, resolveLayoutName } from '../../../src/layouts/index.js';
import type { BenchReport } from '../../../src/measure/types.js';
import { openClusterSession, type ClusterSession } from '../../../src/redis/cluster.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { keySlot } from '../../../src/redis/slot.js';
import { redisUrl } from '../../helpers.js';

let cluster: ClusterSession;
let target: Target;
let single: Session;
beforeAll(async () => {
  cluster = await openClusterSession({ shards: 3 });
  target = clusterTarget(cluster);
  single = await openSession({ redisUrl: redisUrl() });
});
afterAll(async () => {
  await single?.close();
  await cluster?.close();
});

const plan = (overrides: Partial<BenchPlan> = {}): BenchPlan => ({
  layouts: ['stoplight-v5-tagged', 'stoplight-v6'],
  windows: [60],
  rates: [10],
  failureRate: 0.5,
  lights: 30,
  seed: 7,
  ...overrides,
});

/** Keys under a namespace on every primary. */
async function leftOn(prefix: string): Promise<number[]> {
  return Promise.all(
    cluster.shards.map(async (s) => {
      let cursor = '0';
      let n = 0;
      do {
        const [next, keys] = await s.redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        n += keys.length;
      } while (cursor !== '0');
      return n;
    }),
  );
}

describe('light names on a cluster', () => {
  it("spreads lights evenly, light i on primary i mod 3, with the single server's name shape", () => {
    resolveLayoutName('stoplight-v5-tagged');
    for (const name of ['stoplight-v6', 'stoplight-v5-tagged', 'ring', 'packed']) {
      const layout = createLayout(name);
      const lights = spreadLights(target, layout, 'w60-r10', 31);
      expect(new Set(lights.map((l) => l.name)).size).toBe(31);
      for (const [i, light] of lights.entries()) {
        expect(light.name).toMatch(/^w60-r10-l\d+$/);
        expect(shardOfLight(target, layout, light)).toBe(i % 3);
        // Every key of a write shares the slot the light was placed by.
        const keys = layout.recordFailure(light, { at: 1_700_000_000, windowSeconds: 60, errorJson: '{}' }).keys;
        expect(new Set(keys.map(keySlot)).size).toBe(1);
      }
    }
  });
});

describe('runBench on a 3-shard private cluster', () => {
  let onCluster: BenchReport;
  let onSingle: BenchReport;
  let prefix: string;
  beforeAll(async () => {
    const namespace = createNamespace();
    prefix = namespace.prefix;
    onCluster = await runBench({ shards: target, plan: plan(), namespace });
    onSingle = await runBench({ session: single, plan: plan(), namespace: createNamespace() });
  });

  it('puts keys on every primary (per-shard lights, keys and bytes) and says so in the result', () => {
    expect(onCluster.cluster?.shards).toBe(3);
    expect(onCluster.cluster?.nodes).toEqual(cluster.topology.nodes.map((n) => `${n.host}:${n.port}`));
    expect(onCluster.cluster?.lightSpread).toMatch(/i mod n/);
    for (const r of onCluster.results) {
      expect(r.shards).toHaveLength(3);
      for (const s of r.shards ?? []) {
        expect(s.lights).toBe(10);
        expect(s.keys).toBeGreaterThan(0);
        expect(s.bytes).toBeGreaterThan(0);
      }
      const bytes = (r.shards ?? []).reduce((sum, s) => sum + s.bytes, 0);
      expect(bytes / 30).toBeCloseTo(r.memory.bytesPerLight, 6);
    }
    expect(onSingle.cluster).toBeUndefined();
    expect(onSingle.results.every((r) => r.shards === undefined)).toBe(true);
  });

  it('measures the same bytes per light as a single server, within 1%', () => {
    expect(onCluster.results.map((r) => r.layout)).toEqual(onSingle.results.map((r) => r.layout));
    for (const [i, r] of onCluster.results.entries()) {
      const one = onSingle.results[i]!;
      expect(one.memory.lights).toBe(30);
      expect(Math.abs(r.memory.bytesPerLight / one.memory.bytesPerLight - 1)).toBeLessThan(0.01);
      expect(r.events).toBe(one.events);
    }
  });

  it('labels the variant Stoplight never shipped, and leaves no key of the run on any primary', async () => {
    expect(onCluster.layoutLabels).toEqual({ 'stoplight-v5-tagged': '5.x + hash tag, not shipped' });
    expect(await leftOn(prefix)).toEqual([0, 0, 0]);
  });
});

describe('cluster safety', () => {
  it('turns stoplight-v5 into a finding with the CROSSSLOT error of one real call, and runs stoplight-v5-tagged in its place', async () => {
    const namespace = createNamespace();
    const safe = await clusterSafePlan(target, plan({ layouts: ['stoplight-v5', 'stoplight-v6'] }), namespace.prefix);
    expect(safe.plan.layouts).toEqual(['stoplight-v5-tagged', 'stoplight-v6']);
    expect(safe.added).toEqual(['stoplight-v5-tagged']);
    expect(safe.findings).toHaveLength(1);
    const [finding] = safe.findings;
    expect(finding).toMatchObject({ layout: 'stoplight-v5', operation: 'record_success', variant: 'stoplight-v5-tagged', cells: 1 });
    expect(finding!.operations).toEqual(['record_success', 'record_failure', 'get_metrics']);
    expect(finding!.slots.length).toBe(2);
    expect(finding!.error).toMatch(/^CROSSSLOT /);
    expect(target.shards.map((s) => s.node)).toContain(finding!.node);
    // The refused call wrote nothing.
    expect(await leftOn(namespace.prefix)).toEqual([0, 0, 0]);
  });

  it('keeps a plan that already has the variant as it is, less the layout that crosses slots', async () => {
    const safe = await clusterSafePlan(target, plan({ layouts: ['stoplight-v5-tagged', 'stoplight-v5'] }), createNamespace().prefix);
    expect(safe.plan.layouts).toEqual(['stoplight-v5-tagged']);
    expect(safe.added).toEqual([]);
  });
});

describe('throughput on a cluster', () => {
  it('keeps every primary busy: calls reach all three nodes, with server µs/call from their commandstats summed', async () => {
    const calls = async (): Promise<number[]> =>
      Promise.all(
        cluster.shards.map(async (s) => {
          const text = String(await s.redis.info('commandstats'));
          return Number(/cmdstat_evalsha:calls=(\d+)/.exec(text)?.[1] ?? 0);
        }),
      );
    const before = await calls();
    const report = await runBench({
      shards: target,
      plan: plan({ layouts: ['stoplight-v6'], lights: 6, throughput: { connections: 2, pipeline: 4, seconds: 1, ops: 3000, rounds: 1 } }),
      namespace: createNamespace(),
    });
    const after = await calls();
    const t = report.results[0]!.throughput!;
    expect(t.write.ops).toBe(3000);
    expect(t.read.ops).toBe(3000);
    expect(t.request.ops).toBe(3000);
    expect(t.write.opsPerSec).toBeGreaterThan(0);
    expect(t.request.serverUsecPerCall).not.toBeNull();
    // Each node took a share of the 3000 + 3000 + 2 × 3000 calls (the fill's too).
    for (const [i, b] of before.entries()) expect(after[i]! - b).toBeGreaterThan(1000);
  });
});
