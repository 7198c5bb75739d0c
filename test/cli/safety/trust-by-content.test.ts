/**
 * #29: a user's own scripts never run on a user's server by default. A
 * manifest, a --scripts tree, or any lua/ copy that is not byte-identical to
 * the installed swc's own is refused on --redis-url without --trust-scripts
 * (exit 2, one line saying how), before anything reaches that server. Trust
 * is decided by content: an edited copy of lua/ named by a relative path is
 * treated exactly as the same copy named by its absolute path.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Redis } from 'ioredis';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import type { PrivateServer } from '../../../src/redis/server.js';
import { digest, expectServerIdle, testServer } from '../../helpers.js';
import { runCli, type CliResult } from '../run-cli.js';
import { hostile, LATE_CASES, lateEdit, REFUSED } from '../../hostile-manifests.js';

const LUA = fileURLToPath(new URL('../../../lua/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A user's server of the test's own (the tests run at once, and each counts
 * the commands its server saw), stopped when the test finishes: the user's
 * keys, of several types, and an operator's slow log.
 */
async function userServer(context: Pick<TestContext, 'onTestFinished'>): Promise<{ server: PrivateServer; redis: Redis }> {
  const { server, redis } = await testServer(context);
  const pipeline = redis.pipeline();
  for (let i = 0; i < 40; i += 1) {
    pipeline.set(`app:str:${i}`, `value ${i}`);
    pipeline.hset(`app:hash:${i}`, 'f', String(i));
    pipeline.zadd(`app:zset:${i}`, i, `m${i}`);
  }
  await pipeline.exec();
  await redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0');
  for (let i = 0; i < 5; i += 1) await redis.get('app:str:1');
  await redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', '10000');
  return { server, redis };
}

/** Commands the server has counted, by name (reads of this test's own checks included). */
async function commandCounts(redis: Redis): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const m of String(await redis.info('commandstats')).matchAll(/^cmdstat_([a-z_|-]+):calls=(\d+)/gm)) counts.set(m[1] as string, Number(m[2]));
  return counts;
}

/** What this test itself sends to look (never a write). */
const READS = new Set(['info', 'scan', 'dump', 'slowlog|len', 'slowlog', 'ping', 'acl|users', 'acl', 'type', 'dbsize']);

async function untouched<T>(redis: Redis, run: () => Promise<T>): Promise<T> {
  const keys = await digest(redis, '*');
  const slow = await redis.call('SLOWLOG', 'LEN');
  const before = await commandCounts(redis);
  const result = await run();
  const after = await commandCounts(redis);
  const changed = [...after].filter(([name, calls]) => calls !== (before.get(name) ?? 0)).map(([name]) => name);
  expect(changed.filter((name) => !READS.has(name))).toEqual([]);
  expect(await digest(redis, '*')).toEqual(keys);
  expect(await redis.call('SLOWLOG', 'LEN')).toBe(slow);
  return result;
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '1', '--no-throughput', '--no-progress'];

// Every test has a user's server of its own: all run at once.
describe.concurrent('without --trust-scripts, a manifest is refused on a user server before anything is sent', () => {
  // Every such script (LATE_CASES) is refused in process by the check both commands make (test/integration/safety/hostile-probe.test.ts);
  // here one of them through bench, verify and REDIS_URL, at once.
  it('a script that loops after the probe: bench and verify exit 2, one line; keys, slow log and write counters unchanged', async (context) => {
    const { server, redis } = await userServer(context);
    const late = (LATE_CASES.find(([label]) => label === 'loops after the probe') as readonly [string, string])[1];
    const layout = hostile(dir, 'loops-after-the-probe', lateEdit(late));
    await untouched(redis, async () => {
      const [bench, verify, viaEnv] = await Promise.all([
        runCli(['bench', '--layout', layout, ...benchArgs, '--redis-url', server.url], {}, 60_000),
        runCli(['verify', '--layout', layout, '--calls', '200', '--redis-url', server.url], {}, 60_000),
        // REDIS_URL is the same user server (a command that writes uses it only with SWC_USE_REDIS_URL=1).
        runCli(['bench', '--layout', layout, ...benchArgs], { REDIS_URL: server.url, SWC_USE_REDIS_URL: '1' }, 60_000),
      ]);
      for (const result of [bench, verify]) {
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(REFUSED)]);
      }
      expect(viaEnv.code).toBe(2);
      expect(viaEnv.stderr).toMatch(REFUSED);
    });
  });

  it('under --trust-scripts, SLOWLOG RESET is denied to the temporary ACL user (no @admin): exit 1, the slow log intact', async (context) => {
    const { server, redis } = await userServer(context);
    const layout = hostile(dir, 'slowlog-trusted', lateEdit("redis.call('SLOWLOG', 'RESET')"));
    const keys = await digest(redis, 'app:*');
    const slow = await redis.call('SLOWLOG', 'LEN');
    const result = await runCli(['bench', '--layout', layout, ...benchArgs, '--trust-scripts', '--redis-url', server.url]);
    expect(result.stderr).toMatch(/denied by swc's confinement: .*record\.lua:\d+ tried command "slowlog/i);
    expect(result.code).toBe(1);
    // Intact: never reset (the run's own slow calls may add entries).
    expect(Number(await redis.call('SLOWLOG', 'LEN'))).toBeGreaterThanOrEqual(Number(slow));
    expect(await digest(redis, 'app:*')).toEqual(keys);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
    await expectServerIdle(redis);
  });
});

/** swc run from `cwd`. */
const runIn = (cwd: string, args: readonly string[]): Promise<CliResult> => runCli(args, {}, undefined, cwd);

describe.concurrent('trust by content, never by path', () => {
  it('an edited lua/ copy by a relative path is refused exactly as by its absolute path, nothing sent', async (context) => {
    const { server, redis } = await userServer(context);
    const work = path.join(dir, 'edited');
    cpSync(LUA, path.join(work, 'lua'), { recursive: true });
    const file = path.join(work, 'lua', 'stoplight-v6', 'record_failure.lua');
    // A hostile edit: change one user key, delete another.
    writeFileSync(file, `redis.call('SET', 'app:str:1', 'pwned') redis.call('DEL', 'app:str:2')\n${readFileSync(file, 'utf8')}`);
    const args = (scripts: string): string[] => ['bench', '--scripts', scripts, '--layout', 'stoplight-v6', ...benchArgs, '--redis-url', server.url];
    // bench by either path and verify, at once: none of them may send a thing.
    const [relative, absolute, verify] = await untouched(redis, () =>
      Promise.all([
        runIn(work, args('lua')),
        runIn(tmpdir(), args(path.join(work, 'lua'))),
        runIn(work, ['verify', '--scripts', 'lua', '--layout', 'stoplight-v6', '--calls', '100', '--redis-url', server.url]),
      ]),
    );
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(REFUSED);
    expect(relative.stderr).toContain(file);
    expect(relative.stderr).toBe(absolute.stderr);
    expect(absolute.code).toBe(2);
    expect(verify.code).toBe(2);
    expect(verify.stderr).toMatch(REFUSED);
  });

  it("a byte-identical copy of lua/ is swc's own wherever it lives: it runs on the user's server, unprobed", async (context) => {
    const { server, redis } = await userServer(context);
    const work = path.join(dir, 'identical');
    cpSync(LUA, path.join(work, 'lua'), { recursive: true });
    const keys = await digest(redis, 'app:*');
    const result = await runIn(work, ['bench', '--scripts', 'lua', '--layout', 'stoplight-v6', ...benchArgs, '--redis-url', server.url]);
    expect(result.stderr).not.toMatch(/trust-scripts|probe|temporary ACL user/);
    expect(result.code).toBe(0);
    expect(await digest(redis, 'app:*')).toEqual(keys);
  });
});
