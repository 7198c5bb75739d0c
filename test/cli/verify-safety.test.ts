import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { digest, keysMatching, withPrivateServer } from '../helpers.js';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';

const opened: { server: PrivateServer; redis: Redis }[] = [];
afterEach(async () => {
  for (const { server, redis } of opened.splice(0)) {
    redis.disconnect();
    await server.stop();
  }
});

async function server(): Promise<{ redis: Redis; url: string }> {
  const s = await startPrivateServer();
  const redis = await connect(s.url);
  opened.push({ server: s, redis });
  return { redis, url: s.url };
}

describe('swc verify on a server swc did not start', () => {
  it("refuses before writing where it would evict the user's keys (maxmemory 3mb, allkeys-lru): exit 3, keys byte-identical, no swc key", async () => {
    const { redis, url } = await server();
    await redis.config('SET', 'maxmemory', '3mb');
    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    for (let i = 0; i < 100; i += 1) await redis.set(`app:${i}`, `value ${i}`.repeat(8));
    const before = await digest(redis, 'app:*');
    const result = await runCli(['verify', '--redis-url', url, '--calls', '20000']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^swc: refusing to write to this server: maxmemory 3\.0 MB/m);
    expect(result.stdout).toBe('');
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });

  it('names its run on stderr even with --no-progress, and leaves neither keys nor run markers', async () => {
    const { redis, url } = await server();
    const result = await runCli(['verify', '--redis-url', url, '--calls', '2000', '--no-progress']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^swc verify: run swc-bench:[0-9a-f]{8}: writing only under swc-bench:[0-9a-f]{8}:\*; removed at the end$/m);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });
});

describe('verify on a server where it would evict', () => {
  it('refuses naming its own way out (fewer --calls), not bench-only --allow-eviction; user keys byte-identical, no swc key', async () => {
    await withPrivateServer({ settings: ['maxmemory=3mb', 'maxmemory-policy=allkeys-lru'] }, async (server, redis) => {
      for (let i = 0; i < 300; i += 1) await redis.set(`app:${i}`, `value ${i}`.repeat(4));
      const before = await digest(redis, 'app:*');
      const result = await runCli(['verify', '--calls', '20000', '--redis-url', server.url]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^swc: refusing to write to this server: maxmemory 3\.0 MB, .*\(allkeys-lru\) \(fewer --calls need less memory\)$/m);
      expect(result.stderr).not.toMatch(/--allow-eviction/);
      // verify has no such option: the hint it used to print was a usage error.
      expect((await runCli(['verify', '--allow-eviction', '--redis-url', server.url])).stderr).toMatch(/unknown option '--allow-eviction'/);
      expect(await digest(redis, 'app:*')).toEqual(before);
      expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
    });
  });
});
