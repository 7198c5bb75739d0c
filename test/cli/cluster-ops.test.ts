/**
 * swc on Redis Cluster as processes: a killed primary (the exit of a failed
 * connection to it), verify on private clusters swc starts (--cluster-shards),
 * and the refusals of each command. lights, inspect, verify and clean on a
 * running cluster with lights run in-process in
 * test/integration/commands/cluster-ops.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { RedisUnavailableError } from '../../src/core/errors.js';
import { listLights } from '../../src/inspect/list.js';
import { openClusterSession, startPrivateCluster } from '../../src/redis/cluster.js';
import { routedRedis } from '../../src/redis/routed.js';
import { redisUrl } from '../helpers.js';
import { runCli } from './run-cli.js';

// The refusals, the dead node (a cluster of its own) and verify on private clusters run at once.
describe.concurrent('cluster: bad usage and a dead node', () => {
  it('refuses --cluster-shards for commands that read a running cluster, and a seed that is not a cluster node (exit 2)', async () => {
    // Independent refusals: spawned at once.
    const [inspect, lights, clean, single, both] = await Promise.all([
      ...[['inspect', 'x'], ['lights'], ['clean']].map((cmd) => runCli([...cmd, '--cluster-shards', '3'])),
      runCli(['lights', '--cluster', '--redis-url', redisUrl()]),
      // Refused before anything connects: any URL will do.
      runCli(['verify', '--cluster-shards', '3', '--redis-url', redisUrl()]),
    ]);
    for (const run of [inspect!, lights!, clean!]) {
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/--cluster-shards: .* reads a running cluster/);
    }
    expect(single!.code).toBe(2);
    expect(single!.stderr).toMatch(/is not a cluster node/);
    expect(both!.code).toBe(2);
    expect(both!.stderr).toMatch(/--cluster-shards: starts a private cluster; drop it or drop --redis-url/);
  });

  it('a killed primary: lights exits 3 with one line naming it; a read already under way names it too', async () => {
    const doomed = await startPrivateCluster({ shards: 3 });
    const open = await openClusterSession({ seeds: [doomed.urls[0]!], timeoutMs: 1000 });
    try {
      const victim = open.topology.nodes[2]!;
      const server = doomed.servers.find((s) => s.port === victim.port)!;
      process.kill(server.pid, 'SIGKILL');
      const run = await runCli(['lights', '--cluster', '--redis-url', doomed.urls[0]!]);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`127.0.0.1:${victim.port}`);
      // The session opened before the kill: its scan reaches the dead node and says which one.
      const err = await listLights(routedRedis(open)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedisUnavailableError);
      expect((err as Error).message).toMatch(new RegExp(`^cluster node 127\\.0\\.0\\.1:${victim.port} \\(slots 10922-16383\\) did not answer`));
      // Once the others mark it failing (cluster-node-timeout 5 s), the cluster is not ok: the line names the failing primary.
      const seedNode = open.shards[0]!.redis;
      for (let waited = 0; !/cluster_state:fail/.test(String(await seedNode.call('CLUSTER', 'INFO'))) && waited < 30_000; waited += 250) {
        await new Promise((r) => setTimeout(r, 250));
      }
      const later = await runCli(['lights', '--cluster', '--redis-url', doomed.urls[0]!]);
      expect(later.code).toBe(3);
      expect(later.stderr.trim().split('\n')).toHaveLength(1);
      expect(later.stderr).toContain(`cluster_state:fail: primary 127.0.0.1:${victim.port} (slots 10922-16383) marked as failing`);
    } finally {
      await open.close();
      await doomed.stop();
    }
  });
});

// Each on a private cluster of its own (--cluster-shards): at once, beside the read-only describes above.
describe.concurrent('swc verify on a private cluster', () => {
  it('stoplight-v6 has no finding on a private 3-shard cluster', async () => {
    const run = await runCli(['verify', '--cluster-shards', '3', '--layout', 'stoplight-v6', '--calls', '2000', '--seed', '11', '--json', '--no-progress']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      findings: number;
      results: { crossSlot: unknown[]; compared: number; slots: { oneSlotPerLight: boolean } }[];
      cluster: { primaries: unknown[] };
    };
    expect(doc.findings).toBe(0);
    expect(doc.results[0]!.crossSlot).toEqual([]);
    expect(doc.results[0]!.compared).toBeGreaterThan(1000);
    expect(doc.results[0]!.slots.oneSlotPerLight).toBe(true);
    expect(doc.cluster.primaries).toHaveLength(3);
  });

  it('stoplight-v5 reports CROSSSLOT as a finding per operation, not a crash', async () => {
    // Text and --json: two runs, each on a private cluster of its own, at once.
    const [run, json] = await Promise.all([
      runCli(['verify', '--cluster-shards', '3', '--layout', 'stoplight-v5', '--calls', '1000', '--seed', '11', '--no-progress']),
      runCli(['verify', '--cluster-shards', '3', '--layout', 'stoplight-v5', '--calls', '300', '--seed', '11', '--no-progress', '--json']),
    ]);
    expect(run.code).toBe(1);
    for (const op of ['success', 'failure', 'read']) {
      expect(run.stdout).toMatch(
        new RegExp(`not cluster-safe: operation ${op}, Redis said CROSSSLOT Keys in request don't hash to the same slot \\(\\d+ calls? refused`),
      );
    }
    expect(run.stdout).toMatch(/cluster: Redis Cluster refused .* with CROSSSLOT/);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as {
      findings: number;
      results: { crossSlot: { op: string; calls: number; error: string; slots: number[]; keys: number }[]; slots: { lightsSpanningSlots: number } }[];
    };
    const [result] = doc.results;
    expect(result!.crossSlot.map((x) => x.op).sort()).toEqual(['failure', 'read', 'success']);
    expect(doc.findings).toBe(3);
    expect(result!.crossSlot.reduce((sum, x) => sum + x.calls, 0)).toBe(300);
    for (const x of result!.crossSlot) {
      expect(x.error).toBe("CROSSSLOT Keys in request don't hash to the same slot");
      expect(x.slots.length).toBeGreaterThan(1);
    }
    expect(result!.slots.lightsSpanningSlots).toBeGreaterThan(0);
  });
});
