import { describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { keysMatching, redisUrl, uniqueName } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';
import { plantBug } from '../verify/plant.js';

// The spawned CLI runs verify on its private server and refuses a FIFO among
// the scripts (test/cli/verify.test.ts); these cases check output and exit
// codes through the same program in-process (with a private server where no
// --redis-url is given, as the CLI starts one).
describe('swc verify', () => {
  it('prints a random seed when none is given, and the same seed gives the same traffic', async () => {
    const first = await runInProcess(['verify', '--layout', 'stoplight-v5', '--calls', '500', '--json', '--no-progress']);
    expect(first.code).toBe(0);
    const seed = /seed (\d+)/.exec(first.stderr)?.[1];
    expect(seed).toBeDefined();
    const again = await runInProcess(['verify', '--layout', 'stoplight-v5', '--calls', '500', '--json', '--seed', String(seed), '--no-progress']);
    const pick = (out: string) => {
      const r = (JSON.parse(out) as { results: { windows: number[]; compared: number }[] }).results[0];
      return [r?.windows, r?.compared];
    };
    expect(pick(again.stdout)).toEqual(pick(first.stdout));
  });

  it("with --redis-url: writes only under swc-bench:<id>: and leaves no key behind, the user's keys untouched", async () => {
    const url = redisUrl();
    const redis = await connect(url);
    const mine = uniqueName('users-key');
    await redis.set(mine, 'keep me');
    const result = await runInProcess(['verify', '--redis-url', url, '--calls', '2500', '--seed', '9']);
    expect(result.code).toBe(0);
    const namespace = /writing only under (swc-bench:[0-9a-f]{8}:\*)/.exec(result.stderr)?.[1];
    expect(namespace).toBeDefined();
    expect(result.stdout).toContain('stoplight-v5: 2,500 calls');
    expect(result.stdout).toContain('stoplight-v6: 2,500 calls');
    expect(await keysMatching(redis, namespace as string)).toEqual([]);
    expect(await redis.get(mine)).toBe('keep me');
    await redis.del(mine);
    redis.disconnect();
  });

  it('--scripts with a planted bug in a copy of lua/: exit 1, the disagreement in the JSON with a reproduction of at most 10 calls', async () => {
    const dir = plantBug('stoplight-v6/get_metrics.lua', 'second - window)', 'second - window - 1)');
    const result = await runInProcess(['verify', '--scripts', dir, '--layout', 'stoplight-v6', '--calls', '3000', '--seed', '4', '--json']);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { findings: number; results: { disagreements: { reproduction: unknown[] }[] }[] };
    expect(json.findings).toBeGreaterThan(0);
    const reproduction = json.results[0]?.disagreements[0]?.reproduction ?? [];
    expect(reproduction.length).toBeGreaterThan(0);
    expect(reproduction.length).toBeLessThanOrEqual(10);
  });

  it('--scripts naming a folder without the scripts: exit 2 before touching Redis, one line naming --scripts', async () => {
    const result = await runInProcess(['verify', '--scripts', '/nonexistent-swc-scripts', '--redis-url', 'redis://127.0.0.1:1']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^swc: --scripts: /);
  });

  it('a server out of memory is a runtime failure (exit 3, one line saying so), not a finding of the layout', async () => {
    const result = await runInProcess([
      'verify',
      '--layout',
      'stoplight-v5',
      '--no-progress',
      '--redis-server-arg',
      'maxmemory=2mb',
      '--redis-server-arg',
      'maxmemory-policy=noeviction',
    ]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^swc: Redis is out of memory/);
  });

  it.each([
    [['--calls', '0'], '--calls'],
    [['--layout', 'nope'], '--layout'],
    [['--seed', '-1'], '--seed'],
    [['--lights', '1000'], '--lights'],
  ])('bad usage %j exits 2 with one line naming the flag', async (args, flag) => {
    const result = await runInProcess(['verify', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`^swc: ${flag}`));
  });
});
