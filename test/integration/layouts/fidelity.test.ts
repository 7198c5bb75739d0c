import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

describe('stoplight-v6 stamps keep milliseconds and decide "newer" on them', () => {
  it('a later failure in the same second replaces the stamp and the error JSON; an earlier one arriving later does not', async () => {
    const layout = new StoplightV6();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('v6-ms') };
    await client.recordFailure(light, { at: HOUR_START + 0.2, windowSeconds: 60, errorJson: '{"n":1}' });
    let snapshot = await client.recordFailure(light, { at: HOUR_START + 0.7, windowSeconds: 60, errorJson: '{"n":2}' });
    expect(snapshot).toMatchObject({ lastErrorAt: HOUR_START + 0.7, lastErrorJson: '{"n":2}', consecutiveErrors: 2 });
    snapshot = await client.recordFailure(light, { at: HOUR_START + 0.4, windowSeconds: 60, errorJson: '{"n":3}' });
    expect(snapshot).toMatchObject({ lastErrorAt: HOUR_START + 0.7, lastErrorJson: '{"n":2}', consecutiveErrors: 3 });
    // Stored as Redis writes a Lua number: the same double back.
    expect(Number(await redis.hget(layout.metricsKey(light), 'last_error_at'))).toBe(HOUR_START + 0.7);
  });

  it('a success stamps the time cut to whole milliseconds, within its own second', async () => {
    const layout = new StoplightV6();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('v6-ms') };
    await client.recordSuccess(light, { at: HOUR_START + 5.1239, windowSeconds: 60 });
    expect(Number(await redis.hget(layout.metricsKey(light), 'last_success_at'))).toBe(HOUR_START + 5.123);
    await client.recordSuccess(light, { at: HOUR_START + 6.9999995, windowSeconds: 60 });
    expect(Number(await redis.hget(layout.metricsKey(light), 'last_success_at'))).toBe(HOUR_START + 6.999);
    expect(await redis.hget(layout.metricsKey(light), `bucket:${HOUR_START + 6}:s`)).toBe('1');
  });

  it('without an injected time, the stamp is the server clock with its milliseconds', async () => {
    const layout = new StoplightV6();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('v6-ms') };
    const [seconds] = (await redis.time()) as [string | number, string | number];
    await client.recordSuccess(light, { windowSeconds: 60 });
    const stamp = Number(await redis.hget(layout.metricsKey(light), 'last_success_at'));
    expect(stamp).toBeGreaterThanOrEqual(Number(seconds));
    expect(stamp).toBeLessThan(Number(seconds) + 5);
    expect(Math.round(stamp * 1000) / 1000).toBe(stamp);
  });
});

describe('stoplight-v5 stays in whole seconds', () => {
  it("a later failure in the same second keeps the first one's stamp and error JSON, as 5.x does", async () => {
    const layout = new StoplightV5();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('v5-s') };
    await client.recordFailure(light, { at: HOUR_START + 10.2, windowSeconds: 60, errorJson: '{"n":1}' });
    await client.recordFailure(light, { at: HOUR_START + 10.7, windowSeconds: 60, errorJson: '{"n":2}' });
    expect(await redis.hmget(layout.metadataKey(light), 'last_error_at', 'last_error_json')).toEqual([String(HOUR_START + 10), '{"n":1}']);
  });
});

describe("stoplight-v5 read picks its hour keys as Stoplight 5.x's client does", () => {
  it('the last hour key holds (window end - 1 s): a read in the first second of an hour passes the previous hour only', () => {
    const layout = new StoplightV5();
    const light = { name: 'checkout' };
    const hour = HOUR_START + 7200;
    const keysAt = (at: number, windowSeconds: number): string[] => layout.getMetrics(light, { at, windowSeconds }).keys.filter((k) => k.includes(':success:'));
    expect(keysAt(hour + 0.9, 60)).toEqual([`stoplight:v5:metrics:checkout:success:${hour - 3600}`]);
    expect(keysAt(hour + 1, 60)).toEqual([`stoplight:v5:metrics:checkout:success:${hour - 3600}`, `stoplight:v5:metrics:checkout:success:${hour}`]);
    expect(keysAt(hour + 1800, 60)).toEqual([`stoplight:v5:metrics:checkout:success:${hour}`]);
  });

  it('so events in the first second of an hour count from the next second on', async () => {
    const layout = new StoplightV5();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('v5-hour') };
    const hour = HOUR_START + 3600;
    await client.recordSuccess(light, { at: hour - 0.5, windowSeconds: 60 });
    await client.recordFailure(light, { at: hour + 0.2, windowSeconds: 60, errorJson: '{}' });
    expect(await client.getMetrics(light, { at: hour + 0.5, windowSeconds: 60 })).toMatchObject({ successes: 1, failures: 0 });
    expect(await client.getMetrics(light, { at: hour + 1, windowSeconds: 60 })).toMatchObject({ successes: 1, failures: 1 });
  });

  it("declares that deviation for the model: the read's own second, only at an hour start", () => {
    const [deviation] = new StoplightV5().deviations;
    expect(deviation?.uncounted(HOUR_START + 0.5, 60)).toEqual({ fromSecond: HOUR_START, toSecond: HOUR_START });
    expect(deviation?.uncounted(HOUR_START + 1, 60)).toBeNull();
    expect(deviation?.uncounted(HOUR_START - 0.5, 60)).toBeNull();
  });
});
