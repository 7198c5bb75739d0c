import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights } from '../../../src/inspect/list.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

/**
 * What a write would change, per key: type, encoding, every field or member
 * (sorted, so a hashtable's incremental rehash, which reads also advance, does
 * not count), the DUMP bytes of listpacks (their layout is fixed), and the TTL,
 * which only falls unless something writes an EXPIRE. DEBUG DIGEST-VALUE would
 * do, but redis-server refuses DEBUG by default.
 */
async function digest(keys: readonly string[]): Promise<{ values: unknown[]; pttls: number[] }> {
  const values = await Promise.all(
    keys.map(async (key) => {
      const type = await redis.type(key);
      const encoding = await redis.object('ENCODING', key);
      const content =
        type === 'hash' ? Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b)) : await redis.zrange(key, 0, -1, 'WITHSCORES');
      const dump = encoding === 'listpack' ? (await redis.dumpBuffer(key))?.toString('hex') : null;
      return { type, encoding, content, dump };
    }),
  );
  const pttls = await Promise.all(keys.map((key) => redis.pttl(key)));
  return { values, pttls };
}

async function expectUnchanged(keys: readonly string[], run: () => Promise<unknown>): Promise<void> {
  const before = await digest(keys);
  await run();
  const after = await digest(keys);
  expect(after.values).toEqual(before.values);
  after.pttls.forEach((pttl, i) => {
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(before.pttls[i] as number);
  });
}

describe('inspect is read-only', () => {
  it('leaves a 6.0 light with stale buckets (which a 6.0 read would evict) unchanged', async () => {
    const layout = new StoplightV6();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('ro-v6');
    for (let s = 0; s < 30; s += 1) {
      await client.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 3600 });
      if (s % 5 === 0) await client.recordFailure({ name }, { at: HOUR_START + s, windowSeconds: 3600, errorJson: ERROR_JSON });
    }
    const keys = [layout.metricsKey({ name }), layout.indexKey({ name })];
    await expectUnchanged(keys, async () => {
      await inspectLight(redis, { light: name, windowSeconds: 10, at: HOUR_START + 100 });
      await inspectLight(redis, { light: name });
      await listLights(redis);
    });
    // The digest does see a change: the layout's own read evicts those buckets.
    const before = await digest(keys);
    await client.getMetrics({ name }, { windowSeconds: 10, at: HOUR_START + 100 });
    expect((await digest(keys)).values).not.toEqual(before.values);
  });

  it('leaves a 5.x light unchanged', async () => {
    const layout = new StoplightV5();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('ro-v5');
    for (let s = 0; s < 200; s += 1) await client.recordSuccess({ name }, { at: HOUR_START + s * 30, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 10, windowSeconds: 60, errorJson: ERROR_JSON });
    const keys = await redis.keys(`stoplight:v5:*:${name}*`);
    expect(keys.length).toBe(4);
    await expectUnchanged(keys, async () => {
      await inspectLight(redis, { light: name, windowSeconds: 600, at: HOUR_START + 6000 });
      await listLights(redis);
    });
  });
});
