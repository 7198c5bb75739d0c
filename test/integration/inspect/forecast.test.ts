import { describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { forecastLights, withForecast } from '../../../src/inspect/forecast.js';
import { listLights } from '../../../src/inspect/list.js';
import type { LightListing } from '../../../src/layouts/inspection.js';
import { openSession } from '../../../src/redis/connect.js';
import { lightsDocument } from '../../../src/report/listing.js';
import { renderLights } from '../../../src/report/lights.js';
import { lightsSchema } from '../../../src/schemas/lights.js';
import { FLEET, FLEET_AT, FLEET_SEED, writeFleet, type FleetLight } from '../../forecast-fleet.js';
import { commandCalls, digest, withPrivateServer } from '../../helpers.js';

// A 5.x fleet written the way `swc bench` fills a cell (test/forecast-fleet.ts),
// then `lights --forecast stoplight-v6` against `swc bench` of the same traffic.

/** `swc bench` of one light's traffic into stoplight-v6: bytes per light. */
async function benched(url: string, light: FleetLight): Promise<number> {
  const session = await openSession({ redisUrl: url });
  try {
    const plan = {
      layouts: ['stoplight-v6'],
      windows: [light.windowSeconds],
      rates: [light.rate],
      failureRate: light.failureRate,
      lights: 1,
      seed: FLEET_SEED,
      commandsPerCall: false as const,
    };
    const report = await runBench({ session, plan, namespace: createNamespace() });
    return report.results[0]?.memory.bytesPerLight ?? Number.NaN;
  } finally {
    await session.close();
  }
}

const nameOf = (l: LightListing): string => l.light;

describe.concurrent('swc lights --forecast', () => {
  it('replays a 5.x fleet into stoplight-v6 within 2% of swc bench for each light, without writing to the server listed', async () => {
    await withPrivateServer({}, async (server, redis) => {
      await writeFleet(redis);
      const before = await digest(redis, '*');
      const evalsBefore = await commandCalls(redis, 'evalsha');
      const list = await listLights(redis, { at: FLEET_AT, windowSeconds: null });
      expect(list.lights.map(nameOf).sort()).toEqual(FLEET.map((l) => l.name).sort());

      const forecast = await forecastLights(redis, list.lights, { layout: 'stoplight-v6', windowSeconds: null, at: FLEET_AT });
      // Read-only on the server listed: the same keys and values, and no script ran there.
      expect(await digest(redis, '*')).toEqual(before);
      expect(await commandCalls(redis, 'evalsha')).toBe(evalsBefore);

      const bench = await Promise.all(FLEET.map((light) => benched(server.url, light)));
      const rows = FLEET.map((light, i) => {
        const at = list.lights.findIndex((l) => l.light === light.name);
        const f = forecast.lights[at];
        return { name: light.name, method: f?.method, events: f?.events, forecast: f?.bytes ?? Number.NaN, bench: bench[i] as number };
      });
      for (const [i, row] of rows.entries()) {
        const light = FLEET[i] as (typeof FLEET)[number];
        expect({ name: row.name, method: row.method, events: row.events }).toEqual({
          name: light.name,
          method: 'measured',
          events: light.rate * light.windowSeconds,
        });
        // Within 2% of bench for the light's own rate, failure share and duration.
        expect({ name: row.name, ratio: Math.abs(row.forecast / row.bench - 1) < 0.02 }).toEqual({ name: row.name, ratio: true });
      }
      // 6.0 holds a bucket a second: far less than 5.x's member per event at 10/s.
      const search = list.lights.find((l) => l.light === 'search') as LightListing;
      expect(rows[0]?.forecast).toBeLessThan((search.bytes ?? 0) / 2);
      expect(forecast.fleet).toMatchObject({ layout: 'stoplight-v6', lights: 4, measured: 4, sampledOut: 0, extrapolated: false });
      expect(forecast.fleet.totalBytes).toBe(rows.reduce((sum, r) => sum + r.forecast, 0));
      process.stdout.write(`forecast vs bench (bytes): ${rows.map((r) => `${r.name} ${r.forecast} / ${Math.round(r.bench)}`).join(', ')}\n`);
    });
  });

  it('with a sample of 2 of 4 lights: 2 measured, 2 sampled out, the fleet extrapolated and labelled', async () => {
    await withPrivateServer({}, async (_server, redis) => {
      await writeFleet(redis);
      const list = await listLights(redis, { at: FLEET_AT, windowSeconds: 300 });
      const forecast = await forecastLights(redis, list.lights, { layout: 'stoplight-v6', windowSeconds: 300, at: FLEET_AT, sample: 2 });
      const methods = forecast.lights.map((f) => f.method).sort();
      expect(methods).toEqual(['measured', 'measured', 'sampled-out', 'sampled-out']);
      const measured = forecast.lights.filter((f) => f.method === 'measured');
      const sum = measured.reduce((s, f) => s + (f.bytes ?? 0), 0);
      expect(forecast.fleet).toMatchObject({ lights: 4, measured: 2, sampledOut: 2, extrapolated: true, measuredBytes: sum, totalBytes: Math.round(sum * 2) });
      expect(forecast.lights.filter((f) => f.method === 'sampled-out').every((f) => f.bytes === null)).toBe(true);
      // The sample spans the sizes: the smallest and the largest light are not both left out.
      const bySize = [...list.lights.keys()].sort((a, b) => (list.lights[a]?.bytes ?? 0) - (list.lights[b]?.bytes ?? 0));
      expect(forecast.lights[bySize[0] as number]?.method === 'measured' || forecast.lights[bySize[3] as number]?.method === 'measured').toBe(true);

      // What the JSON and the table say.
      const listing = withForecast({ list, matched: list.lights, shown: list.lights, totals: [] }, forecast);
      const doc = lightsSchema.parse(lightsDocument(listing)) as { forecast: { extrapolated: boolean }; lights: { forecast: { method: string } }[] };
      expect(doc.forecast.extrapolated).toBe(true);
      expect(doc.lights.map((l) => l.forecast.method).sort()).toEqual(methods);
      const text = renderLights({ ...listing, wide: false }, 'table', false);
      expect(text).toContain('forecast in stoplight-v6: fleet ≈');
      expect(text).toContain('EXTRAPOLATED from 2 of 4 lights');
      expect(text).toContain('not sampled: 2 lights (--forecast-sample 2)');
      expect(text.match(/not sampled │/g)).toHaveLength(2);
    });
  });
});
