import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { inspectLight } from '../../src/inspect/inspect.js';
import { selectLights, totalsOf, type LightSelection } from '../../src/inspect/list.js';
import { nameBookOf, readListing, type Listing, type ListingRequest } from '../../src/inspect/listing.js';
import { listingOutput } from '../../src/report/listing.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { shortId, StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import { type PrivateServer } from '../../src/redis/server.js';
import type { ScriptCall } from '../../src/lua/source.js';
import { HOUR_START, ownServer, withPrivateServer } from '../helpers.js';
import { runCli } from './run-cli.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
const SYSTEMS = ['checkout', 'payments', 'search', 'default'];
/**
 * Half 5.x, half 6.0; the 6.0 ones spread over four systems. 1,000 lights (2,500 keys) take several SCAN pages at
 * --scan-count 1000 and read every light of both layouts; it was 4,000, and the seed and each spawned listing cost four times the CPU.
 */
const LIGHTS = 1000;
/** A count as swc prints it (1,000). */
const n = (count: number): string => count.toLocaleString('en-US');
/** The 6.0 lights of one system. */
const PER_SYSTEM = LIGHTS / 2 / SYSTEMS.length;
/** Every light's last event is at this second, so idle time is exact with --at. */
const LAST = HOUR_START + 600;

interface Listed {
  layout: string;
  light: string;
  systemId: string | null;
  reference: string;
  bytes: number;
  events: number | null;
  staleEvents: number | null;
  idleSeconds: number | null;
  drift: boolean | null;
}
interface ListJson {
  schemaVersion: number;
  matched: number;
  totals: { layout: string; lights: number; events: number | null; drifted: number }[];
  total: { lights: number; events: number | null; drifted: number };
  lights: Listed[];
}

let server: PrivateServer;
let redis: Redis;
const v5 = new StoplightV5();
const v6 = new StoplightV6();
const lightOf = (i: number) => ({ name: `light-${i}`, system: SYSTEMS[Math.floor(i / 2) % SYSTEMS.length] as string });

/** Real-shaped lights, written by the layouts' own scripts: 10 events each over 30 s, a failure every third event. */
async function seed(): Promise<void> {
  await installScripts(redis, [...v5.scripts, ...v6.scripts]);
  const calls: ScriptCall[] = [];
  for (let i = 0; i < LIGHTS; i += 1) {
    const layout = i % 2 === 0 ? v5 : v6;
    for (let e = 0; e < 10; e += 1) {
      const options = { at: LAST - 27 + e * 3, windowSeconds: 60 };
      calls.push(e % 3 === 0 ? layout.recordFailure(lightOf(i), { ...options, errorJson: ERROR_JSON }) : layout.recordSuccess(lightOf(i), options));
    }
  }
  for (let i = 0; i < calls.length; i += 5000) await execPipeline(redis, calls.slice(i, i + 5000));
}

// A private server of its own: lights scans the default prefixes, so other tests' lights must not count here.
ownServer(async (s, r) => {
  server = s;
  redis = r;
  await seed();
});

// A fixed COUNT: these tests check what is listed and said, and the adaptive COUNT (src/redis/scan.ts) paces
// thousands of keys past the progress line's delay; test/cli/lights-scan.test.ts and the scan-budget test hold the pacing.
const lights = (...args: string[]) => runCli(['lights', '--redis-url', server.url, '--at', String(LAST + 96), '--scan-count', '1000', ...args]);

/**
 * Each listing of every light costs a full scan and read (about 2 s of CPU at 4,000 lights):
 * the spawned runs are kept one per surface (table, --json, csv, a flag of
 * each kind, --check, exit 2 and 3), and the filters' logic is checked in
 * this process on what `swc lights` calls (readListing, selectLights,
 * listingOutput). `swc lights --json` runs once for the cases that read it.
 */
let jsonRun: ReturnType<typeof lights> | undefined;
const lightsJson = () => (jsonRun ??= lights('--json'));
/** What `swc lights` reads for `flags` (as src/commands/listing.ts asks for it), without the pause between SCAN calls. */
const listIn = (request: Partial<ListingRequest> & { system?: string; match?: string } = {}): Promise<Listing> =>
  readListing(redis, {
    windowSeconds: null,
    at: LAST + 96,
    names: nameBookOf({
      ...(request.system !== undefined ? { system: request.system } : {}),
      ...(request.match !== undefined ? { match: request.match } : {}),
    }),
    scanPauseMs: 0,
    scanCount: 1000,
    stopped: () => false,
    ...request,
  });
/** Every light, listed once (no filter), for the filters' checks. */
let everyLight: Promise<Listing> | undefined;
const listedAll = () => (everyLight ??= listIn());
/** A selection of the list as `swc lights` makes it: the matched lights, those shown and the totals over every match. */
const select = async (selection: LightSelection) => {
  const { matched, shown } = selectLights((await listedAll()).list, selection);
  return { matched: matched.length, lights: shown, totals: totalsOf(matched) };
};

describe(`swc lights over ${n(LIGHTS)} lights in several systems`, () => {
  it(`lists all ${n(LIGHTS)} and prints a total per layout and overall`, async () => {
    // --no-progress: a scan that passes a second (a busy machine) prints a progress line on stderr.
    const run = await lights('--top', '10', '--no-progress');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Its cost is counted, not timed: test/cli/lights-scan.test.ts holds the SCAN calls to DBSIZE / COUNT + 2.
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => /^│ [a-z ]+│ stoplight-/.test(l))).toHaveLength(10);
    expect(run.stdout).toContain(`total stoplight-v5: ${n(LIGHTS / 2)} lights, ${n((LIGHTS / 2) * 3)} keys`);
    expect(run.stdout).toContain(`total stoplight-v6: ${n(LIGHTS / 2)} lights, ${n((LIGHTS / 2) * 2)} keys`);
    expect(run.stdout).toMatch(new RegExp(`^total: ${n(LIGHTS)} lights, ${n(LIGHTS * 2.5)} keys, [\\d,.]+ KB, ${n(LIGHTS * 10)} events, 0 with drift$`, 'm'));
    expect(run.stdout).toContain(`showing 10 of ${n(LIGHTS)} (--top)`);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(120);
  });

  it('--json: every light with events, idle time and a reference; totals over every match', async () => {
    const run = await lightsJson();
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as ListJson;
    expect(doc.schemaVersion).toBe(3);
    expect(doc.lights).toHaveLength(LIGHTS);
    expect(doc.total).toMatchObject({ lights: LIGHTS, events: LIGHTS * 10, drifted: 0 });
    expect(doc.lights.every((l) => l.events === 10 && l.idleSeconds === 96 && l.drift !== true)).toBe(true);
    const light = doc.lights.find((l) => l.light === shortId('light-1'));
    expect(light).toMatchObject({
      layout: 'stoplight-v6',
      systemId: shortId('checkout'),
      reference: `${shortId('checkout')}/${shortId('light-1')}`,
      drift: false,
    });
    // No constant estimate any more, and no forecast without --forecast (it replays on a private server).
    const old = doc.lights.find((l) => l.light === 'light-0');
    expect(old).toBeDefined();
    expect(Object.keys(old ?? {}).filter((k) => /estimate|forecast/.test(k))).toEqual([]);
  });

  it('--sort, --top, --system (name or id), --match and --layout narrow the list; totals follow the filter', async () => {
    // One spawn takes a flag of each kind (--window, --system, --sort, --top) at once; the rest runs in this process.
    const [spawned, bySystem, byId, named, v6Only, stale] = await Promise.all([
      lights('--window', '60', '--system', 'payments', '--sort', 'name', '--top', '2', '--json'),
      select({ system: 'payments' }),
      select({ system: shortId('payments'), top: 3 }),
      select({ match: 'light-1?', sort: 'name' }),
      listIn({ layout: ['stoplight-v6'], sort: 'events', top: 1 }),
      listIn({ windowSeconds: 60, match: 'light-0' }),
    ]);
    expect(spawned.code).toBe(0);
    const windowed = JSON.parse(spawned.stdout) as ListJson;
    expect(windowed.matched).toBe(PER_SYSTEM);
    expect(windowed.totals).toEqual([expect.objectContaining({ layout: 'stoplight-v6', lights: PER_SYSTEM })]);
    expect(windowed.lights.map((l) => l.light)).toEqual((await select({ system: 'payments', sort: 'name', top: 2 })).lights.map((l) => l.light));
    expect(windowed.lights.every((l) => l.systemId === shortId('payments') && l.staleEvents === 10)).toBe(true);
    expect(bySystem.matched).toBe(PER_SYSTEM);
    expect(bySystem.lights.every((l) => l.systemId === shortId('payments'))).toBe(true);
    expect(byId.matched).toBe(PER_SYSTEM);
    expect(byId.lights).toHaveLength(3);
    expect(byId.totals).toEqual([expect.objectContaining({ layout: 'stoplight-v6', lights: PER_SYSTEM })]);
    expect(named.lights.map((l) => l.light)).toEqual(['light-10', 'light-12', 'light-14', 'light-16', 'light-18']);
    expect(v6Only.totals.map((t) => t.layout)).toEqual(['stoplight-v6']);
    expect(v6Only.shown).toHaveLength(1);
    // At LAST + 96 with a 60 s window, every event (LAST - 27 .. LAST) is outside it.
    expect(stale.shown[0]).toMatchObject({ light: 'light-0', staleEvents: 10 });
  });

  it('csv and markdown', async () => {
    // csv spawned (with --match); markdown is the same listing rendered in this process.
    const [csvRun, all] = await Promise.all([lights('--format', 'csv', '--match', 'light-2'), listedAll()]);
    expect(csvRun.code).toBe(0);
    const csv = csvRun.stdout.trim().split('\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toMatch(/^stoplight-v5,light-2,light-2,,3,\d+,true,10,0,,96,,/);
    const top2 = selectLights(all.list, { top: 2 });
    const md = listingOutput(
      { ...all, ...top2, totals: totalsOf(top2.matched) },
      { format: 'markdown', wide: false, color: false, check: false, snapshot: false, stopCause: () => 'nothing' },
    ).stdout;
    expect(md).toMatch(/^\| state \| layout \| light \| KB \|/);
    expect(md).toContain('|\n\n- total stoplight-');
    expect(md).toContain(`\n- total: ${n(LIGHTS)} lights`);
  });

  it('--json with another --format is bad usage (exit 2)', async () => {
    const run = await lights('--json', '--format', 'csv');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--json/--format');
  });

  it('references round-trip: each form lights prints, and each form the issue names, opens the same light in inspect', async () => {
    const doc = JSON.parse((await lightsJson()).stdout) as ListJson;
    const five = doc.lights.find((l) => l.light === shortId('light-5')) as Listed;
    const four = doc.lights.find((l) => l.light === 'light-4') as Listed;
    const key = `stoplight:v6:${shortId('search')}:{${shortId('light-5')}}:window_metrics`;
    const forms: [string, string[]][] = [
      ['reference of a 5.x light (its name)', [four.reference]],
      ['reference of a 6.0 light (system-id/light-id)', [five.reference]],
      ['a 6.0 light id alone', [shortId('light-5')]],
      ['a name with --system <name>', ['light-5', '--system', 'search']],
      ['a name with --system <id>', ['light-5', '--system', shortId('search')]],
      ['a full key', [key]],
    ];
    // The 6.0 reference through `swc inspect`; every form through what inspect calls (inspectLight, with its name book).
    const [spawned, ...inProcess] = await Promise.all([
      runCli(['inspect', five.reference, '--redis-url', server.url, '--json']),
      ...forms.map(([, [light, flag, system]]) =>
        inspectLight(
          redis,
          { light: light!, layout: 'auto', ...(flag === '--system' ? { system: system! } : {}) },
          undefined,
          nameBookOf(flag === '--system' ? { system: system! } : {}),
        ),
      ),
    ]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const cli = JSON.parse(spawned.stdout) as { inspections: { layout: string; lightId?: string; systemId?: string; totals: unknown }[] };
    expect(cli.inspections).toHaveLength(1);
    expect(cli.inspections[0]).toMatchObject({
      layout: 'stoplight-v6',
      lightId: shortId('light-5'),
      systemId: shortId('search'),
      totals: { successes: 6, failures: 4 },
    });
    for (const [i, [label, args]] of forms.entries()) {
      const inspections = inProcess[i]!;
      expect(inspections, label).toHaveLength(1);
      const [first] = inspections as { layout: string; lightId?: string; systemId?: string; totals: unknown }[];
      if (args[0] === four.reference) expect(first?.layout).toBe('stoplight-v5');
      else expect(first, label).toMatchObject({ layout: 'stoplight-v6', lightId: shortId('light-5'), systemId: shortId('search') });
      expect(first?.totals).toEqual({ successes: 6, failures: 4 });
    }
  });
});

describe('drift: lights marks it, --check exits 1; inspect --check too', () => {
  it('a planted HINCRBY total_failures 7 shows as DRIFT, and --check exits 1 naming the light', async () => {
    const light = lightOf(7);
    await redis.hincrby(v6.metricsKey(light), 'total_failures', 7);
    try {
      const reference = `${shortId(light.system)}/${shortId(light.name)}`;
      // Four read-only runs over the planted drift at once; --check's stderr is compared whole (--no-progress:
      // no scan progress line however slow the scan), and --top 10, as --check judges every match
      // and a table of every light takes seconds to draw.
      const [check, table, clean, inspect, checked] = await Promise.all([
        lights('--check', '--top', '10', '--no-progress'),
        listIn({ match: reference }),
        lights('--check', '--layout', 'stoplight-v5'),
        runCli(['inspect', reference, '--redis-url', server.url]),
        runCli(['inspect', reference, '--redis-url', server.url, '--check', '--json']),
      ]);
      // --check's totals count the light; --match <reference> narrows to it and its row is marked (in this process).
      expect(check.stdout).toContain('1 with drift');
      expect(check.stdout).toContain(`showing 10 of ${n(LIGHTS)} (--top)`);
      expect(table.matched.map((l) => l.reference)).toEqual([reference]);
      const drawn = listingOutput(table, { format: 'table', wide: false, color: false, check: false, snapshot: false, stopCause: () => 'nothing' });
      expect(drawn.code).toBe(0);
      expect(drawn.stdout).toMatch(/│ DRIFT │/);
      expect(drawn.stdout).toContain('1 with drift');
      expect(check.code).toBe(1);
      expect(check.stderr).toBe(`swc: drift in 1 light(s): ${reference} (swc inspect <light> shows where)\n`);
      expect(clean.code).toBe(0);

      expect(inspect.code).toBe(0);
      expect(inspect.stdout).toContain('drift    found');
      expect(checked.code).toBe(1);
      expect(JSON.parse(checked.stdout)).toMatchObject({
        schemaVersion: 3,
        drift: true,
        inspections: [{ totals: { successes: 6, failures: 4 }, storedTotals: { successes: 6, failures: 11 } }],
      });
      expect(checked.stderr).toContain('swc: drift in stoplight-v6');
    } finally {
      await redis.hincrby(v6.metricsKey(light), 'total_failures', -7);
    }
  });
});

describe('swc lights: bad usage and large lights', () => {
  // Every bad flag (exit 2, one line, before connecting) runs in-process in
  // test/unit/commands/lights-usage.test.ts; a spawn shows one.
  it('rejects a bad flag with one line and exit 2, before connecting', async () => {
    const run = await runCli(['lights', '--redis-url', 'redis://127.0.0.1:1', '--top', '0']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^swc: .*--top: must be 1 to 10000000/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a 6.0 hash over 20,000 fields is listed with its bytes but not read whole: events and drift unknown', async () => {
    // On a server of its own: a listing of it alone does not scan the other lights again.
    await withPrivateServer({}, async (own, admin) => {
      const system = `big-${process.pid}`;
      const light = { name: 'huge', system };
      const fields: Record<string, string> = { total_successes: '10001', total_failures: '0' };
      for (let i = 0; i <= 10_000; i += 1) {
        fields[`bucket:${HOUR_START + i}:s`] = '1';
        fields[`bucket:${HOUR_START + i}:f`] = '0';
      }
      await admin.hset(v6.metricsKey(light), fields);
      await admin.zadd(v6.indexKey(light), HOUR_START, `bucket:${HOUR_START}`);
      const run = await runCli(['lights', '--redis-url', own.url, '--at', String(LAST + 96), '--scan-count', '1000', '--system', system, '--json']);
      expect(run.code).toBe(0);
      const [listed] = (JSON.parse(run.stdout) as ListJson).lights;
      expect(listed).toMatchObject({ events: null, drift: null, keys: 2 });
      expect(listed?.bytes).toBeGreaterThan(100_000);
    });
  });
});

describe('an ACL user limited to ~app:* runs lights', () => {
  it('exit 3, the hint names the pattern lights reads (stoplight:*), not only the one a bench writes', async () => {
    await withPrivateServer({}, async (own, admin) => {
      await admin.call('ACL', 'SETUSER', 'apponly', 'on', '>pw-apponly', '~app:*', '+@all');
      await admin.hset('stoplight:v5:metadata:a', 'last_success_at', '1');
      const url = new URL(own.url);
      url.username = 'apponly';
      url.password = 'pw-apponly';
      const result = await runCli(['lights', '--redis-url', url.toString()]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(
        /^swc: Redis ACL denies .* \(NOPERM\): grant it \(e\.g\. ACL SETUSER <user> ~swc-bench:\* for a bench, %R~stoplight:\* for lights and inspect\)/m,
      );
      expect(result.stdout + result.stderr).not.toContain('pw-apponly');
    });
  });
});
