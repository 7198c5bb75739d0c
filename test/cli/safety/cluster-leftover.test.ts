/**
 * #41: a cluster primary SIGKILLed during the fill: the run stops (exit 3)
 * and removes its keys from every surviving primary (it used to leave a few
 * there, written by the fill's other primaries after the clean-up had looked).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateCluster, type PrivateCluster } from '../../../src/redis/cluster.js';
import { RUN_LINE, startCli } from '../run-cli.js';

const clusters: PrivateCluster[] = [];
afterAll(async () => {
  for (const c of clusters) await c.stop();
});

describe.concurrent('a cluster primary killed during the fill', () => {
  it.each(['stoplight-v5', 'stoplight-v6', 'stoplight-v5,stoplight-v6'])('%s: exit 3; no key of the run is left on a surviving primary', async (layout) => {
    const cluster = await startPrivateCluster({ shards: 3 });
    clusters.push(cluster);
    const [, victim] = cluster.servers;
    const nodes = await Promise.all(cluster.urls.map((url) => connect(url)));
    try {
      const run = startCli([
        'bench',
        '--cluster',
        '--redis-url',
        cluster.urls[0] as string,
        '--layout',
        layout,
        '--window',
        '300',
        '--rate',
        '100',
        '--lights',
        '12',
        '--no-throughput',
        '--no-progress',
      ]);
      const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
      // Mid-fill: cell keys on the primaries (besides the run's markers).
      const cellKeys = async (): Promise<number> => {
        let n = 0;
        for (const redis of nodes) n += (await redis.keys(`${namespace}:*`)).filter((k) => !/:(run|alive)$/.test(k)).length;
        return n;
      };
      while ((await cellKeys()) === 0) {
        if (run.child.exitCode !== null) throw new Error(`swc ended before writing a key:\n${run.stderr()}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      process.kill(victim!.pid, 'SIGKILL');
      const { code } = await run.exited;
      expect(code, run.stderr()).toBe(3);
      for (const [i, redis] of nodes.entries()) {
        if (i === 1) continue;
        expect(await redis.keys(`${namespace}:*`), run.stderr()).toEqual([]);
      }
    } finally {
      for (const n of nodes) n.disconnect();
    }
  });
});
