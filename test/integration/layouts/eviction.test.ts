import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { execPipeline } from '../../../src/redis/scripts.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

let redis: Redis;
let client: LayoutClient;
const layout = new StoplightV6();
beforeAll(async () => {
  redis = await testRedis();
  client = await LayoutClient.open(redis, layout);
});

/** One success in every second of [start, start + seconds). */
async function fill(light: { name: string }, start: number, seconds: number, windowSeconds: number): Promise<void> {
  const calls = Array.from({ length: seconds }, (_, s) => layout.recordSuccess(light, { at: start + s, windowSeconds }));
  const replies = await execPipeline(redis, calls);
  for (const [err] of replies) if (err) throw err;
}

describe('stoplight-v6 eviction in batches', () => {
  it.each([4000, 5000, 7200])('evicts a full %i s backlog in one call after an idle gap', async (windowSeconds) => {
    const light = { name: uniqueName('backlog') };
    await fill(light, HOUR_START, windowSeconds, windowSeconds);
    expect(await redis.zcard(layout.indexKey(light))).toBe(windowSeconds);
    // 2 fields per bucket: far more than unpack() takes in one go.
    const snapshot = await client.getMetrics(light, { at: HOUR_START + 3 * windowSeconds, windowSeconds });
    expect(snapshot.successes).toBe(0);
    expect(await redis.zcard(layout.indexKey(light))).toBe(0);
    const fields = await redis.hkeys(layout.metricsKey(light));
    expect(fields.filter((f) => f.startsWith('bucket:'))).toEqual([]);
    expect(await redis.hget(layout.metricsKey(light), 'total_successes')).toBe('0');
  });

  it('evicts only what left the window when a write lands mid-backlog', async () => {
    const light = { name: uniqueName('partial') };
    const windowSeconds = 4500;
    await fill(light, HOUR_START, windowSeconds, windowSeconds);
    // Move 3000 s on: buckets 0..2999 leave (the window is (now - W, now]).
    await client.recordSuccess(light, { at: HOUR_START + windowSeconds - 1 + 3000, windowSeconds });
    const snapshot = await client.getMetrics(light, { at: HOUR_START + windowSeconds - 1 + 3000, windowSeconds });
    expect(snapshot.successes).toBe(windowSeconds - 3000 + 1);
    expect(await redis.zcard(layout.indexKey(light))).toBe(windowSeconds - 3000 + 1);
  });
});
