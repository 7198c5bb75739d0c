/**
 * Scripts that tell swc's rehearsal from the user's server (the rehearsal's
 * database holds only the run's keys; the user's holds theirs too, and
 * DBSIZE says so) and misbehave only on the user's, from a light's 16th
 * call: what the rehearsal cannot see, the guard inside each call must stop.
 *
 * - A pattern match that backtracks is one C call the checks between
 *   statements cannot interrupt: it held the server with no reply at all
 *   (2.6 s for this one against a 50 ms budget, measured with a busy threshold of 200 ms; with 8 `.-` instead of 5,
 *   until the server was killed). It is weighed before it runs.
 * - A string doubled in a loop grew the Lua heap, and the server's RSS, by
 *   gigabytes within one call (6.3 GB measured, the time budget reached only
 *   after 39 s of copying); `string.rep` builds as much in one C call. The
 *   guard reads the heap at every check and weighs what `string.rep` would
 *   build: the server's peak RSS (VmHWM) grows by less than the Lua heap
 *   budget over the whole run.
 * - Nine MB of SETs in one call on a server 6 MB below maxmemory
 *   (allkeys-lru): the rehearsal saw small calls, so the preflight let the
 *   run start, and Redis evicted all 200 user keys before the check after
 *   the call. The guard weighs what each call sends to Redis against the
 *   per-call bound the preflight's margin was made for.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GUARD_LUA_HEAP_BYTES } from '../../../src/lua/guard.js';
import { digest, fileServers, fillUsersServer } from '../../helpers.js';
import { hostile, lateEdit } from '../../hostile-manifests.js';
import { runCli } from '../run-cli.js';

const { dir, start } = fileServers('live-only');

/** Bytes of the server's RSS now, and the most it has been (VmRSS, VmHWM of /proc/<pid>/status). */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}

const usedMemory = (info: string, field: string): number => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1]);

/** A bench with the example manifest on `url`, its record.lua running `tail` from a light's 16th call where the database holds more than the run's keys. */
function benchMisbehavingLate(url: string, name: string, tail: string): ReturnType<typeof runCli> {
  const manifest = hostile(dir, name, lateEdit(onUsersServerOnly(tail)));
  const flags = ['--rate', '20', '--window', '5', '--lights', '1', '--no-throughput', '--no-progress', '--trust-scripts'];
  return runCli(['bench', '--layout', manifest, ...flags, '--redis-url', url]);
}

/** Runs `tail` only where the database holds more than the run's own keys (the user's server, never the rehearsal's). */
const onUsersServerOnly = (tail: string): string => `if redis.call('DBSIZE') > 50 then ${tail} end`;

describe.concurrent('a script that misbehaves only on the user server (DBSIZE tells it from the rehearsal)', () => {
  it.each([
    [
      'a backtracking pattern match (one C call)',
      "string.find(string.rep('a', 60), string.rep('.-', 5) .. 'b')",
      /string\.find could take [\d.e+]+ pattern-matching steps in one C call, over the 25000000 that fit its budget of 250 ms/,
    ],
    [
      'a string doubled in a loop',
      "local s = 'x' for i = 1, 27 do s = s .. s end",
      /grew the scripts' Lua heap \(used_memory_lua, which maxmemory does not count\) by \d+ bytes in one call/,
    ],
    [
      'string.rep of 128 MB (one C call)',
      "local s = string.rep('x', 2 ^ 27)",
      /string\.rep would build 134217728 bytes, over the 524288 bytes one call of it may build/,
    ],
    [
      'a string.gsub callback returning a 64 KB string per character',
      "local big = string.rep('y', 65536) string.gsub(string.rep('x', 2000), 'x', function() return big end)",
      /string\.gsub built more than the 524288 bytes/,
    ],
  ])('%s: stopped by the guard in its call, exit 3; the server answers, its peak RSS grew by less than the Lua heap budget', async (label, tail, said) => {
    // The default busy threshold (5 s): a call's budget is 250 ms, so a loaded machine does not stop the well-behaved calls.
    const { server, url, redis } = await start();
    for (let i = 0; i < 60; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, 'app:*');
    const memory = { ...rss(server.pid), used: usedMemory(await redis.info('memory'), 'used_memory') };
    const result = await benchMisbehavingLate(url, label.replace(/\W+/g, '-'), tail);
    // The rehearsal passed (the script behaved there); the user's server saw the run, and the guard ended the call there.
    expect(result.stderr).toMatch(/^swc: stopped: \S*record\.lua .* on redis:\/\/127\.0\.0\.1:\d+; the time guard .* ended that call/m);
    expect(result.stderr).toMatch(said);
    expect(result.code).toBe(3);
    expect(await redis.ping()).toBe('PONG');
    // What the run's keys and connections took is the server's own accounting (used_memory, at its peak); the rest of the RSS growth, the Lua heap among it, stays under the budget.
    const data = usedMemory(await redis.info('memory'), 'used_memory_peak') - memory.used;
    expect(rss(server.pid).peak - memory.now - Math.max(0, data)).toBeLessThan(GUARD_LUA_HEAP_BYTES);
    expect(usedMemory(await redis.info('memory'), 'used_memory_lua')).toBeLessThan(GUARD_LUA_HEAP_BYTES);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });

  it('eighteen 512 KB SETs (9 MB) in one call, 6 MB below maxmemory with allkeys-lru: stopped before the SET that passes the per-call bound, 0 keys evicted', async () => {
    const { url, redis } = await start();
    await fillUsersServer(redis, 'allkeys-lru', 6 * 1024 * 1024);
    const before = await digest(redis, '*');
    const tail = "local s = 'x' for k = 1, 19 do s = s .. s end for i = 1, 18 do redis.call('SET', KEYS[2] .. ':big' .. i, s) end";
    const result = await benchMisbehavingLate(url, 'nine-mb', tail);
    expect(result.stderr).toMatch(
      /^swc: stopped: \S*record\.lua sent \d+ bytes to Redis in one call .* over the \d+ bytes one call may write on this server .* ended that call at \S*record\.lua:\d+,/m,
    );
    expect(result.code).toBe(3);
    expect(/evicted_keys:(\d+)/.exec(await redis.info('stats'))?.[1]).toBe('0');
    expect(await digest(redis, '*')).toEqual(before);
  });
});
