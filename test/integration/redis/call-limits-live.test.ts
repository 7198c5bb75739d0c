/**
 * #41: the checks after each call of scripts swc did not write on a user's
 * server (src/redis/call-limits.ts), on a real server: a call that grows the
 * Lua heap (used_memory_lua, which maxmemory does not count) past its budget
 * stops the run; a call whose data growth is over the fixed per-call bound
 * stops it, unless the rehearsal saw a call that large (then the bound is
 * twice that). Each case has a server of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RefusalError } from '../../../src/core/errors.js';
import { loadScript, type LuaScript } from '../../../src/lua/source.js';
import { limitCalls, UNTRUSTED_CALL_GROWTH_BYTES } from '../../../src/redis/call-limits.js';
import { ioredisChannel, runScript } from '../../../src/redis/scripts.js';
import { withPrivateServer } from '../../helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-call-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, source: string): LuaScript {
  writeFileSync(path.join(dir, `${name}.lua`), source);
  return loadScript({ root: dir, file: `${name}.lua`, includes: 'none' });
}

/** About 12 MB of Lua strings held during the call. */
const heap = script('heap', "local s = 'x' for k = 1, 20 do s = s .. s end local t = {} for i = 1, 12 do t[i] = s .. i end return 1");
/** 300 KB written to the key in one call: over the fixed per-call bound. */
const write = script('write', "local s = 'x' for k = 1, 10 do s = s .. s end redis.call('SET', KEYS[1], string.rep(s, 300)) return 1");

describe('the live checks after each call', () => {
  it('a call growing the Lua heap past its budget stops the run, naming used_memory_lua', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const lift = await limitCalls(redis, ioredisChannel(redis).server, 'the user server', { budgetBytes: 1e9 });
      try {
        const stopped = await runScript(redis, { script: heap, keys: ['swc-bench:00000000:k'], args: [] }).catch((err: unknown) => err);
        expect(stopped).toBeInstanceOf(RefusalError);
        expect((stopped as Error).message).toMatch(
          // Ended inside the call by the guard's own heap reading (an eighth of the budget), before the check after the call.
          /^stopped: .* grew the scripts' Lua heap \(used_memory_lua, which maxmemory does not count\) by \d+ bytes in one call, over the 1048576 bytes one call may grow it/,
        );
      } finally {
        lift();
      }
    });
  });

  it.each([
    ['no rehearsal: stopped', 0, true],
    ['a rehearsal whose largest call was as large: runs', 320 * 1024, false],
  ] as const)('a call writing 300 KB, with %s', async (_label, rehearsedCallBytes, stops) => {
    expect(300 * 1024).toBeGreaterThan(UNTRUSTED_CALL_GROWTH_BYTES);
    await withPrivateServer({}, async (_server, redis) => {
      const lift = await limitCalls(redis, ioredisChannel(redis).server, 'the user server', { budgetBytes: 1e9, rehearsedCallBytes });
      try {
        const outcome = await runScript(redis, { script: write, keys: ['swc-bench:00000000:k'], args: [] }).catch((err: unknown) => err);
        // The guard weighs what the call sends against the same bound, and ends it before the SET (the check after the call would say `grew the server's data by …`).
        if (stops) expect((outcome as Error).message).toMatch(/sent \d+ bytes to Redis in one call .* over the 262144 bytes one call may write on this server/);
        else expect(outcome).toBe(1);
      } finally {
        lift();
      }
    });
  });
});
