/**
 * The time guard in scripts swc did not write (src/lua/guard.ts), on a real
 * server: a script that loops, after a write or under a pcall, ends by
 * itself within its budget and the server answers at once; a script that
 * ends gives the same answer and the same error lines as without the guard.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardSource } from '../../../src/lua/guard.js';
import { LUA_DIR, loadScript } from '../../../src/lua/source.js';
import { commandCalls, testRedis, uniqueName } from '../../helpers.js';

const BUDGET_MS = 50;
let redis: Redis;
let watcher: Redis;
beforeAll(async () => {
  redis = await testRedis();
  watcher = await testRedis();
});
afterAll(() => {
  redis.disconnect();
  watcher.disconnect();
});

const run = (source: string, keys: string[] = [], budgetMs = BUDGET_MS): Promise<unknown> =>
  redis.eval(guardSource(source, budgetMs), keys.length, ...keys).catch((err: unknown) => err);

/** Runs a script that never ends without the guard: it must end with SWCGUARD, soon, and leave the server answering. */
async function stops(source: string, keys: string[] = []): Promise<void> {
  const reply = await run(source, keys);
  // The guard's own error, with the budget it was given: the script ended itself (not a client timeout, not SCRIPT KILL).
  expect(reply).toBeInstanceOf(Error);
  expect((reply as Error).message).toMatch(new RegExp(`^SWCGUARD ran past its budget of ${BUDGET_MS} ms in one call`));
  expect(await watcher.ping()).toBe('PONG');
}

describe('a guarded script that would run forever ends by itself', () => {
  it('a bare loop', () => stops('while true do end'));
  it('a loop after a write (which SCRIPT KILL cannot stop): the write stays, the server answers', async () => {
    const key = uniqueName('guard');
    await stops("redis.call('SET', KEYS[1], 'written') while true do end", [key]);
    expect(await redis.get(key)).toBe('written');
    await redis.del(key);
  });
  it('a loop that catches the guard with pcall and goes on', () => stops('while true do pcall(function() while true do end end) end'));
  it('endless tail calls, with no loop at all', () => stops('local function f(n) return f(n + 1) end return f(0)'));
  it('loops and recursion reached through C: a gsub callback calling Redis, a sort comparator, a metatable, a coroutine', async () => {
    await stops("string.gsub('abc', '.', function(c) while true do redis.call('TIME') end end)");
    await stops('local t = {3, 1, 2} table.sort(t, function(a, b) while true do end end)');
    await stops('local t = setmetatable({}, {__index = function(t, k) while true do end end}) return t.x');
    await stops('local function f(n) return select(2, pcall(f, n + 1)) end while true do f(0) end');
    await stops('coroutine.wrap(function() while true do end end)()');
  });
  it('a repeat loop, and a for loop over a huge range', async () => {
    await stops('local n = 0 repeat n = n + 1 until n < 0');
    await stops('local n = 0 for i = 1, 1e15 do n = n + i end return n');
  });
  it('code made at run time is refused, by name and through _G', async () => {
    for (const source of [
      "return loadstring('return 1')()",
      "return load('return 1')()",
      "return _G.loadstring('while true do end')()",
      "return _G._G['load']('while true do end')()",
      "return rawget(_G, 'loadstring')('while true do end')()",
    ]) {
      const reply = await run(source);
      expect((reply as Error).message, source).toMatch(/^SWCGUARD loadstring and load are refused/);
    }
  });
  it("a script cannot shadow the check: its name comes from the script's own SHA1", async () => {
    // A guess at the name, and a global of that shape, change nothing.
    await stops('local swc_guard_step = function() end while true do end');
    await stops('local function swc_guard() end while true do end');
  });
});

describe('a guarded script that ends', () => {
  it('answers what it answers without the guard, reading the clock from the first check, then less often while it runs fast', async () => {
    const source = 'local s = 0 for i = 1, ARGV[1] do s = s + i end local t = {} local function add(x) t[#t + 1] = x end add(s) return t';
    const timeReads: number[] = [];
    for (const steps of ['10', '5000']) {
      await redis.config('RESETSTAT');
      expect(await redis.eval(guardSource(source, 250), 0, steps)).toEqual(await redis.eval(source, 0, steps));
      timeReads.push(await commandCalls(redis, 'time'));
    }
    // Readings at weight 1, 2, 4, … doubling up to 1,024, then every 1,024: a handful for a short call, a few more for 10,000 checks.
    expect(timeReads[0]).toBeGreaterThanOrEqual(1);
    expect(timeReads[0]).toBeLessThanOrEqual(6);
    expect(timeReads[1]).toBeGreaterThan(timeReads[0] as number);
    expect(timeReads[1]).toBeLessThanOrEqual(30);
  });
  it('keeps a shebang line first, and its flags apply', async () => {
    const source = "#!lua flags=no-writes\nlocal n = 0 for i = 1, 100 do n = n + i end\nredis.call('SET', KEYS[1], n)";
    const bare = await redis.eval(source, 1, uniqueName('guard')).catch((err: unknown) => err);
    const guarded = await run(source, [uniqueName('guard')]);
    expect((bare as Error).message).toMatch(/Write commands are not allowed from read-only scripts/);
    expect((guarded as Error).message).toMatch(/Write commands are not allowed from read-only scripts/);
    await stops('#!lua\nwhile true do end');
  });

  it("names the user's own line in its errors", async () => {
    const source = "local a = 1\nfor i = 1, 2 do\n  a = a + i\nend\nreturn redis.call('NOSUCHCOMMAND')";
    const bare = await redis.eval(source, 0).catch((err: unknown) => err);
    const guarded = await run(source);
    expect((bare as Error).message).toMatch(/user_script:5\b/);
    expect((guarded as Error).message).toMatch(/user_script:5\b/);
  });
  it("compiles for every script of swc's own lua/ and of the shipped manifests (stand-ins for a user's)", async () => {
    const fixtures = fileURLToPath(new URL('../../../fixtures/manifests/', import.meta.url));
    const lua = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.lua'))
        .map((f) => path.join(dir, f));
    const files = [...lua(LUA_DIR), ...lua(fixtures)];
    expect(files.length).toBeGreaterThan(20);
    let compiled = 0;
    for (const file of files) {
      const source = (() => {
        try {
          return loadScript({ root: path.dirname(file), file: path.basename(file), includes: file.startsWith(LUA_DIR) ? 'none' : 'stoplight' }).source;
        } catch {
          return readFileSync(file, 'utf8');
        }
      })();
      const bare = await redis.script('LOAD', source).catch(() => null);
      if (bare === null) continue; // a fragment that does not compile on its own
      await redis.script('LOAD', guardSource(source, 250));
      compiled += 1;
    }
    expect(compiled).toBeGreaterThan(20);
  });
});

describe('round 5: what the hand tokenizer missed, and straight-line code', () => {
  it('a loop hidden after a comment that a bare CR ends (Lua ends the comment there) is stopped, and the write before it stays', async () => {
    const key = uniqueName('guard');
    const source = "redis.call('SET', KEYS[1], 'written') -- the comment ends at this CR\rwhile true do end";
    // The plain script really loops (no write, so SCRIPT KILL may end it): the CR is no comment.
    expect(await redis.script('LOAD', source)).toMatch(/^[0-9a-f]{40}$/);
    await stops(source, [key]);
    expect(await redis.get(key)).toBe('written');
    await redis.del(key);
  });

  it('a loop after a string whose backslash escapes a CR LF (one newline to Lua) is stopped', () =>
    stops("local s = 'one\\\r\nwhile true do end -- still the string' while true do end"));

  it('three hundred slow C calls in a row, no loop, stop soon after the budget: the clock is read from the first check, then at each slow call', async () => {
    // Each string.find backtracks over 2,000 characters (tens of ms); 300 of them took seconds unguarded.
    const source = `local s = string.rep('a', 2000)\n${Array.from({ length: 300 }, () => "string.find(s, '.-b')").join('\n')}\nreturn 1`;
    await redis.config('RESETSTAT');
    const reply = await run(source);
    expect((reply as Error).message).toMatch(/^SWCGUARD ran past its budget of 50 ms in one call \(at user_script:(\d+)\)/);
    // Stopped at a line among the first ones, not the last: the budget holds within a few slow calls past it.
    const line = Number(/user_script:(\d+)/.exec((reply as Error).message)?.[1]);
    expect(line).toBeGreaterThan(1);
    expect(line).toBeLessThan(300);
    // One reading per slow call once they are seen to be slow: far fewer readings than calls, at least one per call run.
    expect(await commandCalls(redis, 'time')).toBeGreaterThanOrEqual(line - 2);
  });

  it('a loop of 127 slow steps (once read only from its 64th step) stops before its end', async () => {
    const source = "local s = string.rep('a', 2000) local done = 0 for i = 1, 127 do string.find(s, '.-b') done = i end return done";
    const reply = await run(source);
    expect((reply as Error).message).toMatch(/^SWCGUARD ran past its budget of 50 ms in one call \(at user_script:1\)/);
  });

  it('fast code that ramps the interval up, then slow calls: at most 16 of them run between two readings', async () => {
    const source = `local n = 0 for i = 1, 20000 do n = n + i end\nlocal s = string.rep('a', 2000)\n${Array.from({ length: 300 }, () => "string.find(s, '.-b')").join('\n')}`;
    await redis.config('RESETSTAT');
    const reply = await run(source);
    expect((reply as Error).message).toMatch(/^SWCGUARD ran past its budget/);
    const line = Number(/user_script:(\d+)/.exec((reply as Error).message)?.[1]);
    expect(line).toBeLessThan(300);
  });
});

describe('_G and rawget keep working in a guarded script', () => {
  it('reads, rawget, pairs and missing globals answer as without the guard, errors naming the same line', async () => {
    for (const source of [
      "return {_G.tonumber('5'), type(_G.redis), type(rawget(_G, 'nosuch')), type(rawget(_G, 'string'))}",
      'local n = 0 for k in pairs(_G) do n = n + 1 end return n',
      "local name = 'cjson' return type(_G[name])",
      'local a = 1\nlocal b = _G.nosuch\nreturn b',
      'local a = 1\n_G.created = 1\nreturn 1',
    ]) {
      const bare = await redis.eval(source, 0).catch((err: unknown) => (err as Error).message.replace(/ script: [0-9a-f]{40}.*$/s, ''));
      const guarded = await run(source).then((r) => (r instanceof Error ? r.message.replace(/ script: [0-9a-f]{40}.*$/s, '') : r));
      expect(guarded, source).toEqual(bare);
    }
  });

  it("the guard's own errors name the user's line, never the guard's line 1", async () => {
    const loop = await run('local a = 1\nwhile true do\n  a = a + 1\nend');
    // The loop's lines are 2 to 4 (its body, and the check before its `end`).
    expect((loop as Error).message).toMatch(/^SWCGUARD ran past its budget of 50 ms in one call \(at user_script:[234]\)/);
    const load = await run("local a = 1\nlocal f = loadstring('return 1')\nreturn f()");
    expect((load as Error).message).toMatch(/^SWCGUARD loadstring and load are refused in a guarded script \(at user_script:2\)/);
  });
});

describe('one C call the checks between statements cannot interrupt: weighed before it runs', () => {
  /** The bare and the guarded answer of `source`, errors as their text without the script's SHA1. */
  const both = async (source: string): Promise<[unknown, unknown]> => {
    const text = (r: unknown): unknown => (r instanceof Error ? r.message.replace(/ script: [0-9a-f]{40}.*$/s, '') : r);
    return [text(await redis.eval(source, 0).catch((err: unknown) => err)), text(await run(source))];
  };

  it('a backtracking match (2 s unguarded: no reply at all, not even BUSY) is refused however the function is reached; the write before it stays', async () => {
    const key = uniqueName('guard');
    const find = "string.rep('a', 60), string.rep('.-', 5) .. 'b'";
    for (const reach of [
      `string.find(${find})`,
      `local s = string.rep('a', 60) s:find(string.rep('.-', 5) .. 'b')`,
      `local f = string.match f(${find})`,
      `local _ = (string.rep('a', 60)):gsub(string.rep('.-', 5) .. 'b', '')`,
      `getmetatable('').__index.find(${find})`,
      `_G.string.gmatch(${find})()`,
    ]) {
      const reply = await run(`redis.call('SET', KEYS[1], 'written')\n${reach}\nreturn 1`, [key]);
      expect((reply as Error).message, reach).toMatch(
        /^SWCGUARD string\.\w+ could take [\d.e+]+ pattern-matching steps in one C call, over the 5000000 that fit its budget of 50 ms/,
      );
      expect(await redis.get(key)).toBe('written');
      await redis.del(key);
    }
    expect(await watcher.ping()).toBe('PONG');
  });

  it('string.rep, string.format, string.gsub, table.concat, cjson.encode and cmsgpack.pack building more than 512 KiB are refused before they build it', async () => {
    for (const [source, said] of [
      ["return #string.rep('x', 2 ^ 24)", /^SWCGUARD string\.rep would build 16777216 bytes/],
      ["local s = 'x' return #s:rep(2 ^ 24)", /^SWCGUARD string\.rep would build 16777216 bytes/],
      ["local s = string.rep('x', 2 ^ 19) return #string.format('%s%s%s', s, s, s)", /^SWCGUARD string\.format could build \d+ bytes/],
      ["return #string.gsub(string.rep('x', 2 ^ 18), 'x', '%0%0%0%0')", /^SWCGUARD string\.gsub could build \d+ bytes/],
      ["local s = string.rep('x', 2 ^ 18) return #table.concat({s, s, s, s, s}, ',')", /^SWCGUARD table\.concat would build more than/],
      ["local big = string.rep('y', 2 ^ 16) return #string.gsub(string.rep('x', 100), 'x', {x = big})", /^SWCGUARD string\.gsub built more than/],
      // One 512 KB string held 40 times in a table: 20 MB of JSON or MessagePack from one C call.
      ["local s, t = string.rep('x', 2 ^ 19), {} for i = 1, 40 do t[i] = s end return #cjson.encode(t)", /^SWCGUARD cjson\.encode would build more than/],
      [
        "local s, t = string.rep('x', 2 ^ 19), {} for i = 1, 40 do t[i] = s end local pack = cmsgpack.pack return #pack(t)",
        /^SWCGUARD cmsgpack\.pack would build more than/,
      ],
    ] as const) {
      expect(((await run(source)) as Error).message, source).toMatch(said);
    }
  });

  it('the Lua heap, read at every check, stops a call that grows it past 1 MiB without any one big call', async () => {
    const reply = await run("local s = 'x' for i = 1, 30 do s = s .. s end return #s");
    expect((reply as Error).message).toMatch(
      /^SWCGUARD grew the scripts' Lua heap \(used_memory_lua, which maxmemory does not count\) by \d+ bytes in one call, over the 1048576 bytes/,
    );
  });

  it('everyday uses answer as without the guard, errors with the same text and line', async () => {
    for (const source of [
      "local s = 'k:1:2' local a, b = s:match('^(.-):(.-):') return {a, b, s:find(':', 1, true)}",
      "local t = {'a', 'b'} local s = 'a,b' return table.concat(t, ',') .. select(2, s:gsub(',', ';')) .. s:gsub('%w', function(c) return c:upper() end) .. s:gsub('%w', {a = 'Z'})",
      "return string.format('%s %d %q', 'a', 3, 'x\\n') .. ('ab'):rep(3) .. string.rep('-', 4) .. ('x'):gsub('x', 'y')",
      "local function f() return 'a' end return f():rep(2) .. f() :\n rep (3) .. f():gsub('a', 'b') .. ('ab'):rep'2'",
      "local n = 0 for w in ('one two three'):gmatch('%a+') do n = n + #w end return n",
      "local s = 'x'\nreturn s:rep()",
      'return string.rep()',
      "local s = 'abc'\nreturn s:find('[a')",
      "local s = 'abc'\nreturn s:gsub('b', true)",
      "return cjson.encode({a = 1, b = {'x', 2}}) .. #cmsgpack.pack({1, 2}, 'x') .. cjson.decode('[1,2]')[2]",
      'local a = 1\nreturn cjson.encode(function() end)',
    ]) {
      const [bare, guarded] = await both(source);
      expect(guarded, source).toEqual(bare);
    }
  });
});
