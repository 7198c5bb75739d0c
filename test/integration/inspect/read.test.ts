import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/core/errors.js';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights } from '../../../src/inspect/list.js';
import type { BucketInspection, EventInspection } from '../../../src/layouts/inspection.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { shortId, StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { keySlot } from '../../../src/redis/slot.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const v5 = new StoplightV5();
const v6 = new StoplightV6();

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

async function only<T>(promise: Promise<unknown[]>): Promise<T> {
  const list = await promise;
  expect(list).toHaveLength(1);
  return list[0] as T;
}

describe('inspect a 6.0 light', () => {
  it('reads what the layout Lua wrote: buckets, totals, stale marks, drift ok, one slot', async () => {
    const name = uniqueName('v6');
    const client = await LayoutClient.open(redis, v6);
    // Seconds 0..9: second s gets s successes; a failure at 3 and 8.
    for (let s = 0; s < 10; s += 1) {
      for (let k = 0; k < s; k += 1) await client.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 100 });
      if (s === 3 || s === 8) await client.recordFailure({ name }, { at: HOUR_START + s, windowSeconds: 100, errorJson: ERROR_JSON });
    }
    const result = await only<BucketInspection>(inspectLight(redis, { light: name, layout: 'auto', windowSeconds: 5, at: HOUR_START + 9 }));
    expect(result.layout).toBe('stoplight-v6');
    expect(result.lightId).toBe(shortId(name));
    expect(result.keys.map((k) => [k.key, k.type])).toEqual([
      [v6.metricsKey({ name }), 'hash'],
      [v6.indexKey({ name }), 'zset'],
    ]);
    expect(new Set(result.keys.map((k) => k.slot))).toEqual(new Set([keySlot(`{${shortId(name)}}`)]));
    expect(result.keys[0]?.ttlSeconds).toBeGreaterThan(604_800 - 10);
    // totals: every bucket held; storedTotals: the hash's running totals (equal, no drift).
    expect(result.totals).toEqual({ successes: 45, failures: 2 });
    expect(result.storedTotals).toEqual({ successes: 45, failures: 2 });
    // (9 - 5, 9]: seconds 5..9 are in the window.
    expect(result.windowTotals).toEqual({ successes: 5 + 6 + 7 + 8 + 9, failures: 1 });
    // Second 0 saw no event, so it has no bucket.
    expect(result.buckets.map((b) => b.second - HOUR_START)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result.buckets.filter((b) => b.stale).map((b) => b.second - HOUR_START)).toEqual([1, 2, 3, 4]);
    expect(result.buckets[2]).toMatchObject({ second: HOUR_START + 3, successes: 3, failures: 1, ageSeconds: 6 });
    expect(result.drift.ok).toBe(true);
    expect(result.metadata.lastError).toEqual(JSON.parse(ERROR_JSON));
    expect(result.metadata.fields.consecutive_successes).toBe('9');
    expect(result.keys[0]?.limits).toMatchObject({ longestBytes: Buffer.byteLength(ERROR_JSON), longest: 'value of last_error_json' });
    expect(result.summary.errorRate).toBeCloseTo(1 / 36);
    expect(result.consistent).toBe(true);
  });

  it('without a window (6.0 stores none), marks nothing stale and claims no window totals or error rate', async () => {
    const name = uniqueName('v6');
    const client = await LayoutClient.open(redis, v6);
    await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 1000 });
    await client.recordSuccess({ name }, { at: HOUR_START + 500, windowSeconds: 1000 });
    const result = await only<BucketInspection>(inspectLight(redis, { light: name, at: HOUR_START + 900 }));
    expect(result.window.lengthSeconds).toBeNull();
    expect(result.buckets.map((b) => b.stale)).toEqual([false, false]);
    expect(result.totals).toEqual({ successes: 2, failures: 0 });
    expect(result.windowTotals).toBeNull();
    expect(result.summary.errorRate).toBeNull();
  });

  it('reads keys written directly in the documented shape and lists every drift', async () => {
    const name = uniqueName('v6-direct');
    const hash = v6.metricsKey({ name });
    const index = v6.indexKey({ name });
    const t = HOUR_START;
    await redis.hset(hash, {
      [`bucket:${t}:s`]: '4',
      [`bucket:${t}:f`]: '1',
      [`bucket:${t + 1}:s`]: '2',
      [`bucket:${t + 2}:f`]: '3', // not indexed
      total_successes: '7', // the buckets hold 6
      total_failures: '4',
      last_error_json: 'not json',
    });
    await redis.zadd(index, t, `bucket:${t}`, t + 1, `bucket:${t + 1}`, t + 5, `bucket:${t + 5}`, t + 6, 'bucket:12');
    const result = await only<BucketInspection>(inspectLight(redis, { light: name, at: t + 10 }));
    expect(result.buckets.map((b) => [b.second - t, b.successes, b.failures])).toEqual([
      [0, 4, 1],
      [1, 2, 0],
      [2, 0, 3],
    ]);
    expect(result.drift).toMatchObject({
      ok: false,
      totalsOk: false,
      bucketSum: { successes: 6, failures: 4 },
      indexWithoutBucket: [t + 5],
      bucketWithoutIndex: [t + 2],
      badIndexMembers: [`bucket:12 (score ${t + 6})`],
    });
    expect(result.totals).toEqual({ successes: 6, failures: 4 });
    expect(result.storedTotals).toEqual({ successes: 7, failures: 4 });
    expect(result.metadata).toMatchObject({ lastError: null, lastErrorInvalid: true });
  });

  it('accepts the 12-hex light id and a full key, and honours --system', async () => {
    const name = uniqueName('v6');
    const client = await LayoutClient.open(redis, v6);
    const light = { name, system: 'payments' };
    await client.recordSuccess(light, { at: HOUR_START, windowSeconds: 60 });
    const byId = await only<BucketInspection>(inspectLight(redis, { light: shortId(name), system: 'payments' }));
    const byKey = await only<BucketInspection>(inspectLight(redis, { light: v6.indexKey(light) }));
    const byName = await only<BucketInspection>(inspectLight(redis, { light: name, system: 'payments' }));
    for (const result of [byId, byKey, byName]) {
      expect(result.keys[0]?.key).toBe(v6.metricsKey(light));
      expect(result.totals.successes).toBe(1);
    }
    // Without --system, a name or light id is found in whichever system holds it.
    const anySystem = await only<BucketInspection>(inspectLight(redis, { light: name }));
    expect(anySystem.systemId).toBe(shortId('payments'));
    const pair = await only<BucketInspection>(inspectLight(redis, { light: `${shortId('payments')}/${shortId(name)}` }));
    const bySystemId = await only<BucketInspection>(inspectLight(redis, { light: name, system: shortId('payments') }));
    for (const result of [pair, bySystemId]) expect(result.keys[0]?.key).toBe(v6.metricsKey(light));
    await expect(inspectLight(redis, { light: name, system: 'other' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a light id held in two systems asks which one', async () => {
    const name = uniqueName('v6-twice');
    const client = await LayoutClient.open(redis, v6);
    for (const system of ['a', 'b']) await client.recordSuccess({ name, system }, { at: HOUR_START, windowSeconds: 60 });
    await expect(inspectLight(redis, { light: shortId(name) })).rejects.toThrow(
      `light id ${shortId(name)} is in 2 systems: ${[shortId('a'), shortId('b')].sort().join(', ')}; give --system <name or id>, or <system>/${shortId(name)}`,
    );
  });
});

describe('inspect a 5.x light', () => {
  it('reads what the layout Lua wrote: hour keys, seconds, window totals, metadata', async () => {
    const name = uniqueName('v5');
    const client = await LayoutClient.open(redis, v5);
    // Across an hour boundary: successes at 3598, 3599, 3600 (x2); a failure at 3601.
    for (const s of [3598, 3599, 3600, 3600]) await client.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 3601, windowSeconds: 60, errorJson: ERROR_JSON });
    const result = await only<EventInspection>(inspectLight(redis, { light: name, layout: 'stoplight-v5', windowSeconds: 2, at: HOUR_START + 3601 }));
    expect(result.keys.map((k) => k.key)).toEqual([
      v5.metadataKey({ name }),
      v5.eventsKey({ name }, 'success', HOUR_START),
      v5.eventsKey({ name }, 'failure', HOUR_START + 3600),
      v5.eventsKey({ name }, 'success', HOUR_START + 3600),
    ]);
    expect(result.hours.map((h) => [h.outcome, h.events, h.firstSecond, h.lastSecond])).toEqual([
      ['success', 2, HOUR_START + 3598, HOUR_START + 3599],
      ['failure', 1, HOUR_START + 3601, HOUR_START + 3601],
      ['success', 2, HOUR_START + 3600, HOUR_START + 3600],
    ]);
    // Closed window [3599, 3601]; totals are every event held.
    expect(result.windowTotals).toEqual({ successes: 3, failures: 1 });
    expect(result.totals).toEqual({ successes: 4, failures: 1 });
    expect(result.seconds.map((s) => [s.second - HOUR_START, s.successes, s.failures, s.stale])).toEqual([
      [3598, 1, 0, true],
      [3599, 1, 0, false],
      [3600, 2, 0, false],
      [3601, 0, 1, false],
    ]);
    expect(result.metadata.lastError).toEqual(JSON.parse(ERROR_JSON));
    // Same as the layout's own read.
    const snapshot = await client.getMetrics({ name }, { at: HOUR_START + 3601, windowSeconds: 2 });
    expect(result.windowTotals).toEqual({ successes: snapshot.successes, failures: snapshot.failures });
  });

  it('reads directly written keys, keeps a:b apart from a, and starts at recovered_at', async () => {
    const name = uniqueName('v5-direct');
    const t = HOUR_START;
    await redis.zadd(`stoplight:v5:metrics:${name}:success:${t}`, t + 10, 'a'.repeat(24), t + 20, 'b'.repeat(24), t + 30, 'c'.repeat(24));
    await redis.zadd(`stoplight:v5:metrics:${name}:failure:${t}`, t + 25, 'd'.repeat(24));
    await redis.zadd(`stoplight:v5:metrics:${name}:other:success:${t}`, t + 30, 'e'.repeat(24));
    await redis.hset(`stoplight:v5:metadata:${name}`, 'recovered_at', String(t + 15));
    const result = await only<EventInspection>(inspectLight(redis, { light: name, windowSeconds: 60, at: t + 30 }));
    expect(result.keys).toHaveLength(3);
    expect(result.recoveredAt).toBe(t + 15);
    expect(result.windowTotals).toEqual({ successes: 2, failures: 1 });
    const other = await only<EventInspection>(inspectLight(redis, { light: `${name}:other`, windowSeconds: 60, at: t + 30 }));
    expect(other.windowTotals).toEqual({ successes: 1, failures: 0 });
    const byKey = await only<EventInspection>(inspectLight(redis, { light: `stoplight:v5:metrics:${name}:failure:${t}` }));
    expect(byKey.keys).toHaveLength(3);
  });

  it('reads a key larger than one page, in pages, and counts every event', async () => {
    const name = uniqueName('v5-big');
    const key = v5.eventsKey({ name }, 'success', HOUR_START);
    const args: (string | number)[] = [];
    for (let i = 0; i < 2500; i += 1) args.push(HOUR_START + (i % 100), i.toString(16).padStart(24, '0'));
    await redis.zadd(key, ...args);
    const result = await only<EventInspection>(inspectLight(redis, { light: name, windowSeconds: 3600, at: HOUR_START + 99 }));
    expect(result.keys[0]).toMatchObject({ elements: 2500, encoding: 'skiplist', bytesExact: true });
    expect(result.totals.successes).toBe(2500);
    expect(result.seconds).toHaveLength(100);
    expect(result.seconds.every((s) => s.successes === 25)).toBe(true);
  });
});

describe('inspect, both layouts and failures', () => {
  it('returns 5.x then 6.0 when both have keys, and only 6.0 with --layout stoplight-v6', async () => {
    const name = uniqueName('both');
    for (const layout of [v5, v6]) {
      const client = await LayoutClient.open(redis, layout);
      await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
    }
    const results = await inspectLight(redis, { light: name, at: HOUR_START });
    expect(results.map((r) => r.layout)).toEqual(['stoplight-v5', 'stoplight-v6']);
    const v6Only = await inspectLight(redis, { light: name, layout: 'stoplight-v6', at: HOUR_START });
    expect(v6Only.map((r) => r.layout)).toEqual(['stoplight-v6']);
  });

  it('a light with no keys is a NotFoundError naming the keys it looked for', async () => {
    const name = uniqueName('missing');
    await expect(inspectLight(redis, { light: name })).rejects.toThrow(new RegExp(`light "${name}" not found: no key stoplight:v5:metadata:${name}`));
  });

  it('a key of the wrong type is described, not read, and named in problems', async () => {
    const name = uniqueName('wrong');
    await redis.set(v6.metricsKey({ name }), 'surprise');
    await redis.zadd(v6.indexKey({ name }), HOUR_START, `bucket:${HOUR_START}`);
    const result = await only<BucketInspection>(inspectLight(redis, { light: name, at: HOUR_START }));
    expect(result.keys[0]).toMatchObject({ type: 'string', wrongType: true, elements: null, limits: null });
    expect(result.problems).toEqual([expect.stringContaining('is a string, expected a hash')]);
    expect(result.drift.indexWithoutBucket).toEqual([HOUR_START]);
  });
});

describe('inspect --list', () => {
  it('finds lights of both layouts with key counts, exact bytes and span, largest first', async () => {
    const name = uniqueName('list');
    const c5 = await LayoutClient.open(redis, v5);
    const c6 = await LayoutClient.open(redis, v6);
    for (let s = 0; s < 200; s += 1) {
      await c5.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 600 });
      await c6.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 600 });
    }
    await c5.recordFailure({ name }, { at: HOUR_START + 3600, windowSeconds: 600, errorJson: ERROR_JSON });
    const { lights: listings } = await listLights(redis);
    const mine5 = listings.find((l) => l.layout === 'stoplight-v5' && l.light === name);
    const mine6 = listings.find((l) => l.layout === 'stoplight-v6' && l.light === shortId(name));
    expect(mine5).toMatchObject({ keys: 3, systemId: null, firstSecond: HOUR_START, lastSecond: HOUR_START + 3600, spanSeconds: 3601 });
    expect(mine6).toMatchObject({ keys: 2, systemId: shortId('default'), firstSecond: HOUR_START, lastSecond: HOUR_START + 199 });
    const exact = async (key: string): Promise<number> => Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    expect(mine6?.bytes).toBe((await exact(v6.metricsKey({ name }))) + (await exact(v6.indexKey({ name }))));
    const bytes = listings.map((l) => l.bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => (b ?? 0) - (a ?? 0)));
  });
});
