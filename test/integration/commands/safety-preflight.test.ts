import { describe, expect, it } from 'vitest';
import { expectUntouched, seedUserKeys, server } from '../../cli/safety-preflight-shared.js';
import { aclUserUrl, digest, keysMatching } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

// The spawned CLI refuses a server that would evict, and doctor names it
// (test/cli/safety-preflight.test.ts); these run the same program in-process.
// Every test has servers of its own: each describe's tests run at once (their
// swc runs take turns).
describe.concurrent('bench refuses before writing to a server where it would evict', () => {
  it.for(['volatile-lru', 'noeviction'])('maxmemory with %s: refuses too, naming what Redis would do', async (policy, context) => {
    const { redis, url } = await server(context);
    await redis.config('SET', 'maxmemory', '3mb');
    await redis.config('SET', 'maxmemory-policy', policy);
    await seedUserKeys(redis);
    const before = await digest(redis, 'app:*');
    const result = await runInProcess(['bench', '--redis-url', url, '--rate', '100', '--window', '600', '--no-throughput']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      policy === 'noeviction' ? /refuse writes \(OOM\) from every client.*the run would fail anyway/ : /evict keys that have a TTL \(volatile-lru\)/,
    );
    await expectUntouched(redis, before);
  });

  it('with --allow-eviction it runs, and the cell during which Redis evicted fails with exit 3 and no figure; no swc key left', async (context) => {
    const { redis, url } = await server(context);
    await redis.config('SET', 'maxmemory', '3mb');
    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await seedUserKeys(redis);
    const result = await runInProcess(['bench', '--redis-url', url, '--rate', '100', '--window', '600', '--allow-eviction', '--json', '--no-throughput']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/warning \(--allow-eviction\): maxmemory 3\.0 MB/);
    expect(result.stderr).toMatch(/^swc: cell 1\/2 \(stoplight-v5, window 600 s at 100\/s\) failed during its memory phase: Redis evicted [\d,]+ key\(s\)/m);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });

  it('a run that fits under maxmemory goes ahead and leaves the user keys alone', async (context) => {
    const { redis, url } = await server(context);
    await redis.config('SET', 'maxmemory', '64mb');
    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await seedUserKeys(redis);
    const before = await digest(redis, 'app:*');
    const result = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--ops', '200', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).results).toHaveLength(2);
    await expectUntouched(redis, before);
  });
});

describe.concurrent('bench refuses a server that cannot take its writes; doctor names why', () => {
  it('a replica: bench exit 3 naming the primary, doctor exit 1', async (context) => {
    const primary = await server(context);
    const replica = await server(context);
    await seedUserKeys(primary.redis);
    await replica.redis.call('REPLICAOF', '127.0.0.1', String(primary.server.port));
    const before = await digest(primary.redis, 'app:*');
    const bench = await runInProcess(['bench', '--redis-url', replica.url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(
      new RegExp(
        `^swc: refusing to write to this server: this server is a replica of 127\\.0\\.0\\.1:${primary.server.port} \\(read-only\\); point --redis-url at the primary`,
        'm',
      ),
    );
    const doctor = await runInProcess(['doctor', '--write-check', '--redis-url', replica.url, '--json']);
    expect(doctor.code).toBe(1);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string }[] }).checks;
    expect(checks).toContainEqual(expect.objectContaining({ name: 'replica', status: 'fail' }));
    await expectUntouched(primary.redis, before);
    expect(await keysMatching(replica.redis, 'swc-bench:*')).toEqual([]);
  });

  it('min-replicas-to-write 1 with no replica: bench exit 3, doctor exit 1', async (context) => {
    const { redis, url } = await server(context);
    await seedUserKeys(redis);
    await redis.config('SET', 'min-replicas-to-write', '1');
    const before = await digest(redis, 'app:*');
    const bench = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(/^swc: refusing to write to this server: min-replicas-to-write 1 with 0 good replica\(s\) connected/m);
    const doctor = await runInProcess(['doctor', '--write-check', '--redis-url', url]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+min-replicas\s+min-replicas-to-write 1/);
    await expectUntouched(redis, before);
  });

  it('a user without EVALSHA: bench exit 3 and doctor exit 1, each naming EVALSHA', async (context) => {
    const { redis, url: admin } = await server(context);
    await seedUserKeys(redis);
    const url = await aclUserUrl(redis, admin, 'noscripts', ['~*', '+@all', '-evalsha']);
    const before = await digest(redis, 'app:*');
    const bench = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(/^swc: refusing to write to this server: .*user "noscripts" may not run EVALSHA/m);
    const doctor = await runInProcess(['doctor', '--write-check', '--redis-url', url, '--json']);
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout) as { permissions: { missing: string[] }; checks: { name: string; status: string; detail: string }[] };
    expect(report.permissions.missing.some((m) => m.startsWith('EVALSHA'))).toBe(true);
    expect(report.checks).toContainEqual(expect.objectContaining({ name: 'permission', status: 'fail', detail: expect.stringMatching(/EVALSHA/) }));
    await expectUntouched(redis, before);
  });

  it('a user limited to ~app:* (no ACL command either, so probes are used): bench exit 3 naming the key pattern', async (context) => {
    const { redis, url: admin } = await server(context);
    await seedUserKeys(redis);
    const url = await aclUserUrl(redis, admin, 'apponly', ['~app:*', '+@all', '-@admin']);
    const before = await digest(redis, 'app:*');
    const bench = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(
      /^swc: refusing to write to this server: user "apponly" may not access keys under swc-bench:\* \(ACL key patterns; needed by SET, .*EVALSHA/m,
    );
    const doctor = await runInProcess(['doctor', '--write-check', '--redis-url', url]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+permission\s+user "apponly" may not access keys under swc-bench:\*/);
    await expectUntouched(redis, before);
  });

  it('a user denied HSET and MEMORY (checked inside scripts too): each is named', async (context) => {
    const { redis, url: admin } = await server(context);
    const url = await aclUserUrl(redis, admin, 'nohset', ['~*', '+@all', '-hset', '-memory', '-acl']);
    const bench = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(/may not run HSET: NOPERM/);
    expect(bench.stderr).toMatch(/may not run MEMORY USAGE: NOPERM/);
    expect(bench.stderr).toMatch(/may not run HSET in scripts/);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });

  it('a user denied INFO: bench refuses (it reads used_memory and evictions from INFO) and doctor exits 1', async (context) => {
    const { redis, url: admin } = await server(context);
    const url = await aclUserUrl(redis, admin, 'noinfo', ['~*', '+@all', '-info']);
    const bench = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(/^swc: refusing to write to this server: INFO is not allowed .*cannot be checked/m);
    const doctor = await runInProcess(['doctor', '--write-check', '--redis-url', url]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+access server\s+may not run INFO: bench, verify are refused/);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });

  it('MEMORY renamed and CONFIG denied: doctor exits 1 naming each, and --json carries the findings and the permission method', async (context) => {
    const { redis, url: admin } = await server(context, ['rename-command=MEMORY SWCMEMORY']);
    const url = await aclUserUrl(redis, admin, 'noconfig', ['~*', '+@all', '-config']);
    const doctor = await runInProcess(['doctor', '--write-check', '--redis-url', url, '--json']);
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout) as {
      checks: { name: string; status: string; detail: string }[];
      permissions: { user: string; method: string; missing: string[] };
      memory: { maxBytes: number } | null;
    };
    expect(report.permissions).toMatchObject({ user: 'noconfig', method: 'acl-dryrun' });
    expect(report.checks).toContainEqual(expect.objectContaining({ name: 'memory usage', status: 'fail' }));
    expect(report.checks).toContainEqual(expect.objectContaining({ name: 'permission', status: 'fail', detail: expect.stringMatching(/MEMORY USAGE/) }));
    expect(report.checks).toContainEqual(expect.objectContaining({ name: 'permission', status: 'fail', detail: expect.stringMatching(/CONFIG GET/) }));
    expect(report.memory).toMatchObject({ maxBytes: 0 });
    const bench = await runInProcess(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-throughput']);
    expect(bench.code).toBe(3);
    expect(bench.stderr).toMatch(/^swc: refusing to write to this server: .*may not run MEMORY USAGE/m);
    expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
  });
});
