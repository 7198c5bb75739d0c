import { describe, expect, it } from 'vitest';
import { digest } from '../helpers.js';
import { expectUntouched, seedUserKeys, server } from './safety-preflight-shared.js';
import { runCli } from './run-cli.js';

// The other refusals (eviction policies, --allow-eviction, replicas, ACL users)
// run in-process (test/integration/commands/safety-preflight.test.ts); the built
// CLI shows bench's refusal and doctor's finding on a server that would evict.
describe('bench refuses before writing to a server where it would evict (spawned)', () => {
  it('maxmemory 3mb + allkeys-lru with 300 user keys: bench exit 3 before any write, doctor exit 1 on headroom, user keys byte-identical, no swc key', async (context) => {
    const { redis, url } = await server(context);
    await redis.config('SET', 'maxmemory', '3mb');
    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await seedUserKeys(redis);
    const before = await digest(redis, 'app:*');
    expect(Object.keys(before)).toHaveLength(300);
    const result = await runCli(['bench', '--redis-url', url, '--rate', '100', '--window', '600']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^swc: refusing to write to this server: maxmemory 3\.0 MB, .* Redis would evict other clients' keys \(allkeys-lru\) \(--allow-eviction runs anyway/m,
    );
    expect(result.stderr.split('\n').filter((l) => l.startsWith('swc: '))).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(Number(/evicted_keys:(\d+)/.exec(await redis.info('stats'))?.[1])).toBe(0);
    const doctor = await runCli(['doctor', '--write-check', '--redis-url', url]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+memory headroom\s+the default bench \(--rate 100 --window 300\): maxmemory 3\.0 MB/);
    await expectUntouched(redis, before);
  });
});
