/**
 * #41: every run of scripts swc did not write is rehearsed on a private
 * redis-server shaped like the user's (its build, its encoding settings)
 * before its first call reaches the user's server (src/safety/rehearsal.ts).
 * A call that writes more than the user's server can take (9 MB in one call,
 * 6 MB below maxmemory with allkeys-lru: Redis used to evict every user key)
 * or grows the Lua heap past its budget is refused before the first write:
 * MONITOR on the user's server shows none of the run's scripts, no key is
 * evicted, the user's keys are identical. A well-behaved script whose sorted
 * set's table doubles (a call growing the data by more than the fixed
 * per-call bound) runs to its end: the rehearsal saw the same growth at the
 * same call. Each case has a server of its own: they run at once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { UNTRUSTED_CALL_GROWTH_BYTES } from '../../../src/redis/call-limits.js';
import { digest, fileServers, fillUsersServer, monitor } from '../../helpers.js';
import { hostile, lateEdit } from '../../hostile-manifests.js';
import { runCli } from '../run-cli.js';

const { dir, start } = fileServers('rehearsal');

/** A string the scripts carry in their text: a load or call of them on the user's server shows it under MONITOR. */
const MARK = 'swc-rehearsal-mark';

/** `hostile(…)` with {@link MARK} in record.lua. */
function marked(name: string, late: string): string {
  const manifest = hostile(dir, name, lateEdit(late));
  const file = path.join(path.dirname(manifest), 'record.lua');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\nlocal mark = '${MARK}'\nreturn now\n`));
  return manifest;
}

/** A user's server with 200 keys of five types, and `headroom` bytes under maxmemory when given. */
async function usersServer(policy?: string, headroom?: number): Promise<{ url: string; redis: Redis }> {
  const { url, redis } = await start();
  await fillUsersServer(redis, policy, headroom);
  return { url, redis };
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '1', '--no-throughput', '--no-progress', '--trust-scripts'];

/** Runs bench with `manifest` on `url` and checks what a refusal before the first write leaves: nothing of the run, no eviction. */
async function refusedBeforeFirstWrite(url: string, redis: Redis, manifest: string): Promise<string> {
  const before = await digest(redis, '*');
  const watch = await monitor(url);
  const result = await runCli(['bench', '--layout', manifest, ...benchArgs, '--redis-url', url]);
  watch.stop();
  expect(result.code, result.stderr).toBe(3);
  // The checks ran; no load or call of the run's scripts reached the user's server.
  expect(watch.seen.filter((args) => args.some((a) => a.includes(MARK)))).toEqual([]);
  expect(watch.seen.filter((args) => /^evalsha$/i.test(args[0] ?? '') && !args.some((a) => a.includes('{probe}')))).toEqual([]);
  expect(/evicted_keys:(\d+)/.exec(await redis.info('stats'))?.[1]).toBe('0');
  expect(await digest(redis, '*')).toEqual(before);
  expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
  return result.stderr;
}

/** A 1 MB string built by doubling (string.rep adds one character at a time: slow enough to meet the time budget instead). */
const ONE_MB = "local s = 'x' for k = 1, 20 do s = s .. s end";
/** Eighteen 512 KB strings (9 MB) set in one call, from a light's 16th call on (after the probe's dozen); each under the 1 MiB a call's Lua heap may grow. */
const NINE_MB = "local s = 'x' for k = 1, 19 do s = s .. s end for i = 1, 18 do redis.call('SET', KEYS[2] .. ':big' .. i, s) end";
/** About 12 MB of Lua strings held in a table during one call: the Lua heap, which maxmemory does not see. */
const LUA_HEAP = `${ONE_MB} local t = {} for i = 1, 12 do t[i] = s .. i end`;
/** A well-behaved script that adds 300 members to a sorted set per call: its table doubles at 16,384 members (32,768 buckets, 256 KB). */
const ZSET_GROWS =
  "local n = redis.call('HINCRBY', KEYS[2], 'members', 300) local args = {} for i = n - 299, n do args[#args + 1] = i args[#args + 1] = 'm' .. i end redis.call('ZADD', KEYS[2] .. ':z', unpack(args))";

describe.concurrent('the rehearsal on a private server, before the first write on the user server', () => {
  it('a call writing 9 MB on a server 6 MB below maxmemory (allkeys-lru): refused before the first write, exit 3, 0 keys evicted', async () => {
    const { url, redis } = await usersServer('allkeys-lru', 6 * 1024 * 1024);
    const stderr = await refusedBeforeFirstWrite(url, redis, marked('nine-mb', NINE_MB));
    expect(stderr).toMatch(
      /^swc: refused before the first write: in swc's rehearsal of this run on a private redis [\d.]+, the run grew the data by [\d,]+ bytes by its call [\d,]+, its largest call \(\S*record\.lua\) by [\d,]+ bytes; redis:\/\/127\.0\.0\.1:\d+ is [\d,]+ bytes below its maxmemory \([\d,]+ bytes, allkeys-lru\).*nothing of the run was sent/m,
    );
    const largest = Number(/its largest call \(\S+\) by ([\d,]+) bytes/.exec(stderr)?.[1]?.replace(/,/g, ''));
    expect(largest).toBeGreaterThan(9 * 1024 * 1024);
  });

  it('a call growing the Lua heap by about 12 MB: refused before the first write, exit 3, naming used_memory_lua', async () => {
    const { url, redis } = await usersServer();
    const stderr = await refusedBeforeFirstWrite(url, redis, marked('lua-heap', LUA_HEAP));
    expect(stderr).toMatch(
      // The guard's heap reading ends the call itself, at an eighth of the budget (the after-call reading would say `over the budget of 8,388,608 bytes`).
      /^swc: refused before the first write: \S*record\.lua grew the scripts' Lua heap \(used_memory_lua, which maxmemory does not count\) by \d+ bytes in one call, over the 1048576 bytes one call may grow it .* in swc's rehearsal of this run on a private redis [\d.]+ at 127\.0\.0\.1:\d+; the time guard .* ended that call at \S*record\.lua:\d+.*nothing of the run was sent to redis:\/\/127\.0\.0\.1:\d+/m,
    );
  });

  it("a sorted set's table doubling (the server's growth, more than the fixed per-call bound in one call) does not stop a well-behaved script", async () => {
    // The premise, on a scratch server: one of these calls grows the data by more than the fixed bound.
    const scratch = await usersServer();
    let largest = 0;
    for (let call = 0; call < 60; call += 1) {
      const before = Number(/used_memory_dataset:(\d+)/.exec(await scratch.redis.info('memory'))?.[1]);
      await scratch.redis.eval(ZSET_GROWS, 2, 'scratch:h', 'scratch:h');
      largest = Math.max(largest, Number(/used_memory_dataset:(\d+)/.exec(await scratch.redis.info('memory'))?.[1]) - before);
    }
    expect(largest).toBeGreaterThan(UNTRUSTED_CALL_GROWTH_BYTES);
    const { url, redis } = await usersServer();
    const before = await digest(redis, 'app:*');
    const result = await runCli(['bench', '--layout', marked('zset-grows', ZSET_GROWS), ...benchArgs, '--redis-url', url]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/stopped:/);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });
});
