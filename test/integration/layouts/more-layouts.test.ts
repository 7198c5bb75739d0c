import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights } from '../../../src/inspect/list.js';
import { shortId } from '../../../src/layouts/stoplight/v6.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { Coarse } from '../../../src/layouts/coarse.js';
import { createLayout, resolveLayoutName } from '../../../src/layouts/index.js';
import { Packed, PACKED_SLOT_BYTES } from '../../../src/layouts/packed.js';
import { Ring } from '../../../src/layouts/ring.js';
import { SlidingLog } from '../../../src/layouts/sliding-log.js';
import { TwoWindow } from '../../../src/layouts/two-window.js';
import { openSession } from '../../../src/redis/connect.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { keySlot } from '../../../src/redis/slot.js';
import { HOUR_START, redisUrl, testRedis, uniqueName } from '../../helpers.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const WEEK = 604_800;

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

/** TTL within a few seconds below `seconds`. */
async function expectTtl(key: string, seconds: number): Promise<void> {
  const ttl = await redis.ttl(key);
  expect(ttl, key).toBeGreaterThan(seconds - 5);
  expect(ttl, key).toBeLessThanOrEqual(seconds);
}

const METADATA = {
  last_success_at: String(HOUR_START),
  last_error_at: String(HOUR_START + 1),
  last_error_json: ERROR_JSON,
  consecutive_errors: '1',
  consecutive_successes: '0',
};

describe('sliding-log keys', () => {
  it('one sorted set per outcome (event id scored by its second), a metadata hash, one slot, logs expire after two windows', async () => {
    const layout = new SlidingLog();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('log');
    await client.recordSuccess({ name }, { at: HOUR_START + 0.5, windowSeconds: 60, eventId: 'a'.repeat(24) });
    await client.recordFailure({ name }, { at: HOUR_START + 1.5, windowSeconds: 60, eventId: 'b'.repeat(24), errorJson: ERROR_JSON });
    const [success, failure, meta] = layout.keysOf({ name }).map((k) => k.key) as [string, string, string];
    expect([success, failure, meta]).toEqual([`swc:sliding-log:{${name}}:success`, `swc:sliding-log:{${name}}:failure`, `swc:sliding-log:{${name}}:meta`]);
    expect(await redis.zrange(success, 0, -1, 'WITHSCORES')).toEqual(['a'.repeat(24), String(HOUR_START)]);
    expect(await redis.zrange(failure, 0, -1, 'WITHSCORES')).toEqual(['b'.repeat(24), String(HOUR_START + 1)]);
    expect(await redis.hgetall(meta)).toEqual(METADATA);
    await expectTtl(success, 120);
    await expectTtl(failure, 120);
    await expectTtl(meta, WEEK);
    expect(await redis.object('ENCODING', success)).toBe('listpack');
    expect(new Set([success, failure, meta].map(keySlot)).size).toBe(1);
  });

  it('a write prunes both logs to the window: members at or before now - W go, the rest stay', async () => {
    const layout = new SlidingLog();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('log') };
    for (let s = 0; s < 10; s += 1) {
      await client.recordSuccess(light, { at: HOUR_START + s, windowSeconds: 5 });
      await client.recordFailure(light, { at: HOUR_START + s, windowSeconds: 5, errorJson: '{}' });
    }
    const [success, failure] = layout.keysOf(light).map((k) => k.key) as [string, string];
    // Last write at second 9 with W = 5: seconds 5..9 remain.
    expect((await redis.zrange(success, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1)).toEqual([5, 6, 7, 8, 9].map((s) => String(HOUR_START + s)));
    expect(await redis.zcard(failure)).toBe(5);
    // A read is read-only and counts (now - W, now] even between writes.
    expect(await client.getMetrics(light, { at: HOUR_START + 12, windowSeconds: 5 })).toMatchObject({ successes: 2, failures: 2 });
    expect(await redis.zcard(success)).toBe(5);
  });
});

describe('ring keys', () => {
  it('one hash: slot "<second mod W>" = "<second>:<successes>:<failures>" beside the metadata, kept a week', async () => {
    const layout = new Ring();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('ring');
    await client.recordSuccess({ name }, { at: HOUR_START + 0.5, windowSeconds: 60 });
    await client.recordSuccess({ name }, { at: HOUR_START + 0.9, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 1.5, windowSeconds: 60, errorJson: ERROR_JSON });
    const key = layout.ringKey({ name });
    expect(key).toBe(`swc:ring:{${name}}:ring`);
    expect(await redis.hgetall(key)).toEqual({
      [String(HOUR_START % 60)]: `${HOUR_START}:2:0`,
      [String((HOUR_START + 1) % 60)]: `${HOUR_START + 1}:0:1`,
      ...METADATA,
    });
    await expectTtl(key, WEEK);
    // The error JSON is longer than 64 bytes, so the hash is a hashtable.
    expect(await redis.object('ENCODING', key)).toBe('hashtable');
  });

  it('wrap-around: a slot is reused when its second comes round, a stale slot is not counted, an event older than its slot is dropped', async () => {
    const layout = new Ring();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('ring') };
    const W = 10;
    await client.recordSuccess(light, { at: HOUR_START + 3, windowSeconds: W });
    await client.recordSuccess(light, { at: HOUR_START + 3, windowSeconds: W });
    await client.recordFailure(light, { at: HOUR_START + 4, windowSeconds: W, errorJson: '{}' });
    // Second 13 lands in second 3's slot: the slot starts again from this event.
    await client.recordFailure(light, { at: HOUR_START + 13, windowSeconds: W, errorJson: '{}' });
    expect(await redis.hget(layout.ringKey(light), String((HOUR_START + 3) % W))).toBe(`${HOUR_START + 13}:0:1`);
    // At 13 the window is (3, 13]: second 4's slot still counts, second 3 is gone.
    expect(await client.getMetrics(light, { at: HOUR_START + 13, windowSeconds: W })).toMatchObject({ successes: 0, failures: 2 });
    // At 14, second 4's slot is stale (4 <= 14 - 10) though nothing overwrote it.
    expect(await client.getMetrics(light, { at: HOUR_START + 14, windowSeconds: W })).toMatchObject({ successes: 0, failures: 1 });
    // An event at 3 arriving late finds its slot holding 13: it left the window already and is not counted.
    await client.recordSuccess(light, { at: HOUR_START + 3, windowSeconds: W });
    expect(await redis.hget(layout.ringKey(light), String((HOUR_START + 3) % W))).toBe(`${HOUR_START + 13}:0:1`);
    // After an idle gap longer than the window every slot is stale.
    expect(await client.getMetrics(light, { at: HOUR_START + 100, windowSeconds: W })).toMatchObject({ successes: 0, failures: 0, consecutiveSuccesses: 1 });
  });
});

describe('packed keys', () => {
  it('a string of exactly 12 × W bytes from the first write (three big-endian u32 per slot) and a metadata hash, one slot', async () => {
    const layout = new Packed();
    const client = await LayoutClient.open(redis, layout);
    const name = uniqueName('packed');
    const W = 300;
    await client.recordSuccess({ name }, { at: HOUR_START + 0.5, windowSeconds: W });
    await client.recordSuccess({ name }, { at: HOUR_START + 0.7, windowSeconds: W });
    await client.recordFailure({ name }, { at: HOUR_START + 1.5, windowSeconds: W, errorJson: ERROR_JSON });
    const [counters, meta] = layout.keysOf({ name }).map((k) => k.key) as [string, string];
    expect([counters, meta]).toEqual([`swc:packed:{${name}}:counters`, `swc:packed:{${name}}:meta`]);
    expect(await redis.type(counters)).toBe('string');
    expect(await redis.strlen(counters)).toBe(W * PACKED_SLOT_BYTES);
    const bytes = (await redis.getBuffer(counters)) as Buffer;
    const slot = (second: number): number[] => {
      const at = (second % W) * PACKED_SLOT_BYTES;
      return [bytes.readUInt32BE(at), bytes.readUInt32BE(at + 4), bytes.readUInt32BE(at + 8)];
    };
    expect(slot(HOUR_START)).toEqual([HOUR_START, 2, 0]);
    expect(slot(HOUR_START + 1)).toEqual([HOUR_START + 1, 0, 1]);
    expect(slot(HOUR_START + 2)).toEqual([0, 0, 0]);
    expect(await redis.hgetall(meta)).toEqual(METADATA);
    await expectTtl(counters, WEEK);
    await expectTtl(meta, WEEK);
    expect(keySlot(counters)).toBe(keySlot(meta));
    // Allocated once at its full length, not grown (and over-allocated) slot by slot.
    const usage = Number(await redis.call('MEMORY', 'USAGE', counters, 'SAMPLES', '0'));
    expect(usage).toBeLessThan(W * PACKED_SLOT_BYTES * 1.25);
  });

  it('wrap-around and stale slots as the ring; a counter saturates at 2^32 - 1 instead of wrapping to 0', async () => {
    const layout = new Packed();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('packed') };
    const W = 10;
    await client.recordSuccess(light, { at: HOUR_START + 3, windowSeconds: W });
    await client.recordFailure(light, { at: HOUR_START + 4, windowSeconds: W, errorJson: '{}' });
    await client.recordFailure(light, { at: HOUR_START + 13, windowSeconds: W, errorJson: '{}' });
    expect(await client.getMetrics(light, { at: HOUR_START + 13, windowSeconds: W })).toMatchObject({ successes: 0, failures: 2 });
    expect(await client.getMetrics(light, { at: HOUR_START + 14, windowSeconds: W })).toMatchObject({ successes: 0, failures: 1 });
    await client.recordSuccess(light, { at: HOUR_START + 3, windowSeconds: W });
    expect(await client.getMetrics(light, { at: HOUR_START + 13, windowSeconds: W })).toMatchObject({ successes: 0, failures: 2 });
    expect(await client.getMetrics(light, { at: HOUR_START + 100, windowSeconds: W })).toMatchObject({ successes: 0, failures: 0 });

    const [counters] = layout.keysOf(light).map((k) => k.key) as [string];
    const slot = (HOUR_START + 20) % W;
    await redis.call('BITFIELD', counters, 'SET', 'u32', `#${3 * slot}`, HOUR_START + 20, 'SET', 'u32', `#${3 * slot + 1}`, 2 ** 32 - 1);
    await client.recordSuccess(light, { at: HOUR_START + 20, windowSeconds: W });
    expect(await client.getMetrics(light, { at: HOUR_START + 20, windowSeconds: W })).toMatchObject({ successes: 2 ** 32 - 1 });
  });
});

describe.each(['ring', 'packed'])('%s: a light whose window size changes', (name) => {
  it('never counts an event twice; a write under the new size may overwrite a slot still inside the window and lose its events', async () => {
    const client = await LayoutClient.open(redis, createLayout(name));
    const light = { name: uniqueName(`resize-${name}`) };
    for (let s = 0; s <= 20; s += 1) await client.recordSuccess(light, { at: HOUR_START + s, windowSeconds: 7 });
    // Under W = 7 the slots hold seconds 14..20; second 21 under W = 10 goes to slot 1, which holds 15.
    await client.recordSuccess(light, { at: HOUR_START + 21, windowSeconds: 10 });
    const snapshot = await client.getMetrics(light, { at: HOUR_START + 21, windowSeconds: 10 });
    // Exact: seconds 12..21, ten events. Seconds 12 and 13 were overwritten under W = 7, second 15 just now.
    expect(snapshot.successes).toBe(7);
  });
});

describe('coarse keys', () => {
  it('6.0-shaped keys under swc:coarse with bucket starts instead of seconds; a bucket goes when its start leaves the window', async () => {
    const layout = new Coarse();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('coarse') };
    const [metrics, index] = layout.keysOf(light).map((k) => k.key) as [string, string];
    expect(metrics).toMatch(/^swc:coarse:[0-9a-f]{12}:\{[0-9a-f]{12}\}:window_metrics$/);
    expect(index).toBe(`${metrics}:ts_idx`);
    for (let s = 0; s < 25; s += 1) await client.recordSuccess(light, { at: HOUR_START + s + 0.5, windowSeconds: 60 });
    await client.recordFailure(light, { at: HOUR_START + 25, windowSeconds: 60, errorJson: ERROR_JSON });
    expect(await redis.zrange(index, 0, -1, 'WITHSCORES')).toEqual([0, 10, 20].flatMap((b) => [`bucket:${HOUR_START + b}`, String(HOUR_START + b)]));
    expect(await redis.hgetall(metrics)).toEqual({
      [`bucket:${HOUR_START}:s`]: '10',
      [`bucket:${HOUR_START + 10}:s`]: '10',
      [`bucket:${HOUR_START + 20}:s`]: '5',
      [`bucket:${HOUR_START + 20}:f`]: '1',
      total_successes: '25',
      total_failures: '1',
      last_success_at: String(HOUR_START + 24),
      last_error_at: String(HOUR_START + 25),
      last_error_json: ERROR_JSON,
      consecutive_errors: '1',
      consecutive_successes: '0',
    });
    await expectTtl(metrics, WEEK);
    await expectTtl(index, WEEK);
    expect(keySlot(metrics)).toBe(keySlot(index));
    // At 60 the window is (0, 60]: bucket 0 (seconds 0..9) goes whole, though seconds 1..9 are inside.
    expect(await client.getMetrics(light, { at: HOUR_START + 60, windowSeconds: 60 })).toMatchObject({ successes: 15, failures: 1 });
    expect(await redis.zcard(index)).toBe(2);
  });

  it('an idle gap evicts a backlog of 5,000 buckets in one read (batches of 1,000, as 6.0), leaving nothing behind', async () => {
    const layout = new Coarse();
    await installScripts(redis, layout.scripts);
    const light = { name: uniqueName('coarse-backlog') };
    const W = 86_400;
    const calls = Array.from({ length: 5000 }, (_, i) => layout.recordSuccess(light, { at: HOUR_START + 10 * i, windowSeconds: W }));
    const replies = await execPipeline(redis, calls);
    expect(replies.filter(([err]) => err)).toEqual([]);
    const [metrics, index] = layout.keysOf(light).map((k) => k.key) as [string, string];
    expect(await redis.zcard(index)).toBe(5000);
    const client = await LayoutClient.open(redis, layout);
    expect(await client.getMetrics(light, { at: HOUR_START + 50_000 + W, windowSeconds: W })).toMatchObject({ successes: 0, failures: 0 });
    expect(await redis.zcard(index)).toBe(0);
    expect(Object.keys(await redis.hgetall(metrics)).filter((f) => f.startsWith('bucket:'))).toEqual([]);
  });

  it('coarse-<N>s is a registered variant with N-second buckets under its own prefix; N out of range is a usage error', () => {
    const name = resolveLayoutName('coarse-30s');
    expect(name).toBe('coarse-30s');
    const layout = createLayout(name) as Coarse;
    expect(layout.bucketSeconds).toBe(30);
    expect(layout.prefix).toBe('swc:coarse-30s');
    expect(resolveLayoutName('coarse-10s')).toBe('coarse');
    expect(() => resolveLayoutName('coarse-0s')).toThrow(/coarse-<N>s takes N from 1 to 3600/);
  });
});

describe('two-window keys', () => {
  it('one hash of five numbers and the metadata; the windows roll forward, and a gap of two windows empties both', async () => {
    const layout = new TwoWindow();
    const client = await LayoutClient.open(redis, layout);
    const light = { name: uniqueName('tw') };
    const key = layout.windowsKey(light);
    const W = 60;
    const base = HOUR_START; // a multiple of 60: fixed windows start here
    await client.recordSuccess(light, { at: base + 5, windowSeconds: W });
    await client.recordFailure(light, { at: base + 6, windowSeconds: W, errorJson: ERROR_JSON });
    expect(await redis.hmget(key, 'start', 'cs', 'cf', 'ps', 'pf')).toEqual([String(base), '1', '1', '0', '0']);
    await client.recordSuccess(light, { at: base + 61, windowSeconds: W });
    expect(await redis.hmget(key, 'start', 'cs', 'cf', 'ps', 'pf')).toEqual([String(base + 60), '1', '0', '1', '1']);
    // At 90 the previous window weighs (60 - 1 - 30) / 60.
    const snapshot = await client.getMetrics(light, { at: base + 90, windowSeconds: W });
    expect(snapshot.successes).toBeCloseTo(1 + 29 / 60, 12);
    expect(snapshot.failures).toBeCloseTo(29 / 60, 12);
    await client.recordSuccess(light, { at: base + 250, windowSeconds: W });
    expect(await redis.hmget(key, 'start', 'cs', 'cf', 'ps', 'pf')).toEqual([String(base + 240), '1', '0', '0', '0']);
    expect(await redis.hlen(key)).toBe(10);
    await expectTtl(key, WEEK);
  });
});

describe.each(['sliding-log', 'ring', 'packed', 'coarse', 'two-window'])('%s without an injected time', (name) => {
  it("takes the time from Redis TIME: an event written now is counted by a read now, and stamped with the server's second", async () => {
    const client = await LayoutClient.open(redis, createLayout(name));
    const light = { name: uniqueName(`time-${name}`) };
    const [before] = (await redis.time()) as unknown as [string, string];
    await client.recordFailure(light, { windowSeconds: 600, errorJson: ERROR_JSON });
    const snapshot = await client.getMetrics(light, { windowSeconds: 600 });
    expect(snapshot).toMatchObject({ successes: 0, consecutiveErrors: 1, lastErrorJson: ERROR_JSON });
    // two-window weighs the event 599/600 if the read fell in the next fixed window.
    expect(snapshot.failures).toBeCloseTo(1, 2);
    expect(snapshot.lastErrorAt).toBeGreaterThanOrEqual(Number(before));
    expect(snapshot.lastErrorAt).toBeLessThanOrEqual(Number(before) + 5);
  });
});

describe('the five layouts through the registry', () => {
  it('inspect finds a light of each by name and reads it with its inspector; lights lists each under its layout', async () => {
    const written: [string, string][] = [];
    for (const name of ['sliding-log', 'ring', 'packed', 'coarse', 'two-window']) {
      const light = uniqueName(`insp-${name}`);
      const client = await LayoutClient.open(redis, createLayout(name));
      await client.recordSuccess({ name: light }, { at: HOUR_START, windowSeconds: 60 });
      await client.recordFailure({ name: light }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: ERROR_JSON });
      const found = await inspectLight(redis, { light, at: HOUR_START + 2, windowSeconds: 60 });
      expect(found.map((f) => f.layout)).toEqual([name]);
      const keys = createLayout(name).keysOf({ name: light }, HOUR_START, HOUR_START + 1);
      expect(found[0]?.keys.length).toBe(keys.length);
      // coarse keys carry the light's id, as 6.0's do; the others its name.
      written.push([name, name === 'coarse' ? shortId(light) : light]);
      if (name === 'coarse') expect(found[0]).toMatchObject({ kind: 'buckets', windowTotals: { successes: 1, failures: 1 } });
    }
    const list = await listLights(redis);
    for (const [layout, light] of written) {
      expect(list.lights.filter((l) => l.light === light).map((l) => l.layout)).toEqual([layout]);
    }
  });

  it('bench measures the new layouts beside 6.0 at 300 s and 100 req/s: packed under 20 bytes per second of window, 6.0 over 200, two-window constant, sliding-log one member per event', async () => {
    const session = await openSession({ redisUrl: redisUrl() });
    try {
      const report = await runBench({
        session,
        plan: { layouts: ['packed', 'stoplight-v6', 'ring', 'coarse', 'two-window'], windows: [300], rates: [100], failureRate: 0.5, lights: 1, seed: 1 },
        namespace: createNamespace(),
      });
      const perSecond = Object.fromEntries(report.results.map((r) => [r.layout, r.memory.bytesPerLight / 300]));
      // The preflight's bound holds each measured figure.
      for (const r of report.results) {
        const layout = createLayout(r.layout);
        const peak = layout.peakBytesPerLight?.({ windowSeconds: 300, rate: 100, durationSeconds: 300, extraEvents: 0 });
        expect(r.memory.bytesPerLight, r.layout).toBeLessThanOrEqual(peak ?? 0);
      }
      expect(perSecond['packed']).toBeLessThanOrEqual(20);
      expect(perSecond['stoplight-v6']).toBeGreaterThan(200);
      // Constant memory: two-window is under 2 KB whatever the window.
      expect(perSecond['two-window']! * 300).toBeLessThan(2048);
      expect(perSecond['coarse']).toBeLessThan(perSecond['stoplight-v6']! / 5);
      const sliding = await runBench({
        session,
        plan: { layouts: ['sliding-log'], windows: [60], rates: [10], failureRate: 0.5, lights: 1, seed: 1 },
        namespace: createNamespace(),
      });
      // One member per event in the window, and no more.
      expect(sliding.results[0]?.memory.keys.filter((k) => k.type === 'zset').reduce((n, k) => n + k.elements, 0)).toBe(600);
    } finally {
      await session.close();
    }
  });
});
