import { describe, expect, it } from 'vitest';
import { listLights, totalsOf } from '../../../src/inspect/list.js';
import { renderLights } from '../../../src/report/lights.js';
import { lightsDocument } from '../../../src/report/listing.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { lightsSchema } from '../../../src/schemas/lights.js';
import { HOUR_START, withPrivateServer } from '../../helpers.js';

// A listing stopped after its first SCAN call has seen only some keys of
// each light: it must say so, and judge no light's drift from the keys it
// happened to meet. The full listing of the same data finds no drift.

const NOW = HOUR_START + 2 * 3600;
const LIGHTS = 60;
/** Few enough that one SCAN call (COUNT 1000) walks about a quarter of the keyspace: it meets some of a light's keys, not all. */
const OTHER_KEYS = 3000;

describe('a listing stopped mid-scan', () => {
  it('labels every light it found as not finished, reports no drift for them, and the full scan of the same data none either', async () => {
    await withPrivateServer({ settings: ['enable-debug-command=yes'], allowAnySetting: true }, async (_server, redis) => {
      await redis.call('DEBUG', 'POPULATE', String(OTHER_KEYS), 'app:session');
      const c5 = await LayoutClient.open(redis, new StoplightV5());
      const c6 = await LayoutClient.open(redis, new StoplightV6());
      for (let i = 0; i < LIGHTS; i += 1) {
        // Events over several hours and minutes: each light has many keys, spread over the keyspace.
        for (let s = 0; s < 3; s += 1) {
          const options = { at: NOW - s * 3700, windowSeconds: 86_400 };
          await c5.recordSuccess({ name: `v5-light-${i}` }, options);
          await c6.recordSuccess({ name: `v6-light-${i}` }, options);
        }
      }
      const full = await listLights(redis, { at: NOW, scan: { pauseMs: 0 } });
      expect(full.partial).toBe(false);
      expect(full.lights).toHaveLength(2 * LIGHTS);
      expect(full.lights.filter((l) => l.drift === true)).toEqual([]);
      expect(full.lights.every((l) => l.partial === false)).toBe(true);
      expect(totalsOf(full.lights).reduce((n, t) => n + t.unfinished, 0)).toBe(0);

      // Stopped before the second SCAN call: one call of COUNT 1000 sees part of the keyspace.
      let asked = 0;
      const part = await listLights(redis, { at: NOW, scan: { pauseMs: 0, stopped: () => (asked += 1) > 1 } });
      expect(part.partial).toBe(true);
      expect(part.scan?.calls).toBe(1);
      expect(part.lights.length).toBeGreaterThan(0);
      // The case that matters: lights met with only some of their keys (a 6.0 hash without its index reads as drift).
      const keysOf = new Map(full.lights.map((l) => [`${l.layout}/${l.reference}`, l.keys]));
      const cut = part.lights.filter((l) => l.keys < (keysOf.get(`${l.layout}/${l.reference}`) ?? 0));
      expect(cut.filter((l) => l.layout === 'stoplight-v6').length).toBeGreaterThan(0);
      console.log(`stopped after 1 SCAN call: ${part.lights.length} of ${full.lights.length} lights found, ${cut.length} with only some of their keys`);
      expect(part.lights.every((l) => l.partial === true && l.drift === null)).toBe(true);
      const totals = totalsOf(part.lights);
      expect(totals.reduce((n, t) => n + t.drifted, 0)).toBe(0);
      expect(totals.reduce((n, t) => n + t.unfinished, 0)).toBe(part.lights.length);

      const view = { list: part, matched: part.lights, shown: part.lights, totals, wide: false };
      const table = renderLights(view, 'table', false);
      expect(table).toContain(`total: ${part.lights.length} light${part.lights.length === 1 ? '' : 's'}`);
      expect(table).toContain(`${part.lights.length} not finished (scan interrupted)`);
      expect(table).not.toMatch(/[1-9]\d* with drift/);
      expect(table).not.toContain('DRIFT');
      const doc = lightsDocument({ list: part, matched: part.lights, shown: part.lights, totals });
      expect(lightsSchema.safeParse(doc).success).toBe(true);
      expect((doc.lights as { partial: boolean }[]).every((l) => l.partial)).toBe(true);
    });
  });
});
