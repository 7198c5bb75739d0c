import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { createLayout } from '../../../src/layouts/index.js';
import { verifyLayout } from '../../../src/verify/verify.js';
import { testRedis } from '../../helpers.js';
import { plantBug } from './plant.js';

let redis: Redis;
/** swc's own private server: an edited scripts folder is verified there as `swc verify` does without --redis-url. */
let own: Session;
beforeAll(async () => {
  redis = await testRedis();
  own = await openSession();
});
afterAll(() => own.close());

describe('verify on the layouts after 6.0', () => {
  it.each(['sliding-log', 'ring', 'packed'])('%s (exact): zero findings over 20,000 calls', async (name) => {
    const result = await verifyLayout(redis, createLayout(name), { seed: 11, calls: 20_000 });
    expect(result).toMatchObject({ calls: 20_000, findings: 0, deviations: [] });
    expect(result.slots.oneSlotPerLight).toBe(true);
  });

  it('coarse: zero findings, the seconds it leaves out reported as its declared deviation', async () => {
    const result = await verifyLayout(redis, createLayout('coarse'), { seed: 11, calls: 20_000 });
    expect(result.findings).toBe(0);
    expect(result.deviations.map((d) => d.id)).toEqual(['coarse-buckets-10s']);
    expect(result.deviations[0]?.observed).toBeGreaterThan(0);
  });

  it('two-window: zero findings, every read within its declared bound', async () => {
    const result = await verifyLayout(redis, createLayout('two-window'), { seed: 11, calls: 20_000 });
    expect(result.findings).toBe(0);
  });

  it('two-window with a planted bug (the previous window weighed in full): disagreements beyond the bound, reproduced in at most 10 calls', async () => {
    const scriptsDir = plantBug('two-window/_two_window.lua', 'local weight = (window - 1 - (second - current)) / window', 'local weight = 1');
    const result = await verifyLayout(own, createLayout('two-window', { scriptsDir }), { trustScripts: true, seed: 11, calls: 8000 });
    expect(result.findings).toBeGreaterThan(0);
    expect(result.disagreements[0]?.reproduction.length).toBeLessThanOrEqual(10);
  });

  it('packed with a planted bug (a stale slot counted): a disagreement, reproduced in at most 10 calls', async () => {
    const scriptsDir = plantBug('packed/_packed.lua', 'if stamp > oldest and stamp <= second then', 'if stamp <= second then');
    const result = await verifyLayout(own, createLayout('packed', { scriptsDir }), { trustScripts: true, seed: 11, calls: 8000 });
    expect(result.findings).toBeGreaterThan(0);
    expect(result.disagreements[0]?.reproduction.length).toBeLessThanOrEqual(10);
  });
});
