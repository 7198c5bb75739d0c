import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerStateError } from '../../../src/core/errors.js';
import { withSlotRetry } from '../../../src/redis/cluster-read.js';
import { listLights } from '../../../src/inspect/list.js';
import { isSlotMoved } from '../../../src/redis/routed.js';
import { scanKeys } from '../../../src/layouts/inspection-keys.js';
import { openClusterSession, type ClusterSession } from '../../../src/redis/cluster.js';
import { routedRedis, type RoutedRedis } from '../../../src/redis/routed.js';
import { keySlot } from '../../../src/redis/slot.js';
import { clusterTarget, type Target } from '../../../src/redis/target.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';

let session: ClusterSession;
let routed: RoutedRedis;
/** 30 keys of different slots: about ten on each primary. */
const KEYS = Array.from({ length: 30 }, (_, i) => `swc-test:routed:{k${i}}`);

beforeAll(async () => {
  session = await openClusterSession({ shards: 3 });
  routed = routedRedis(session);
  for (const [i, key] of KEYS.entries()) await routed.set(key, String(i));
});
afterAll(() => session?.close());

describe('routed Redis over a 3-shard cluster', () => {
  it('puts each key on the primary that owns its slot', async () => {
    const held = await Promise.all(session.shards.map((s) => s.redis.keys('swc-test:routed:*')));
    expect(held.every((keys) => keys.length > 0)).toBe(true);
    held.forEach((keys, i) => keys.forEach((k) => expect(session.shardOfKey(k)).toBe(i)));
    expect(held.flat().sort()).toEqual([...KEYS].sort());
  });

  it('splits a pipeline per node and gives the replies back in the order queued', async () => {
    const p = routed.pipeline();
    for (const key of [...KEYS].reverse()) p.get(key).echo('x');
    const replies = (await p.exec()) ?? [];
    expect(replies.map(([err, v]) => (err ? err.message : v))).toEqual([...KEYS].reverse().flatMap((_, j) => [String(KEYS.length - 1 - j), 'x']));
  });

  it('scans every primary behind one cursor, each key once', async () => {
    expect(await scanKeys(routed, 'swc-test:routed:*')).toEqual([...KEYS].sort());
  });

  it('deletes keys of many slots with one call, each DEL on its own node', async () => {
    const extra = ['swc-test:routed:{d1}', 'swc-test:routed:{d2}', 'swc-test:routed:{d3}'];
    for (const key of extra) await routed.set(key, '1');
    expect(new Set(extra.map(keySlot)).size).toBe(3);
    expect(await routed.del(...extra, 'swc-test:routed:{missing}')).toBe(3);
    expect(await routed.exists(...extra)).toBe(0);
  });

  it("as a script channel: loads scripts on every primary and runs each call on its key's owner, replies in order", async () => {
    const v6 = new StoplightV6();
    await installScripts(routed, v6.scripts);
    for (const shard of session.shards) {
      expect(await shard.redis.call('SCRIPT', 'EXISTS', ...v6.scripts.map((s) => s.sha1))).toEqual(v6.scripts.map(() => 1));
    }
    const names = Array.from({ length: 12 }, (_, i) => `swc-test-routed-${i}`);
    const calls = names.flatMap((name) => [
      v6.recordSuccess({ name }, { at: 1_764_450_000, windowSeconds: 60 }),
      v6.getMetrics({ name }, { at: 1_764_450_001, windowSeconds: 60 }),
    ]);
    const replies = await execPipeline(routed, calls);
    expect(replies.filter(([err]) => err)).toEqual([]);
    const owners = new Set(names.map((name) => session.shardOfKey(v6.keysOf({ name })[0]!.key)));
    expect(owners.size).toBe(3);
    for (const name of names) {
      const [key] = v6.keysOf({ name });
      expect(await session.shards[session.shardOfKey(key!.key)]!.redis.exists(key!.key)).toBe(1);
    }
  });

  it('a slot that moved after the map was read is a clear error naming both nodes', async () => {
    const key = 'swc-test:routed:{moving}';
    const from = session.shardOfKey(key);
    const to = (from + 1) % 3;
    const slot = keySlot(key);
    const target = session.topology.nodes[to]!;
    // The slot is empty: hand it to another primary on every node.
    for (const s of session.shards) await s.redis.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', target.id);
    const err = await routed.get(key).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerStateError);
    expect((err as Error).message).toBe(
      `a slot moved while swc was running: slot ${slot} is now served by ${target.host}:${target.port}, not ${session.topology.nodes[from]!.host}:${session.topology.nodes[from]!.port} (resharding or a failover); run the command again once the cluster is stable`,
    );
    const p = routed.pipeline();
    p.get(key);
    const [[pipelined]] = ((await p.exec()) ?? []) as [[Error | null, unknown]];
    expect(pipelined).toBeInstanceOf(ServerStateError);
  });

  it('a slot moved with its keys during a read: the stale map fails clearly, and a read-only command reads once more on a fresh map', async () => {
    const v6 = new StoplightV6();
    const name = 'swc-test-moving-light';
    await installScripts(routed, v6.scripts);
    const replies = await execPipeline(routed, [v6.recordSuccess({ name }, { at: 1_764_450_000, windowSeconds: 60 })]);
    expect(replies.filter(([err]) => err)).toEqual([]);
    const keys = v6.keysOf({ name }).map((k) => k.key);
    const seedUrl = session.topology.nodes[0]!.url;
    const stale = await openClusterSession({ seeds: [seedUrl] });
    const from = stale.shardOfKey(keys[0]!);
    const to = (from + 1) % 3;
    const [source, target] = [session.topology.nodes[from]!, session.topology.nodes[to]!];
    const slot = String(keySlot(keys[0]!));
    // Move the slot with its keys, as redis-cli --cluster reshard does.
    await session.shards[to]!.redis.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id);
    await session.shards[from]!.redis.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id);
    await session.shards[from]!.redis.call('MIGRATE', target.host, String(target.port), '', '0', '5000', 'KEYS', ...keys);
    for (const s of session.shards) await s.redis.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id);

    const staleTarget = (c: typeof stale): Target => clusterTarget(c, seedUrl);
    // Read on the old map alone: one clear error, not a list without the moved light.
    const err = await listLights(routedRedis(stale), ['stoplight-v6']).catch((e: unknown) => e);
    expect(isSlotMoved(err), String(err)).toBe(true);

    const opened: (typeof stale)[] = [];
    const retried: string[] = [];
    const { target: used, result } = await withSlotRetry(
      async () => {
        if (opened.length === 0) {
          opened.push(stale);
          return staleTarget(stale);
        }
        const fresh = await openClusterSession({ seeds: [seedUrl] });
        opened.push(fresh);
        return staleTarget(fresh);
      },
      (t) => listLights(t.redis, { only: ['stoplight-v6'], nodeOf: t.nodeOf! }),
      (e) => retried.push(e.message),
    );
    try {
      expect(retried).toHaveLength(1);
      expect(retried[0]).toMatch(new RegExp(`slot ${slot} is now served by ${target.host}:${target.port}`));
      expect(used.cluster).toBe(opened[1]);
      const moved = result.lights.find((l) => keys[0]!.includes(`{${l.light}}`));
      expect(moved?.node).toBe(`${target.host}:${target.port}`);
    } finally {
      for (const c of opened) await c.close();
    }
  });
});
