import { describe, expect, it, type TestContext } from 'vitest';
import { connect } from '../../src/redis/connect.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/cluster.js';
import type { BenchReport } from '../../src/measure/types.js';
import { alive, redisUrl } from '../helpers.js';
import { runCli, RUN_LINE, startCli, words } from './run-cli.js';

// Each test starts its own private cluster (or none): they run at once.
describe.concurrent('swc bench --cluster-shards (a private cluster)', () => {
  it('runs to the end with stoplight-v5 as a cluster-safety finding (CROSSSLOT), stoplight-v5-tagged in its place, keys on every primary; exit 0', async () => {
    const result = await runCli([
      ...words('bench --cluster-shards 3 --layout stoplight-v5,stoplight-v6 --lights 6 --window 60 --rate 10 --no-throughput --json'),
    ]);
    expect(result.stderr).toMatch(
      /cluster-safety finding: stoplight-v5 cannot run on Redis Cluster: .*CROSSSLOT.*running stoplight-v5-tagged \(5\.x \+ hash tag, not shipped\) in its place/,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BenchReport;
    expect(report.results.map((r) => r.layout)).toEqual(['stoplight-v5-tagged', 'stoplight-v6']);
    expect(report.cluster?.shards).toBe(3);
    expect(report.cluster?.private).toBe(true);
    expect(report.cluster?.findings).toHaveLength(1);
    expect(report.cluster?.findings[0]).toMatchObject({ layout: 'stoplight-v5', operation: 'record_success', variant: 'stoplight-v5-tagged' });
    expect(report.cluster?.findings[0]?.error).toMatch(/^CROSSSLOT Keys in request don't hash to the same slot/);
    for (const r of report.results) {
      expect(r.memory.lights).toBe(6);
      expect(r.shards?.map((s) => s.lights)).toEqual([2, 2, 2]);
      for (const s of r.shards ?? []) expect(s.keys).toBeGreaterThan(0);
    }
    expect(report.layoutLabels).toEqual({ 'stoplight-v5-tagged': '5.x + hash tag, not shipped' });
  });

  it('prints the per-primary table, the finding and the label in the text output', async () => {
    const result = await runCli([
      ...words('bench --cluster-shards 2 --layout stoplight-v5,stoplight-v6 --lights 4 --window 60 --rate 5 --no-throughput --no-progress'),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Per primary \(Redis Cluster\): lights \/ keys \/ KB/);
    expect(result.stdout).toMatch(/│ 1 min\s+│\s+5 │ stoplight-v6\s+│\s+2 \/ 4 \/ [\d.]+ │\s+2 \/ 4 \/ [\d.]+ │/);
    expect(result.stdout).toMatch(/Cluster-safety findings \(CROSSSLOT\): layouts not measured; the run went on/);
    // The finding's text is inline when the table fits the width (120 columns off a TTY), else in a legend under it.
    expect(result.stdout).toMatch(/│ stoplight-v5 │ across slots\s+│ (\[1\]|record_success)/);
    expect(result.stdout).toMatch(/record_success, record_failure, get_metrics \(one call's keys in slots \d+, \d+\)/);
    expect(result.stdout).toMatch(/Redis said\s+│ (\[2\]|record_success)/);
    expect(result.stdout).toMatch(/record_success on 127\.0\.0\.1:\d+: CROSSSLOT/);
    expect(result.stdout).toMatch(/stoplight-v5-tagged = 5\.x \+ hash tag, not shipped/);
    expect(result.stdout).toMatch(/Redis Cluster, 2 primaries \(127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+\), private/);
  });

  it('a layout that crosses slots with no cluster-safe variant: its cells are a finding and the rest run (exit 0); alone, nothing can run (exit 3)', async () => {
    const common = ['--cluster-shards', '2', '--lights', '2', '--window', '60', '--rate', '2', '--no-throughput', '--no-progress'];
    // Each on a private cluster of its own: at once.
    const [mixed, alone] = await Promise.all([
      runCli(['bench', ...common, '--layout', 'fixtures/manifests/stoplight-v5.json,stoplight-v6', '--json']),
      runCli(['bench', ...common, '--layout', 'fixtures/manifests/stoplight-v5.json']),
    ]);
    expect(mixed.code).toBe(0);
    const report = JSON.parse(mixed.stdout) as BenchReport;
    expect(report.results.map((r) => r.layout)).toEqual(['stoplight-v6']);
    expect(report.cluster?.findings[0]).toMatchObject({ layout: 'stoplight-v5-manifest', cells: 1 });
    expect(report.cluster?.findings[0]?.variant).toBeUndefined();
    expect(mixed.stderr).toMatch(/stoplight-v5-manifest cannot run on Redis Cluster: .*its 1 cell\(s\) are not measured/);

    expect(alone.code).toBe(3);
    expect(alone.stdout).toBe('');
    expect(alone.stderr).toMatch(
      /^swc: no layout of this run can run on Redis Cluster: stoplight-v5-manifest's record_success takes keys in 2 hash slots \(CROSSSLOT /m,
    );
  });

  it.each([
    [['--cluster-shards', '0'], /--cluster-shards: must be a whole number from 1 to 16, got "0"/],
    [['--cluster-shards', '17'], /--cluster-shards: must be a whole number from 1 to 16, got "17"/],
    [['--cluster-shards', '2', '--redis-url', 'redis://127.0.0.1:1'], /--cluster-shards: starts a private cluster; drop it or drop --redis-url/],
    [['--cluster-shards', '2', '--realtime'], /--realtime: not supported with --cluster\/--cluster-shards/],
    [['--cluster', '--realtime'], /--realtime: not supported with --cluster\/--cluster-shards/],
  ])('%j: exit 2, one line naming the flag, nothing started', async (args, message) => {
    const result = await runCli(['bench', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--cluster on a server that is not a cluster node: exit 2, saying to drop --cluster', async () => {
    const result = await runCli(['bench', '--cluster', '--redis-url', redisUrl(), '--no-throughput']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a cluster node \(cluster_enabled:0\); drop --cluster/);
  });
});

/** A 3-shard cluster of the test's own (one test kills a node of it), stopped when the test finishes. */
async function ownCluster({ onTestFinished }: Pick<TestContext, 'onTestFinished'>): Promise<PrivateCluster> {
  const cluster = await startPrivateCluster({ shards: 3 });
  onTestFinished(() => cluster.stop());
  return cluster;
}

// A cluster of its own for each test: these run at once too, beside the describe above.
describe.concurrent('swc bench --cluster on a cluster whose node dies mid-run', () => {
  it('two runs on one cluster take turns: the second waits while the first writes (its alive key may sit on any primary), then runs', async (context) => {
    const cluster = await ownCluster(context);
    const first = startCli([
      'bench',
      '--cluster',
      '--redis-url',
      cluster.urls[2]!,
      ...words('--layout stoplight-v6 --window 60 --rate 10 --lights 3 --time 60 --rounds 1 --no-app-view'),
    ]);
    let second: ReturnType<typeof startCli> | undefined;
    try {
      await first.waitFor(/write throughput phase/);
      second = startCli([
        'bench',
        '--cluster',
        '--redis-url',
        cluster.urls[0]!,
        ...words('--layout stoplight-v6 --window 60 --rate 10 --lights 3 --no-throughput --wait-for-runs 120'),
      ]);
      const [, ahead] = (await first.waitFor(RUN_LINE)) as unknown as [string, string];
      await second.waitFor(new RegExp(`another swc run is writing to this cluster \\(${ahead}\\); waiting for it to end`));
      first.child.kill('SIGTERM');
      expect((await first.exited).code).toBe(143);
      expect((await second.exited).code).toBe(0);
      expect(second.stdout()).toMatch(/Per primary \(Redis Cluster\)/);
    } finally {
      // A failed wait must not leave a run holding the cluster for the next test.
      for (const run of [first, second]) if (run && run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  });

  it('exits 3 naming the dead node host:port, no stack trace, no figure; the other primaries are cleaned and the hint names the dead one', async (context) => {
    const cluster = await ownCluster(context);
    const [, victim] = cluster.servers;
    const run = startCli([
      'bench',
      '--cluster',
      '--redis-url',
      cluster.urls[0]!,
      ...words('--layout stoplight-v6 --window 60 --rate 10 --lights 6 --time 30 --rounds 1 --no-app-view --json'),
    ]);
    const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
    await run.waitFor(/write throughput phase/);
    process.kill(victim!.pid, 'SIGKILL');
    const { code } = await run.exited;
    expect(alive(victim!.pid)).toBe(false);
    expect(code).toBe(3);
    const node = `127.0.0.1:${victim!.port}`;
    expect(run.stderr()).toMatch(new RegExp(`^swc: load stopped after \\d+ operations on node ${node.replace(/\./g, '\\.')}: `, 'm'));
    expect(run.stderr()).not.toMatch(/\n\s+at /);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toContain(`swc clean --redis-url redis://${node}/0 --namespace ${namespace} --yes`);
    // The surviving primaries hold none of the run's keys.
    for (const [i, url] of cluster.urls.entries()) {
      if (i === 1) continue;
      const redis = await connect(url);
      try {
        const [, keys] = await redis.scan('0', 'MATCH', `${namespace}:*`, 'COUNT', 10_000);
        expect(keys).toEqual([]);
      } finally {
        redis.disconnect();
      }
    }
  });
});
