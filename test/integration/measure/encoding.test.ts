import { afterAll, describe, expect, it } from 'vitest';
import { measureKeys } from '../../../src/measure/memory.js';
import { withLongestParts } from '../../../src/measure/encoding.js';
import { causesOf } from '../../../src/measure/encoding-advice.js';
import { testRedis, uniqueName } from '../../helpers.js';

const redis = await testRedis();
const created: string[] = [];
afterAll(async () => {
  if (created.length > 0) await redis.del(...created);
});
const key = (label: string): string => {
  const k = `swc-test:${uniqueName(label)}`;
  created.push(k);
  return k;
};

describe("withLongestParts: what decides a key's encoding, read while it exists", () => {
  it('a hash with one long value: hashtable, its longest value named with its exact byte length', async () => {
    const k = key('hash');
    await redis.hset(k, 'a', '1', 'last_error_json', 'é'.repeat(50), 'b', 'x'.repeat(10));
    const [measured] = await withLongestParts(redis, await measureKeys(redis, [{ key: k, role: 'metadata' }]));
    expect(measured?.encoding).toBe('hashtable');
    // 50 × 'é' is 100 bytes in UTF-8: the limit counts bytes.
    expect(measured?.longest).toEqual({ name: { text: 'last_error_json', bytes: 15 }, value: { field: 'last_error_json', bytes: 100 } });
    const config = { 'hash-max-listpack-entries': 512, 'hash-max-listpack-value': 64 };
    expect(causesOf(measured!, config)).toEqual([{ kind: 'value', setting: 'hash-max-listpack-value', limit: 64, actual: 100, name: 'last_error_json' }]);
  });

  it('a hash past the entry limit, and a sorted set past its member limit', async () => {
    const h = key('many');
    await redis.hset(h, Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}`, '1'])));
    const z = key('zset');
    await redis.zadd(z, 1, 'm'.repeat(80), 2, 'short');
    const [hash, zset] = await withLongestParts(
      redis,
      await measureKeys(redis, [
        { key: h, role: 'buckets' },
        { key: z, role: 'events' },
      ]),
    );
    expect(hash?.encoding).toBe('hashtable');
    expect(causesOf(hash!, { 'hash-max-listpack-entries': 512, 'hash-max-listpack-value': 64 })).toEqual([
      { kind: 'entries', setting: 'hash-max-listpack-entries', limit: 512, actual: 600 },
    ]);
    expect(zset?.encoding).toBe('skiplist');
    expect(zset?.longest).toEqual({ name: { text: 'm'.repeat(64), bytes: 80 } });
    expect(causesOf(zset!, { 'zset-max-listpack-entries': 128, 'zset-max-listpack-value': 64 })).toEqual([
      { kind: 'member', setting: 'zset-max-listpack-value', limit: 64, actual: 80, name: 'm'.repeat(64) },
    ]);
  });

  it('a listpack key is left as measured (nothing to explain)', async () => {
    const k = key('small');
    await redis.hset(k, 'a', '1');
    const [measured] = await withLongestParts(redis, await measureKeys(redis, [{ key: k, role: 'metadata' }]));
    expect(measured?.encoding).toBe('listpack');
    expect(measured?.longest).toBeUndefined();
    expect(causesOf(measured!, { 'hash-max-listpack-entries': 512, 'hash-max-listpack-value': 64 })).toBeUndefined();
  });
});
