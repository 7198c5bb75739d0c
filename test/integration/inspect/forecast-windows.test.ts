import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { forecastLights, withForecast } from '../../../src/inspect/forecast.js';
import { parseWindowsText, readWindowsFile } from '../../../src/inspect/forecast-windows.js';
import { listLights } from '../../../src/inspect/list.js';
import { openSession } from '../../../src/redis/connect.js';
import { lightsDocument } from '../../../src/report/listing.js';
import { renderLights } from '../../../src/report/lights.js';
import { lightsSchema } from '../../../src/schemas/lights.js';
import { FLEET, FLEET_SEED, writeFleet, type FleetLight } from '../../forecast-fleet.js';
import { withPrivateServer } from '../../helpers.js';
import { runCli } from '../../cli/run-cli.js';

// A 5.x fleet holding three windows of each light's traffic (5.x keeps a day of events):
// the span of its events is three times its window, so a forecast that took the span would be wrong.

/**
 * `swc bench` into stoplight-v6 at the light's own window, of the traffic the
 * light holds (its rate, failure share and seed, for three windows: bench's
 * --duration): bytes per light.
 */
async function benched(
  url: string,
  light: FleetLight,
  traffic: { windows: number; seed: number; failureRate?: number } = { windows: 3, seed: FLEET_SEED },
): Promise<number> {
  const session = await openSession({ redisUrl: url });
  try {
    const plan = {
      layouts: ['stoplight-v6'],
      windows: [light.windowSeconds],
      durationSeconds: light.windowSeconds * traffic.windows,
      rates: [light.rate],
      failureRate: traffic.failureRate ?? light.failureRate,
      lights: 1,
      seed: traffic.seed,
      commandsPerCall: false as const,
    };
    const report = await runBench({ session, plan, namespace: createNamespace() });
    return report.results[0]?.memory.bytesPerLight ?? Number.NaN;
  } finally {
    await session.close();
  }
}

/** A windows file giving each fleet light its own window: names, a glob, and units. */
function windowsFile(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'swc-windows-')), 'windows.txt');
  writeFileSync(file, ['# light or glob, window', 'search 1m', 'check* 120', 'payments 5m', '', 'ship?ing 3m  # a glob of one character', '* 1h'].join('\n'));
  return file;
}

describe.concurrent('lights --forecast: a window per light', () => {
  it('no --window: every light whose window is unknown is marked in the table and the JSON; with --windows each is within 2% of bench at its own window, and so is --forecast-even', async () => {
    await withPrivateServer({}, async (server, redis) => {
      const at = await writeFleet(redis, 3);
      const list = await listLights(redis, { at, windowSeconds: null });
      expect(list.lights.map((l) => l.light).sort()).toEqual(FLEET.map((l) => l.name).sort());
      for (const l of list.lights) {
        const light = FLEET.find((f) => f.name === l.light) as FleetLight;
        expect(l.events).toBe(light.rate * light.windowSeconds * 3);
      }

      // Without a window: the span is used, and every light says so in its own row.
      const guessed = await forecastLights(redis, list.lights, { layout: 'stoplight-v6', windowSeconds: null, at });
      expect(guessed.lights.map((f) => f.windowFrom)).toEqual(list.lights.map(() => 'span'));
      expect(guessed.fleet.windowSources).toEqual({ window: 0, windows: 0, registry: 0, span: 4 });
      const listing = withForecast({ list, matched: list.lights, shown: list.lights, totals: [] }, guessed);
      const text = renderLights({ ...listing, wide: false }, 'table', false);
      for (const l of list.lights) expect(text).toMatch(new RegExp(`│ ${l.light} .*│ window unknown: span used \\(`));
      expect(text).toContain('4 UNKNOWN, the span of their events used (give --window, or --windows <file>');
      expect(text).toContain("what it is: a replay of each light's own events");
      const doc = lightsSchema.parse(lightsDocument(listing)) as { lights: { forecast: { windowFrom: string } }[] };
      expect(doc.lights.every((l) => l.forecast.windowFrom === 'span')).toBe(true);

      // With a windows file: each light at its own window, within 2% of bench there (even traffic), and the even figure too.
      const rules = readWindowsFile(windowsFile());
      const forecast = await forecastLights(redis, list.lights, { layout: 'stoplight-v6', windowSeconds: null, at, windows: rules, even: true });
      expect(forecast.fleet.windowSources).toEqual({ window: 0, windows: 4, registry: 0, span: 0 });
      const bench = await Promise.all(FLEET.map((light) => benched(server.url, light)));
      // --forecast-even is `swc bench --window W --rate r --failure-rate f` with its defaults (one window, --seed 1), f the share the light held.
      const evenOf = (light: FleetLight) => forecast.lights[list.lights.findIndex((l) => l.light === light.name)]?.even;
      const plain = await Promise.all(
        FLEET.map((light) => benched(server.url, light, { windows: 1, seed: 1, failureRate: evenOf(light)?.failureRate ?? Number.NaN })),
      );
      expect(FLEET.map((light) => evenOf(light)?.rate)).toEqual(FLEET.map((light) => light.rate));
      const rows = FLEET.map((light, i) => {
        const f = forecast.lights[list.lights.findIndex((l) => l.light === light.name)];
        return {
          name: light.name,
          window: f?.windowSeconds,
          from: f?.windowFrom,
          replay: Math.abs((f?.bytes ?? Number.NaN) / (bench[i] as number) - 1) < 0.02,
          even: Math.abs((f?.even?.bytes ?? Number.NaN) / (plain[i] as number) - 1) < 0.02,
        };
      });
      process.stdout.write(
        `ratios: ${FLEET.map((l, i) => {
          const f = forecast.lights[list.lights.findIndex((x) => x.light === l.name)];
          return `${l.name} replay ${f?.bytes}/${bench[i]} even ${f?.even?.bytes}/${plain[i]}`;
        }).join('; ')}\n`,
      );
      expect(rows).toEqual(FLEET.map((l) => ({ name: l.name, window: l.windowSeconds, from: 'windows', replay: true, even: true })));
      const shown = renderLights({ ...withForecast({ list, matched: list.lights, shown: list.lights, totals: [] }, forecast), wide: false }, 'table', false);
      expect(shown).not.toMatch(/window unknown/);
      expect(shown).toMatch(/│ even traffic │/);
      expect(forecast.lights.find((f) => f.windowSeconds === 120)?.windowRule).toMatch(/windows\.txt:3 check\*$/);
    });
  });

  it('swc lights --forecast --windows <file>: the table names each window; a bad file is exit 2 naming its line', async () => {
    await withPrivateServer({}, async (server, redis) => {
      const at = await writeFleet(redis, 3);
      const file = windowsFile();
      const run = await runCli(['lights', '--redis-url', server.url, '--at', String(at), '--forecast', 'stoplight-v6', '--windows', file, '--no-progress']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/│ search .*│ 1 min \(file\)/);
      expect(run.stdout).toMatch(/window: 4 from --windows/);
      const plain = await runCli(['lights', '--redis-url', server.url, '--at', String(at), '--forecast', 'stoplight-v6', '--no-progress', '--json']);
      const doc = JSON.parse(plain.stdout) as { lights: { forecast: { windowFrom: string } }[]; forecast: { windowSources: { span: number } } };
      expect(doc.forecast.windowSources.span).toBe(4);
      const bad = path.join(path.dirname(file), 'bad.txt');
      writeFileSync(bad, 'search\n');
      const refused = await runCli(['lights', '--redis-url', server.url, '--forecast', 'stoplight-v6', '--windows', bad]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--windows: .*bad\.txt:1: expected "<light name or glob> <window>"/);
      const alone = await runCli(['lights', '--redis-url', server.url, '--windows', file]);
      expect(alone.code).toBe(2);
    });
  });

  it('a windows file: names, globs, units, comments; the first match wins', () => {
    const rules = parseWindowsText('w.txt', 'a* 5m\nabc 60 # never reached\nsystem/x? 1h\n');
    expect(rules.map((r) => [r.pattern, r.windowSeconds])).toEqual([
      ['a*', 300],
      ['abc', 60],
      ['system/x?', 3600],
    ]);
    expect(() => parseWindowsText('w.txt', '# nothing\n')).toThrow(/no rule in it/);
    expect(() => parseWindowsText('w.txt', 'a 0\n')).toThrow(/w\.txt:1/);
  });
});
