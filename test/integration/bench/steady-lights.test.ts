import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { COPIES_HEADROOM, measureSteadyKeys, PRESET_STEADY_LIGHTS, SKIPLIST_NODE_SD_BYTES, steadyLightCount } from '../../../src/bench/steady-lights.js';
import { connect } from '../../../src/redis/connect.js';
import { copiesUsage, copyNameOf, measureKeys } from '../../../src/measure/memory.js';
import { redisUrl, testRedis, uniqueName } from '../../helpers.js';

const redis = await testRedis();
const created: string[] = [];
afterAll(async () => {
  if (created.length > 0) await redis.del(...created);
});
const key = (label: string): string => {
  const k = `swc-test:${uniqueName(label)}:index`;
  created.push(k);
  return k;
};

/** A sorted set of `members` members (a skiplist past 128), added in one go as a layout's writes would add them. */
async function zsetOf(k: string, members: number, from = 0): Promise<void> {
  const args: (string | number)[] = [];
  for (let i = from; i < from + members; i += 1) args.push(1_764_450_000 + i, `${1_764_450_000 + i}`);
  await redis.zadd(k, ...args);
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('copiesUsage: MEMORY USAGE of server-side copies of a key, each drawing its skiplist levels anew', () => {
  it('copies vary around the key, under a name of the same length, and none is left behind', async () => {
    const k = key('copies');
    await zsetOf(k, 300);
    const [own] = await measureKeys(redis, [{ key: k, role: 'index' }]);
    expect(own?.encoding).toBe('skiplist');
    const usages = (await copiesUsage(redis, k, 60)) as number[];
    expect(usages).toHaveLength(60);
    // Fresh levels: the copies do not all measure alike (60 equal draws of 300 levels would be a broken COPY).
    expect(new Set(usages).size).toBeGreaterThan(5);
    const sd = SKIPLIST_NODE_SD_BYTES * Math.sqrt(300);
    // The key's own reading is one more draw of the same thing: within 5 standard deviations of the copies' mean.
    expect(Math.abs((own?.bytes ?? 0) - mean(usages))).toBeLessThan(5 * sd);
    const name = copyNameOf(k) as string;
    expect(name).toHaveLength(k.length);
    expect(name).not.toBe(k);
    expect(await redis.exists(name)).toBe(0);
  });

  it('two keys of the same members, 800 copies each: their means agree within 0.15%, where single readings spread by about 0.65%', async () => {
    const [a, b] = [key('a'), key('b')];
    await zsetOf(a, 180);
    await zsetOf(b, 180);
    const [ua, ub] = [(await copiesUsage(redis, a, 800)) as number[], (await copiesUsage(redis, b, 800)) as number[]];
    // Each mean's spread: 11 × √180 / √800 ≈ 5 bytes of about 22,600 (0.023%); the difference's, 0.033%.
    expect(Math.abs(mean(ua) / mean(ub) - 1)).toBeLessThan(0.0015);
  });

  it('a name already taken: no copies, and the key under that name is left as it was', async () => {
    const k = key('taken');
    await zsetOf(k, 200);
    const other = copyNameOf(k) as string;
    created.push(other);
    await redis.set(other, 'keep');
    expect(await copiesUsage(redis, k, 3)).toBeNull();
    expect(await redis.get(other)).toBe('keep');
  });

  it('a user without COPY: null, so the caller fills more lights instead', async () => {
    const user = uniqueName('nocopy');
    await redis.call('ACL', 'SETUSER', user, 'on', '>pw', '~*', '+@all', '-copy');
    let client: Redis | undefined;
    try {
      client = await connect(redisUrl().replace('redis://', `redis://${user}:pw@`));
      const k = key('nocopy');
      await zsetOf(k, 200);
      expect(await copiesUsage(client, k, 3)).toBeNull();
      const keys = await measureSteadyKeys(client, [{ key: k, role: 'index' }], PRESET_STEADY_LIGHTS);
      expect(keys[0]?.copies).toBeUndefined();
      expect(steadyLightCount(keys, keys[0]?.bytes ?? 0, 1, PRESET_STEADY_LIGHTS)).toBeGreaterThan(1);
    } finally {
      client?.disconnect();
      await redis.call('ACL', 'DELUSER', user);
    }
  });
});

describe('measureSteadyKeys: a light measured steady by copies where they stand for its keys', () => {
  it('a skiplist: averaged over as many copies as the target asks, so the light needs no more lights', async () => {
    const k = key('steady');
    await zsetOf(k, 180);
    const [plain] = await measureKeys(redis, [{ key: k, role: 'index' }]);
    const [steady] = await measureSteadyKeys(redis, [{ key: k, role: 'index' }], PRESET_STEADY_LIGHTS);
    // The copies the target asks for: the lights the extra-lights way would fill, less the key itself.
    const readings = steadyLightCount([plain!], plain!.bytes, 1, { relativeSd: PRESET_STEADY_LIGHTS.relativeSd * COPIES_HEADROOM, maxLights: 256 });
    expect(steady?.copies).toBe(readings - 1);
    expect(steady?.copies).toBeGreaterThan(1);
    expect(Number.isInteger(steady?.bytes)).toBe(true);
    expect(steadyLightCount([steady!], steady!.bytes, 1, PRESET_STEADY_LIGHTS)).toBe(1);
    // Without a target: the key alone, as before.
    const [alone] = await measureSteadyKeys(redis, [{ key: k, role: 'index' }], undefined);
    expect(alone?.copies).toBeUndefined();
  });

  it('a sorted set that lost most of its members keeps a larger dict than a copy makes: its own reading, no copies', async () => {
    const k = key('trimmed');
    await zsetOf(k, 1000);
    // 300 of 1000 left: the dict keeps its 1024 slots (29% full is no shrink), a copy sizes it to 512.
    await redis.zremrangebyrank(k, 0, 699);
    const [steady] = await measureSteadyKeys(redis, [{ key: k, role: 'index' }], PRESET_STEADY_LIGHTS);
    expect(steady?.elements).toBe(300);
    expect(steady?.copies).toBeUndefined();
    const usages = (await copiesUsage(redis, k, 5)) as number[];
    // The difference is the dict's 512 slots of 8 bytes, far past the levels' spread.
    expect((steady?.bytes ?? 0) - mean(usages)).toBeGreaterThan(3000);
  });

  it('listpacks and hashtables are measured once: they repeat to the byte', async () => {
    const h = `swc-test:${uniqueName('hash')}:metrics`;
    created.push(h);
    await redis.hset(h, Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}`, String(i)])));
    const [measured] = await measureSteadyKeys(redis, [{ key: h, role: 'metrics' }], PRESET_STEADY_LIGHTS);
    expect(measured?.encoding).toBe('hashtable');
    expect(measured?.copies).toBeUndefined();
  });
});
