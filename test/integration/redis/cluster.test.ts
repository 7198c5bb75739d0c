import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerStateError, UsageError } from '../../../src/core/errors.js';
import { openClusterSession, startPrivateCluster, type ClusterSession } from '../../../src/redis/cluster.js';
import { keySlot } from '../../../src/redis/slot.js';
import { alive, redisUrl } from '../../helpers.js';

describe('private Redis Cluster', () => {
  let session: ClusterSession;
  beforeAll(async () => {
    session = await openClusterSession({ shards: 3 });
  });
  afterAll(() => session?.close());

  it('serves all 16384 slots from three primaries, split evenly', () => {
    const { nodes } = session.topology;
    expect(nodes).toHaveLength(3);
    const served = nodes.flatMap((n) => n.ranges).reduce((sum, [from, to]) => sum + (to - from + 1), 0);
    expect(served).toBe(16384);
    expect(nodes.map((n) => n.ranges)).toEqual([[[0, 5460]], [[5461, 10921]], [[10922, 16383]]]);
    for (const n of nodes) expect(n.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
  });

  it('routes each key to the primary that owns its slot: a direct write there is accepted, elsewhere MOVED', async () => {
    for (const key of ['swc-test:{a}:x', 'swc-test:{b}:x', 'swc-test:{c}:x', 'swc-test:{d}:x']) {
      const shard = session.shardOfKey(key);
      expect(session.topology.nodeOfSlot(keySlot(key))).toBe(shard);
      await session.shards[shard]!.redis.set(key, '1');
      const other = session.shards[(shard + 1) % 3]!.redis;
      await expect(other.set(key, '1')).rejects.toThrow(/MOVED/);
    }
    const counts = await Promise.all(session.shards.map((s) => s.redis.dbsize()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4);
  });

  it('gives a Cluster client that follows the slot map by itself', async () => {
    const client = await session.client();
    await client.set('swc-test:{e}:y', 'v');
    expect(await session.shards[session.shardOfKey('swc-test:{e}:y')]!.redis.get('swc-test:{e}:y')).toBe('v');
  });

  it('opens the same slot map from any one node as a seed', async () => {
    const seeded = await openClusterSession({ seeds: [session.topology.nodes[2]!.url] });
    try {
      expect(seeded.topology.nodes.map((n) => n.port)).toEqual(session.topology.nodes.map((n) => n.port));
      expect(seeded.cluster).toBeUndefined();
    } finally {
      await seeded.close();
    }
    // The seeded session did not stop the cluster it did not start.
    expect(await session.shards[0]!.redis.ping()).toBe('PONG');
  });
});

describe('cluster sessions: bad input and stopping', () => {
  it('refuses a shard count out of 1..16 before starting anything', async () => {
    for (const shards of [0, 17, 1.5]) {
      const err = await startPrivateCluster({ shards }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(/^--cluster-shards: must be a whole number from 1 to 16/);
    }
  });

  it('refuses cluster settings and unsafe settings for the private nodes', async () => {
    await expect(startPrivateCluster({ shards: 1, settings: ['cluster-node-timeout=100'] })).rejects.toThrow(/cluster-node-timeout is set by swc/);
    await expect(startPrivateCluster({ shards: 1, settings: ['dir=/tmp'] })).rejects.toThrow(/dir is not allowed/);
  });

  it('refuses a seed that is not in cluster mode, naming the flag', async () => {
    const err = await openClusterSession({ seeds: [redisUrl()] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^--redis-url: redis:\/\/127\.0\.0\.1:\d+\/? is not a cluster node/);
  });

  it('stops every node and removes its folder on close; a one-node cluster works', async () => {
    const one = await startPrivateCluster({ shards: 1 });
    const pids = one.servers.map((s) => s.pid);
    expect(pids.every(alive)).toBe(true);
    await one.stop();
    await one.stop();
    expect(pids.some(alive)).toBe(false);
  });

  it('says the cluster is not ready when a node serves no slots yet', async () => {
    // A lone cluster-mode node with no slots: cluster_state:fail.
    const { startPrivateServer } = await import('../../../src/redis/server.js');
    const node = await startPrivateServer({ settings: ['cluster-enabled=yes', 'cluster-config-file=nodes.conf'], allowAnySetting: true });
    try {
      const err = await openClusterSession({ seeds: [node.url] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerStateError);
      expect((err as Error).message).toMatch(/the cluster is not ready: .*cluster_state:fail/);
    } finally {
      await node.stop();
    }
  });
});
