import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { shardOfLight, spreadLights } from '../../../src/bench/shards.js';
import { clusterTarget } from '../../../src/redis/target.js';
import { namespacedLayout } from '../../../src/layouts/index.js';
import { SwcError } from '../../../src/core/errors.js';
import { openClusterSession, type ClusterSession } from '../../../src/redis/cluster.js';
import { keySlot } from '../../../src/redis/slot.js';

// A cluster of this file's own: the test moves a slot, which no other test should see.
let cluster: ClusterSession;
beforeAll(async () => {
  cluster = await openClusterSession({ shards: 2 });
});
afterAll(() => cluster?.close());

/** Moves `slot` with its keys from shard `from` to shard `to`, as redis-cli --cluster reshard does. */
async function moveSlot(slot: number, from: number, to: number): Promise<void> {
  const src = cluster.shards[from]!.redis;
  const dst = cluster.shards[to]!.redis;
  const srcId = cluster.topology.nodes[from]!.id;
  const dstId = cluster.topology.nodes[to]!.id;
  const dstNode = cluster.topology.nodes[to]!;
  await dst.call('CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', srcId);
  await src.call('CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', dstId);
  for (;;) {
    const keys = (await src.call('CLUSTER', 'GETKEYSINSLOT', String(slot), '100')) as string[];
    if (keys.length === 0) break;
    await src.call('MIGRATE', dstNode.host, String(dstNode.port), '', '0', '5000', 'REPLACE', 'KEYS', ...keys);
  }
  await dst.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', dstId);
  await src.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', dstId);
}

describe('a slot that moves during a cluster run', () => {
  it('fails the run (exit 3) saying the cluster changed and where the slot went, instead of reporting a figure', async () => {
    const target = clusterTarget(cluster);
    const namespace = createNamespace();
    const layout = namespacedLayout('stoplight-v6', namespace.prefix);
    const [first] = spreadLights(target, layout, 'w60-r10', 2);
    expect(shardOfLight(target, layout, first!)).toBe(0);
    const slot = keySlot(layout.recordSuccess(first!, { at: 0, windowSeconds: 60 }).keys[0]!);
    let moving: Promise<void> | undefined;
    const run = runBench({
      shards: target,
      namespace,
      plan: {
        layouts: ['stoplight-v6'],
        windows: [60],
        rates: [10],
        failureRate: 0.5,
        lights: 2,
        seed: 3,
        throughput: { connections: 1, pipeline: 1, seconds: 20, rounds: 1 },
      },
      progress: {
        // Once the write phase runs, light 0's slot moves to the other primary.
        onPhase: (_cell, phase) => {
          if (phase === 'write') moving ??= moveSlot(slot, 0, 1);
        },
      },
    });
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    await moving;
    expect(err).toBeInstanceOf(SwcError);
    expect((err as SwcError).exitCode).toBe(3);
    const dst = cluster.topology.nodes[1]!;
    expect((err as Error).message).toMatch(
      new RegExp(
        `^the cluster changed during the run: slot ${slot} is now served by ${dst.host}:${dst.port} \\((MOVED|ASK)\\); a figure taken while slots move would be wrong`,
      ),
    );
  });
});
