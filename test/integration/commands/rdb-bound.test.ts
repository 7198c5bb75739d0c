/**
 * `lights --rdb` per light: each light of a test fleet (the demo's lights,
 * lights past the listpack limits, and a 6.0 light caught mid-rehash) reads
 * from the snapshot within the bound its JSON states of the live server's
 * bytes, and the document says what the bytes are.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../../src/demo/demo.js';
import { listLights } from '../../../src/inspect/list.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { startRdbServer } from '../../../src/redis/rdb-server.js';
import { lightsDocument } from '../../../src/report/listing.js';
import { lightsSchema } from '../../../src/schemas/lights.js';
import { withPrivateServer } from '../../helpers.js';

const ERROR_JSON = JSON.stringify({ error: { class: 'Timeout::Error', message: 'execution expired' }, time: 1764450000 });

describe('lights --rdb: a bound per light', () => {
  it('every light of the test fleet is within its stated bound of the live bytes; the bound and what it is are in the JSON', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      const now = Number((await redis.time())[0]);
      await runDemo(redis, { marked: false });
      const v5 = new StoplightV5();
      const v6 = new StoplightV6();
      const c5 = await LayoutClient.open(redis, v5);
      const c6 = await LayoutClient.open(redis, v6);
      // Past the listpack limits: hashtables and skiplists, as busy lights have.
      const sent: Promise<unknown>[] = [];
      for (let e = 0; e < 3000; e++) {
        const options = { windowSeconds: 600, at: now - 600 + e / 5 };
        for (const c of [c5, c6]) {
          if (e % 10 === 0) sent.push(c.recordFailure({ name: 'large' }, { ...options, errorJson: ERROR_JSON }));
          else sent.push(c.recordSuccess({ name: 'large' }, options));
        }
      }
      await Promise.all(sent);
      // A 6.0 light whose metrics hash stops right after its table began to grow: caught mid-rehash.
      const light = { name: 'mid-rehash' };
      const key = v6.metricsKey(light);
      let before = 0;
      let caught = false;
      for (let s = 0; s < 3000 && !caught; s++) {
        await c6.recordSuccess(light, { windowSeconds: 3600, at: now - 3000 + s });
        const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
        const fields = await redis.hlen(key);
        caught = before > 0 && fields > 600 && bytes - before > 8 * fields * 0.9;
        before = bytes;
      }
      expect(caught).toBe(true);

      const live = await listLights(redis, { exactMemory: true, at: now });
      await redis.call('SAVE');
      const dir = ((await redis.config('GET', 'dir')) as string[])[1] as string;
      const file = ((await redis.config('GET', 'dbfilename')) as string[])[1] as string;
      const snapshot = await startRdbServer(join(dir, file));
      let loaded;
      try {
        loaded = await listLights(snapshot.redis, { exactMemory: true, snapshot: true, at: now });
      } finally {
        await snapshot.stop();
      }
      const rows = live.lights.map((l) => {
        const other = loaded.lights.find((o) => o.layout === l.layout && o.reference === l.reference);
        const diff = Math.abs((other?.bytes ?? Number.NaN) - (l.bytes ?? Number.NaN));
        return { light: `${l.layout} ${l.name}`, diff, bound: other?.rdbBound?.bytes ?? -1, within: diff <= (other?.rdbBound?.bytes ?? -1) };
      });
      expect(rows.length).toBeGreaterThanOrEqual(10);
      expect(rows.filter((r) => !r.within)).toEqual([]);
      // The mid-rehash light's old table is the largest difference, and its bound covers it.
      expect(Math.max(...rows.map((r) => r.diff))).toBeGreaterThan(0);
      process.stdout.write(`rdb vs live, bytes (bound): ${rows.map((r) => `${r.light} ${r.diff} (${r.bound})`).join('; ')}\n`);

      const doc = lightsSchema.parse(lightsDocument({ list: loaded, matched: loaded.lights, shown: loaded.lights, totals: [] })) as {
        snapshot?: { settling: string; bound: string };
        lights: { rdbBound?: { bytes: number } }[];
      };
      expect(doc.snapshot?.settling).toMatch(/no rehash under way/);
      expect(doc.snapshot?.bound).toMatch(/16 × nextPow2\(n\)/);
      expect(doc.lights.every((l) => typeof l.rdbBound?.bytes === 'number')).toBe(true);
      // The live listing carries no bound.
      expect(live.lights.every((l) => l.rdbBound === undefined)).toBe(true);
    });
  });
});
