import { describe, expect, it } from 'vitest';
import { testServer } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

// doctor judged headroom with a plan of its own (47.2 MB) where bench refused the same run at 54.7 MB: one estimator now.
describe('doctor and bench estimate the same peak for the same run', () => {
  it('on a server too small for the default bench: both name the same "needs up to" figure', async ({ onTestFinished }) => {
    const { server, redis } = await testServer({ onTestFinished });
    await redis.call('CONFIG', 'SET', 'maxmemory', '20mb');
    await redis.call('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
    const [doctor, bench] = [
      await runInProcess(['doctor', '--redis-url', server.url]),
      await runInProcess(['bench', '--rate', '100', '--window', '300', '--no-progress', '--redis-url', server.url]),
    ];
    expect(doctor.code).toBe(1);
    expect(bench.code).toBe(3);
    const needs = (text: string): string | undefined => /needs up to ([\d.]+ [KMG]B)/.exec(text)?.[1];
    expect(needs(doctor.stdout), doctor.stdout).toBeDefined();
    expect(needs(bench.stderr), bench.stderr).toBe(needs(doctor.stdout));
    expect(await redis.dbsize()).toBe(0);
  });
});
