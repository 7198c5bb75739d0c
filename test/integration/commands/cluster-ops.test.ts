/**
 * lights, inspect, verify and clean on a running Redis Cluster (a private
 * one of this file's, with lights on every node), in-process through the
 * same program as the CLI. What needs processes of their own stays spawned in
 * test/cli/cluster-ops.test.ts: a killed primary (a failed connection's
 * exit), verify on private clusters swc starts, and the refusals.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptCall } from '../../../src/lua/source.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { openClusterSession, startPrivateCluster, type ClusterSession, type PrivateCluster } from '../../../src/redis/cluster.js';
import { connect } from '../../../src/redis/connect.js';
import { routedRedis, type RoutedRedis } from '../../../src/redis/routed.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { startPrivateServer } from '../../../src/redis/server.js';
import { inspectLight, listLights, openTarget } from '../../../src/index.js';
import { HOUR_START } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const LAST = HOUR_START + 600;
const v5 = new StoplightV5();
const v6 = new StoplightV6();
/** A leftover of an old run, as a bench leaves it: keys under swc-bench:<8 hex>: on every node. */
const LEFTOVER = 'swc-bench:0badc0de';

let cluster: PrivateCluster;
let session: ClusterSession;
let routed: RoutedRedis;
const node = (i: number): string => `${session.topology.nodes[i]!.host}:${session.topology.nodes[i]!.port}`;
/** 6.0 lights by the node that holds them: two per primary. */
const v6ByNode: string[][] = [[], [], []];
const v5Lights = ['v5-checkout', 'v5-search'];
/** Keys that are not swc's, one per node. */
const userKeys: string[] = [];

/** Ten events per light, a failure every third, written by the layout's own scripts. */
function events(layout: StoplightV5 | StoplightV6, name: string): ScriptCall[] {
  return Array.from({ length: 10 }, (_, e) => {
    const options = { at: LAST - 27 + e * 3, windowSeconds: 60 };
    return e % 3 === 0 ? layout.recordFailure({ name }, { ...options, errorJson: ERROR_JSON }) : layout.recordSuccess({ name }, options);
  });
}

/** A tag whose slot is on primary `i`, the n-th such. */
function tagOn(i: number, n: number): string {
  let found = 0;
  for (let t = 0; ; t += 1) {
    if (session.shardOfKey(`{t${t}}`) === i && found++ === n) return `t${t}`;
  }
}

beforeAll(async () => {
  cluster = await startPrivateCluster({ shards: 3 });
  session = await openClusterSession({ seeds: [cluster.urls[0]!] });
  routed = routedRedis(session);
  // 6.0: its keys share the light's hash tag, so its scripts run on the cluster as they are.
  await installScripts(routed, v6.scripts);
  for (let i = 0; v6ByNode.some((names) => names.length < 2); i += 1) {
    const name = `light-${i}`;
    const [first] = v6.keysOf({ name });
    const owner = session.shardOfKey(first!.key);
    if (v6ByNode[owner]!.length >= 2) continue;
    v6ByNode[owner]!.push(name);
    const replies = await execPipeline(routed, events(v6, name));
    expect(replies.filter(([err]) => err)).toEqual([]);
  }
  // 5.x: its scripts fail with CROSSSLOT on a cluster, so its lights are written on one server and copied key by key to the owning node.
  const single = await startPrivateServer();
  const one: Redis = await connect(single.url);
  try {
    await installScripts(one, v5.scripts);
    await execPipeline(
      one,
      v5Lights.flatMap((name) => events(v5, name)),
    );
    for (const key of await one.keys('stoplight:v5:*')) {
      await routed.restore(key, Math.max(0, await one.pttl(key)), await one.dumpBuffer(key));
    }
  } finally {
    one.disconnect();
    await single.stop();
  }
  for (let i = 0; i < 3; i += 1) {
    userKeys.push(`user:{${tagOn(i, 0)}}:profile`);
    await routed.set(userKeys[i]!, 'not swc');
    await routed.set(`${LEFTOVER}:{${tagOn(i, 1)}}:k`, 'x');
    await routed.set(`${LEFTOVER}:{${tagOn(i, 2)}}:k`, 'x');
  }
  // A run marker as markRun writes it: clean removes only namespaces that carry one.
  await routed.hset(`${LEFTOVER}:run`, {
    origin: 'swc',
    runId: LEFTOVER.slice('swc-bench:'.length),
    startedAt: String(Date.now() - 60_000),
    host: 'h',
    pid: '1',
    swcVersion: '0.1.0',
  });
});

afterAll(async () => {
  await session?.close();
  await cluster?.stop();
});

const seed = (): string[] => ['--cluster', '--redis-url', cluster.urls[1]!];

interface Listed {
  layout: string;
  light: string;
  reference: string;
  node: string;
  placement: { node: string; keys: number; bytes: number }[];
  events: number;
}

// The read-only describes first; verify and clean on the cluster write, in order, after them.
describe('swc lights --cluster', () => {
  it('scans every primary and names the node of each light, with totals per node', async () => {
    // --no-progress: a scan that passes a second (a busy machine) prints a progress line on stderr.
    const run = await runInProcess(['lights', ...seed(), '--at', String(LAST + 60), '--json', '--no-progress']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      lights: Listed[];
      cluster: { primaries: { node: string; slots: string }[]; nodeTotals: { node: string; lights: number; keys: number; bytes: number }[] };
    };
    expect(doc.cluster.primaries.map((p) => p.node)).toEqual([0, 1, 2].map(node));
    expect(doc.cluster.primaries.map((p) => p.slots)).toEqual(['0-5460', '5461-10921', '10922-16383']);
    const v6Listed = doc.lights.filter((l) => l.layout === 'stoplight-v6');
    expect(v6Listed).toHaveLength(6);
    for (const [i, names] of v6ByNode.entries()) {
      for (const name of names) {
        const [first] = v6.keysOf({ name });
        const listed = v6Listed.find((l) => first!.key.includes(`{${l.light}}`));
        expect(listed?.node).toBe(node(i));
        expect(listed?.events).toBe(10);
      }
    }
    // 5.x keys hash apart: a light's keys lie on several nodes, and its placement says how many on each.
    const v5Listed = doc.lights.filter((l) => l.layout === 'stoplight-v5');
    expect(v5Listed.map((l) => l.light).sort()).toEqual(v5Lights);
    for (const l of v5Listed) {
      const onEach = await Promise.all(session.shards.map((s) => s.redis.keys(`stoplight:v5:*${l.light}*`)));
      expect(l.placement.map((p) => [p.node, p.keys])).toEqual(
        onEach
          .map((keys, i) => [node(i), keys.length] as const)
          .filter(([, n]) => n > 0)
          .sort((a, b) => a[0].localeCompare(b[0])),
      );
    }
    // Per-node totals: the keys each node holds under the layouts' patterns.
    for (const [i, total] of doc.cluster.nodeTotals.entries()) {
      expect(total.node).toBe(node(i));
      const held = (await session.shards[i]!.redis.keys('stoplight:v*')).length;
      expect(total.keys).toBe(held);
      expect(total.lights).toBeGreaterThanOrEqual(2);
    }
  });

  it('prints a node column and a total line per node; filters still apply', async () => {
    const run = await runInProcess(['lights', ...seed(), '--at', String(LAST + 60), '--layout', 'stoplight-v6', '--top', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/│ node +│/);
    const slots = ['0-5460', '5461-10921', '10922-16383'];
    for (let i = 0; i < 3; i += 1) expect(run.stdout).toContain(`node ${node(i)} (slots ${slots[i]}): 2 lights, 4 keys`);
    expect(run.stdout).toContain('showing 2 of 6 (--top)');
  });
});

describe("the package's read use cases on the cluster, through the one door's Target", () => {
  it('listLights and inspectLight take the Target: every primary scanned, each light and key named by its node', async () => {
    const target = await openTarget({ seeds: [cluster.urls[0]!] });
    try {
      const list = await listLights(target, { only: ['stoplight-v6'], windowSeconds: 60, at: LAST + 60 });
      expect(list.nodes).toEqual([0, 1, 2].map(node));
      expect(list.lights).toHaveLength(6);
      for (const [i, names] of v6ByNode.entries()) {
        for (const name of names) {
          const [first] = v6.keysOf({ name });
          expect(list.lights.find((l) => first!.key.includes(`{${l.light}}`))?.node).toBe(node(i));
        }
      }
      const inspected = await Promise.all(v6ByNode.map(([name]) => inspectLight(target, { light: name!, layout: 'stoplight-v6', at: LAST + 60 })));
      for (const [i, [inspection]] of inspected.entries()) {
        expect(inspection!.keys.map((k) => k.node)).toEqual([node(i), node(i)]);
      }
    } finally {
      await target.close();
    }
  });
});

describe('swc inspect --cluster', () => {
  it('finds a 6.0 light on each of the three nodes and says which node and slot', async () => {
    // One light per node, each read as JSON and as text.
    const runs = await Promise.all(
      v6ByNode.map(([name]) =>
        Promise.all([
          runInProcess(['inspect', name!, ...seed(), '--at', String(LAST + 60), '--json']),
          runInProcess(['inspect', name!, ...seed(), '--at', String(LAST + 60)]),
        ]),
      ),
    );
    for (const [i, names] of v6ByNode.entries()) {
      const name = names[0]!;
      const [first] = v6.keysOf({ name });
      const [run, text] = runs[i]!;
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout) as {
        inspections: { keys: { key: string; slot: number; node: string }[]; totals: { successes: number; failures: number } }[];
        cluster: { primaries: unknown[] };
      };
      const [inspection] = doc.inspections;
      expect(inspection!.keys.map((k) => k.node)).toEqual([node(i), node(i)]);
      expect(inspection!.totals).toEqual({ successes: 6, failures: 4 });
      expect(doc.cluster.primaries).toHaveLength(3);
      expect(text.stdout).toContain(`cluster node: ${node(i)} (slot ${inspection!.keys[0]!.slot})`);
      expect(first!.key).toBe(inspection!.keys[0]!.key);
    }
  });

  it('reads a 5.x light whose keys span slots, each key on its own node', async () => {
    const [run, text] = await Promise.all([
      runInProcess(['inspect', 'v5-checkout', ...seed(), '--layout', 'stoplight-v5', '--at', String(LAST + 60), '--json']),
      runInProcess(['inspect', 'v5-checkout', ...seed(), '--layout', 'stoplight-v5', '--at', String(LAST + 60)]),
    ]);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { inspections: { keys: { key: string; node: string }[]; totals: { successes: number; failures: number } }[] };
    const [inspection] = doc.inspections;
    expect(inspection!.totals).toEqual({ successes: 6, failures: 4 });
    for (const key of inspection!.keys) {
      const holder = session.shardOfKey(key.key);
      expect(key.node).toBe(node(holder));
      expect(await session.shards[holder]!.redis.exists(key.key)).toBe(1);
    }
    expect(new Set(inspection!.keys.map((k) => k.node)).size).toBeGreaterThan(1);
    expect(text.stdout).toMatch(/cluster nodes: the keys span [23] primaries/);
  });
});

describe('swc verify on a cluster swc did not start', () => {
  it('on a cluster swc did not start, writes only under its namespace and removes it on every node', async () => {
    const before = await Promise.all(session.shards.map((s) => s.redis.dbsize()));
    const run = await runInProcess(['verify', ...seed(), '--layout', 'stoplight-v6', '--calls', '500', '--seed', '3', '--json', '--no-progress']);
    expect(run.stderr).toMatch(/writing only under swc-bench:[0-9a-f]{8}:\*/);
    expect(run.code).toBe(0);
    expect(await Promise.all(session.shards.map((s) => s.redis.dbsize()))).toEqual(before);
  });
});

describe('swc clean --cluster', () => {
  it('lists a namespace with its keys per node, and --yes removes only those keys on every node', async () => {
    const listed = await runInProcess(['clean', ...seed(), '--json']);
    expect(listed.code).toBe(0);
    const doc = JSON.parse(listed.stdout) as { namespaces: { prefix: string; keys: number; nodes: Record<string, number> }[] };
    expect(doc.namespaces).toHaveLength(1);
    expect(doc.namespaces[0]!.prefix).toBe(LEFTOVER);
    expect(doc.namespaces[0]!.keys).toBe(7);
    const markerShard = session.shardOfKey(`${LEFTOVER}:run`);
    expect(doc.namespaces[0]!.nodes).toEqual(Object.fromEntries([0, 1, 2].map((i) => [node(i), i === markerShard ? 3 : 2])));
    const otherKeys = await Promise.all(session.shards.map(async (s) => (await s.redis.keys('*')).filter((k) => !k.startsWith(LEFTOVER)).sort()));

    const removed = await runInProcess(['clean', ...seed(), '--yes']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed 7 key(s) under ${LEFTOVER}:*`);
    const after = await Promise.all(session.shards.map(async (s) => (await s.redis.keys('*')).sort()));
    expect(after).toEqual(otherKeys);
    for (const key of userKeys) expect(await routed.get(key)).toBe('not swc');
    expect(after.every((keys) => keys.some((k) => k.startsWith('stoplight:')))).toBe(true);
  });
});
