import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptError } from '../../../src/core/errors.js';
import { injectedTimeArg, loadScript, withInjectedClock, type LuaScript } from '../../../src/lua/source.js';
import { installScripts, runScript } from '../../../src/redis/scripts.js';
import { testRedis, uniqueName } from '../../helpers.js';

// A script written for the server's clock: it reads TIME once, writes what
// it read together with its KEYS and ARGV (so a changed ARGV shows), and
// returns the time. Nothing in it knows about swc.
const TIME_SCRIPT = `-- KEYS[1] hash, KEYS[2] sorted set; ARGV[1] label, ARGV[2] ttl in ms
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], 'label', ARGV[1], 'argc', #ARGV, 'last', tostring(ARGV[#ARGV]),
  'sec', t[1], 'usec', t[2], 'ms', t[1] * 1000 + math.floor(t[2] / 1000))
redis.call('ZADD', KEYS[2], t[1] + t[2] / 1000000, ARGV[1] .. ':' .. t[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return { t[1], t[2] }
`;

let redis: Redis;
let dir: string;
let plain: LuaScript;
let wrapped: LuaScript;
beforeAll(async () => {
  redis = await testRedis();
  dir = mkdtempSync(path.join(tmpdir(), 'swc-clock-'));
  writeFileSync(path.join(dir, 'stamp.lua'), TIME_SCRIPT);
  writeFileSync(
    path.join(dir, 'probe.lua'),
    [
      '-- KEYS none; ARGV[1..n] echoed back',
      "local lower = redis.pcall('time')",
      "local upper = redis.call('TIME')",
      "redis.log(redis.LOG_DEBUG, 'probe')",
      "return { lower[1], lower[2], upper[1], upper[2], #ARGV, ARGV[1] or '', ARGV[#ARGV] or '', redis.sha1hex('') }",
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'broken.lua'), "-- line 1\nlocal x = 1\nlocal y = redis.call('INCRBY', KEYS[1], 'not-a-number')\nreturn y\n");
  plain = loadScript({ root: dir, file: 'stamp.lua', includes: 'none' });
  wrapped = withInjectedClock(plain);
  await installScripts(redis, [plain, wrapped]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function contents(hash: string, zset: string): Promise<{ hash: Record<string, string>; zset: string[]; dumpHash: Buffer | null }> {
  return {
    hash: await redis.hgetall(hash),
    zset: await redis.zrange(zset, 0, -1, 'WITHSCORES'),
    dumpHash: await redis.dumpBuffer(hash),
  };
}

describe('a script that reads TIME, wrapped for an injected clock', () => {
  it('writes exactly what the unwrapped script writes when the injected time is the server time', async () => {
    const base = uniqueName('clock');
    const args = ['checkout', 600_000];
    // The unwrapped run reads the server clock and says what it read; the
    // wrapped run gets that very moment injected, into its own keys.
    const [sec, usec] = (await runScript(redis, { script: plain, keys: [`${base}:a:h`, `${base}:a:z`], args })) as [number, number];
    const at = Number(sec) + Number(usec) / 1_000_000;
    const reply = await runScript(redis, {
      script: wrapped,
      keys: [`${base}:b:h`, `${base}:b:z`],
      args: [...args, injectedTimeArg(at)],
    });
    expect(reply).toEqual([sec, usec]);
    const a = await contents(`${base}:a:h`, `${base}:a:z`);
    const b = await contents(`${base}:b:h`, `${base}:b:z`);
    expect(b.hash).toEqual(a.hash);
    expect(b.hash.argc).toBe('2');
    expect(b.hash.last).toBe('600000');
    expect(b.zset).toEqual(a.zset);
    expect(b.dumpHash?.equals(a.dumpHash as Buffer)).toBe(true);
    expect(await redis.pttl(`${base}:b:h`)).toBeGreaterThan(500_000);
  });

  it('an injected time in the past is what the script sees, and an empty one passes the server clock through', async () => {
    const base = uniqueName('clock');
    const past = 1_764_450_000.25;
    const reply = await runScript(redis, { script: wrapped, keys: [`${base}:h`, `${base}:z`], args: ['x', 600_000, injectedTimeArg(past)] });
    expect(reply).toEqual(['1764450000', '250000']);
    expect(await redis.hget(`${base}:h`, 'ms')).toBe('1764450000250');
    const [serverSec] = await redis.time();
    const live = (await runScript(redis, { script: wrapped, keys: [`${base}:h2`, `${base}:z2`], args: ['x', 600_000, ''] })) as string[];
    expect(Math.abs(Number(live[0]) - Number(serverSec))).toBeLessThanOrEqual(5);
    expect(await redis.hget(`${base}:h2`, 'argc')).toBe('2');
  });

  it('answers TIME from call and pcall in any case, and passes other redis fields through', async () => {
    const probe = withInjectedClock(loadScript({ root: dir, file: 'probe.lua', includes: 'none' }));
    await installScripts(redis, [probe]);
    const reply = await runScript(redis, { script: probe, keys: [], args: ['first', 'second', injectedTimeArg(1_700_000_000.000001)] });
    expect(reply).toEqual(['1700000000', '1', '1700000000', '1', 2, 'first', 'second', 'da39a3ee5e6b4b0d3255bfef95601890afd80709']);
  });

  it('names the original file and line in an error from the wrapped body', async () => {
    const broken = withInjectedClock(loadScript({ root: dir, file: 'broken.lua', includes: 'none' }));
    await installScripts(redis, [broken]);
    const error = await runScript(redis, { script: broken, keys: [uniqueName('broken')], args: [injectedTimeArg(1)] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as Error).message).toContain(`${path.join(dir, 'broken.lua')}:3`);
  });
});

describe('the injected time argument', () => {
  it('is whole microseconds, never carried into the next second by rounding, and empty for the server clock', () => {
    expect(injectedTimeArg(1_764_450_000.25)).toBe('1764450000250000');
    // eslint-disable-next-line no-loss-of-precision -- the nearest double is the point: it must not round up into the next second
    expect(injectedTimeArg(1_764_450_000.9999997)).toBe('1764450000999999');
    expect(injectedTimeArg(1_764_450_001)).toBe('1764450001000000');
    expect(injectedTimeArg(undefined)).toBe('');
  });
});
