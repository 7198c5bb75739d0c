import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { PrivateServer } from '../../src/redis/server.js';
import { alive, digest, keysMatching, ownServer } from '../helpers.js';
import { runInProcess } from '../unit/in-process.js';
import { runCli, RUN_LINE, startCli } from './run-cli.js';

// A server of this file's own: the listing must not see other files' runs.
let server: PrivateServer;
let redis: Redis;
ownServer((s, r) => {
  server = s;
  redis = r;
});

interface Listing {
  namespaces: { prefix: string; keys: number; bytes: number | null; startedAt: string | null; alive: boolean }[];
  removed: { prefix: string; keys: number }[];
  kept: { prefix: string; reason: string }[];
}

// The bench each case leaves behind or keeps running needs a process (a
// SIGKILL, a run still going); the clean that lists or removes it runs
// in-process, as does the empty listing (test/integration/commands/clean.test.ts).
// A spawn shows clean's refusal before connecting.
describe('swc clean', () => {
  it('lists what a SIGKILLed bench left (age, keys, bytes), removes it only with --yes, and leaves user keys alone', async () => {
    await redis.set('app:user', 'keep');
    await redis.hset('app:hash', { a: '1' });
    const before = await digest(redis, 'app:*');
    const run = startCli(['bench', '--redis-url', server.url, '--rate', '10', '--window', '60', '--time', '30']);
    const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
    await run.waitFor(/write throughput phase/);
    run.child.kill('SIGKILL');
    await run.exited;
    expect(alive(run.child.pid as number)).toBe(false);
    const left = await keysMatching(redis, `${namespace}:*`);
    expect(left.length).toBeGreaterThan(2);

    const listed = await runInProcess(['clean', '--redis-url', server.url, '--json']);
    expect(listed.code).toBe(0);
    const listing = JSON.parse(listed.stdout) as Listing;
    expect(listing.namespaces).toEqual([
      expect.objectContaining({
        prefix: namespace,
        keys: left.length,
        bytes: expect.any(Number),
        startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
        alive: false,
      }),
    ]);
    expect(listing.namespaces[0]!.bytes).toBeGreaterThan(1000);
    expect(Date.now() - Date.parse(listing.namespaces[0]!.startedAt!)).toBeLessThan(120_000);
    expect(listing.removed).toEqual([]);
    expect(await keysMatching(redis, `${namespace}:*`)).toHaveLength(left.length);

    const text = await runInProcess(['clean', '--redis-url', server.url]);
    expect(text.stdout).toMatch(new RegExp(`^${namespace}  ${left.length} key\\(s\\), [\\d.]+ KB, \\d+ s old, from .+ pid \\d+$`, 'm'));
    expect(text.stdout).toMatch(/nothing removed: run again with --yes/);

    const removed = await runInProcess(['clean', '--redis-url', server.url, '--namespace', namespace, '--yes']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(new RegExp(`removed ${left.length} key\\(s\\) under ${namespace}:\\*`));
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
    expect(await digest(redis, 'app:*')).toEqual(before);
  });

  it('does not remove a run that is still going (its alive key is fresh), and exits 1 saying so', async () => {
    const run = startCli(['bench', '--redis-url', server.url, '--rate', '10', '--window', '60', '--layout', 'stoplight-v6', '--time', '2']);
    const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
    await run.waitFor(/write throughput phase/);
    const result = await runInProcess(['clean', '--redis-url', server.url, '--yes', '--json']);
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as Listing).kept).toEqual([{ prefix: namespace, reason: 'still running' }]);
    expect((await run.exited).code).toBe(0);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });

  // Every refused pattern runs in-process in test/unit/commands/clean-usage.test.ts; a spawn shows one.
  it('refuses --namespace app:* (only swc-bench:<8 hex digits>) with exit 2 before connecting', async () => {
    const result = await runCli(['clean', '--redis-url', 'redis://127.0.0.1:1', '--namespace', 'app:*', '--yes']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^swc: --namespace: expected swc-bench:<8 hex digits>/m);
  });
});
