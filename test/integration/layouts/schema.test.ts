import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { createLayout, layoutNames } from '../../../src/layouts/index.js';
import { installScripts, runScript } from '../../../src/redis/scripts.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { keySlot } from '../../../src/redis/slot.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

describe('stoplight-v5 keys', () => {
  it('writes the documented keys, members, fields and TTLs', async () => {
    const layout = new StoplightV5();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('v5');
    const t = HOUR_START + 3599.5; // last second of the hour
    await client.recordSuccess({ name }, { at: t, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: t + 1, windowSeconds: 60, errorJson: ERROR_JSON });

    const meta = `stoplight:v5:metadata:${name}`;
    const success = `stoplight:v5:metrics:${name}:success:${HOUR_START}`;
    const failure = `stoplight:v5:metrics:${name}:failure:${HOUR_START + 3600}`;
    expect(await redis.type(meta)).toBe('hash');
    expect(await redis.type(success)).toBe('zset');
    expect(await redis.type(failure)).toBe('zset');

    const [member, score] = await redis.zrange(success, 0, -1, 'WITHSCORES');
    expect(member).toMatch(/^[0-9a-f]{24}$/);
    expect(score).toBe(String(HOUR_START + 3599));
    expect(await redis.zrange(failure, 0, -1, 'WITHSCORES')).toEqual([expect.stringMatching(/^[0-9a-f]{24}$/), String(HOUR_START + 3600)]);

    expect(await redis.hgetall(meta)).toEqual({
      last_success_at: String(HOUR_START + 3599),
      last_error_at: String(HOUR_START + 3600),
      last_error_json: ERROR_JSON,
      consecutive_errors: '1',
      consecutive_successes: '0',
    });
    const ttl = (key: string): Promise<number> => redis.ttl(key);
    expect(await ttl(success)).toBeGreaterThan(86_400 - 5);
    expect(await ttl(success)).toBeLessThanOrEqual(86_400);
    expect(await ttl(meta)).toBeGreaterThan(604_800 - 5);
    expect(await ttl(meta)).toBeLessThanOrEqual(604_800);
  });

  it('keeps an older error out of last_error_json', async () => {
    const client = await LayoutClient.open(redis, new StoplightV5());
    const name = uniqueName('v5');
    await client.recordFailure({ name }, { at: HOUR_START + 10, windowSeconds: 60, errorJson: '{"new":1}' });
    await client.recordFailure({ name }, { at: HOUR_START + 5, windowSeconds: 60, errorJson: '{"old":1}' });
    const snapshot = await client.getMetrics({ name }, { at: HOUR_START + 10, windowSeconds: 60 });
    expect(snapshot).toMatchObject({ failures: 2, lastErrorAt: HOUR_START + 10, lastErrorJson: '{"new":1}', consecutiveErrors: 2 });
  });

  it('starts the window at recovered_at when that is later', async () => {
    const layout = new StoplightV5();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('v5');
    for (let s = 0; s < 10; s += 1) await client.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 60 });
    await redis.hset(layout.metadataKey({ name }), 'recovered_at', HOUR_START + 6);
    const snapshot = await client.getMetrics({ name }, { at: HOUR_START + 9, windowSeconds: 60 });
    expect(snapshot.successes).toBe(4); // seconds 6, 7, 8, 9
  });

  it('moves to skiplist encoding past zset-max-listpack-entries', async () => {
    const client = await LayoutClient.open(redis, new StoplightV5());
    const name = uniqueName('v5');
    const limit = Number(((await redis.call('CONFIG', 'GET', 'zset-max-listpack-entries')) as string[])[1]);
    const key = `stoplight:v5:metrics:${name}:success:${HOUR_START}`;
    for (let i = 0; i < limit; i += 1) await client.recordSuccess({ name }, { at: HOUR_START + i, windowSeconds: 60 });
    expect(await redis.object('ENCODING', key)).toBe('listpack');
    await client.recordSuccess({ name }, { at: HOUR_START + limit, windowSeconds: 60 });
    expect(await redis.object('ENCODING', key)).toBe('skiplist');
  });
});

describe('stoplight-v6 keys', () => {
  it('writes the documented keys (SHA-256 ids, hash tag), fields, index and TTLs', async () => {
    const client = await LayoutClient.open(redis, new StoplightV6());
    // Light "payments-api" in system "billing": ids are the first 12 hex of SHA-256.
    const base = 'stoplight:v6:0c95c7ece1ce:{682a1c47a1d3}';
    const metrics = `${base}:window_metrics`;
    const index = `${metrics}:ts_idx`;
    await redis.del(metrics, index);
    const light = { name: 'payments-api', system: 'billing' };
    await client.recordSuccess(light, { at: HOUR_START + 0.25, windowSeconds: 60 });
    await client.recordSuccess(light, { at: HOUR_START + 0.75, windowSeconds: 60 });
    const snapshot = await client.recordFailure(light, { at: HOUR_START + 1.5, windowSeconds: 60, errorJson: ERROR_JSON });
    expect(snapshot).toEqual({
      successes: 2,
      failures: 1,
      consecutiveSuccesses: 0,
      consecutiveErrors: 1,
      // 6.0 stamps keep the milliseconds.
      lastSuccessAt: HOUR_START + 0.75,
      lastErrorAt: HOUR_START + 1.5,
      lastErrorJson: ERROR_JSON,
    });

    expect(await redis.type(metrics)).toBe('hash');
    expect(await redis.type(index)).toBe('zset');
    expect(await redis.hgetall(metrics)).toEqual({
      [`bucket:${HOUR_START}:s`]: '2',
      [`bucket:${HOUR_START + 1}:f`]: '1',
      total_successes: '2',
      total_failures: '1',
      last_success_at: String(HOUR_START + 0.75),
      last_error_at: String(HOUR_START + 1.5),
      last_error_json: ERROR_JSON,
      consecutive_errors: '1',
      consecutive_successes: '0',
    });
    expect(await redis.zrange(index, 0, -1, 'WITHSCORES')).toEqual([
      `bucket:${HOUR_START}`,
      String(HOUR_START),
      `bucket:${HOUR_START + 1}`,
      String(HOUR_START + 1),
    ]);
    for (const key of [metrics, index]) {
      expect(await redis.ttl(key)).toBeGreaterThan(604_800 - 5);
      expect(await redis.ttl(key)).toBeLessThanOrEqual(604_800);
    }
    // An error JSON over 64 bytes turns the hash into a hashtable; the small index stays a listpack.
    expect(ERROR_JSON.length).toBeGreaterThan(64);
    expect(await redis.object('ENCODING', metrics)).toBe('hashtable');
    expect(await redis.object('ENCODING', index)).toBe('listpack');
    // Both keys hash to one slot thanks to the {light} tag.
    expect(keySlot(metrics)).toBe(keySlot(index));
    expect(keySlot(metrics)).toBe(keySlot('682a1c47a1d3'));
  });

  it('uses system "default" when none is given', () => {
    const layout = new StoplightV6();
    expect(layout.metricsKey({ name: 'payments-api' })).toBe('stoplight:v6:37a8eec1ce19:{682a1c47a1d3}:window_metrics');
  });

  it('a read evicts: the window is (now - W, now]', async () => {
    const client = await LayoutClient.open(redis, new StoplightV6());
    const layout = client.layout as StoplightV6;
    const light = { name: uniqueName('v6') };
    for (let s = 0; s < 10; s += 1) await client.recordSuccess(light, { at: HOUR_START + s, windowSeconds: 5 });
    const snapshot = await client.getMetrics(light, { at: HOUR_START + 9.9, windowSeconds: 5 });
    expect(snapshot.successes).toBe(5); // seconds 5..9
    const fields = Object.keys(await redis.hgetall(layout.metricsKey(light))).filter((f) => f.startsWith('bucket:'));
    expect(fields.sort()).toEqual([5, 6, 7, 8, 9].map((s) => `bucket:${HOUR_START + s}:s`));
    expect(await redis.zcard(layout.indexKey(light))).toBe(5);
  });
});

/**
 * Every key's contents, in a fixed order, to tell whether a call wrote
 * anything (DUMP would not do: a lookup may move a hashtable's rehash along
 * and so reorder its serialized form without any write).
 */
async function dumps(keys: readonly string[]): Promise<string[]> {
  return Promise.all(
    keys.map(async (key) => {
      const type = await redis.type(key);
      if (type === 'hash') return JSON.stringify(Object.entries(await redis.hgetall(key)).sort());
      if (type === 'zset') return JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES'));
      if (type === 'string') return JSON.stringify(await redis.get(key));
      return type;
    }),
  );
}

describe.each(layoutNames)('%s: the declared capabilities hold', (name) => {
  it('readWrites: a read past the window changes the keys exactly when the layout says reads write', async () => {
    const layout = createLayout(name);
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('caps') };
    await client.recordSuccess(light, { at: HOUR_START, windowSeconds: 10 });
    await client.recordFailure(light, { at: HOUR_START + 1, windowSeconds: 10, errorJson: ERROR_JSON });
    const keys = layout.keysOf(light, HOUR_START, HOUR_START + 100).map((k) => k.key);
    const before = await dumps(keys);
    await client.getMetrics(light, { at: HOUR_START + 100, windowSeconds: 10 });
    const after = await dumps(keys);
    if (layout.capabilities.readWrites) expect(after).not.toEqual(before);
    else expect(after).toEqual(before);
  });

  it('failureReturnsSnapshot: the failure reply parses to the snapshot exactly when declared', async () => {
    const layout = createLayout(name);
    await installScripts(redis, layout.scripts);
    const light = { name: uniqueName('caps') };
    const reply = await runScript(redis, layout.recordFailure(light, { at: HOUR_START, windowSeconds: 60, errorJson: ERROR_JSON }));
    const snapshot = layout.parseFailure(reply);
    if (layout.capabilities.failureReturnsSnapshot) expect(snapshot).toMatchObject({ failures: 1, consecutiveErrors: 1, lastErrorJson: ERROR_JSON });
    else expect(snapshot).toBeNull();
  });

  it('maxWindowSeconds: an event older than the longest window is not counted, however long the window asked for', async () => {
    const layout = createLayout(name);
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('caps') };
    const max = layout.capabilities.maxWindowSeconds;
    // Without a cap, a two-day-old event still counts in a three-day window.
    const age = max === null ? 2 * 86_400 : max + 5;
    await client.recordSuccess(light, { at: HOUR_START, windowSeconds: age + 100 });
    const snapshot = await client.getMetrics(light, { at: HOUR_START + age, windowSeconds: age + 100 });
    const exact = max === null ? 1 : 0;
    if (layout.approximation) {
      // An approximate layout is held to its declared bound around the exact count.
      const countIn = (from: number, to: number) => ({ successes: exact === 1 && from <= HOUR_START && HOUR_START <= to ? 1 : 0, failures: 0 });
      const bound = layout.approximation.errorBound(HOUR_START + age, age + 100, countIn);
      expect(Math.abs(snapshot.successes - exact)).toBeLessThanOrEqual(bound.successes);
    } else {
      expect(snapshot.successes).toBe(exact);
    }
  });
});
