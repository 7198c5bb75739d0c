import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectLight } from '../../../src/inspect/inspect.js';
import type { BucketInspection } from '../../../src/layouts/inspection.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { connect } from '../../../src/redis/connect.js';
import { redisUrl, uniqueName } from '../../helpers.js';

const WRITERS = 8;
const layout = new StoplightV6();
const connections: Redis[] = [];
let reader: Redis;

beforeAll(async () => {
  for (let i = 0; i < WRITERS; i += 1) connections.push(await connect(redisUrl()));
  reader = await connect(redisUrl());
});
afterAll(() => {
  for (const c of [...connections, reader]) c.disconnect();
});

describe('inspect on a 6.0 light under write load', () => {
  it('returns views that are consistent (no drift) or says it could not', async () => {
    const light = { name: uniqueName('busy') };
    const clients = await Promise.all(connections.map((c) => LayoutClient.open(c, layout)));
    let writing = true;
    const writers = clients.map(async (client, n) => {
      let i = 0;
      while (writing) {
        if ((i + n) % 4 === 0) await client.recordFailure(light, { windowSeconds: 5, errorJson: '{"e":1}' });
        else await client.recordSuccess(light, { windowSeconds: 5 });
        i += 1;
        // Bursts with gaps: some reads land while writes run, some between them.
        if (i % 50 === 0) await new Promise((r) => setTimeout(r, 50));
      }
    });
    await new Promise((r) => setTimeout(r, 200));
    const views: BucketInspection[] = [];
    for (let i = 0; i < 40; i += 1) {
      const [view] = await inspectLight(reader, { light: light.name, layout: 'stoplight-v6' });
      views.push(view as BucketInspection);
    }
    writing = false;
    await Promise.all(writers);

    const consistent = views.filter((v) => v.consistent);
    for (const view of consistent) {
      expect(view.drift.ok, JSON.stringify(view.drift)).toBe(true);
      expect(view.totals).toEqual(view.drift.bucketSum);
    }
    // Not vacuous: with gaps between bursts, some views are taken of one moment.
    expect(consistent.length).toBeGreaterThan(0);
    expect(views.every((v) => typeof v.consistent === 'boolean')).toBe(true);
  });
});
