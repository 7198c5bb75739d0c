import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { shortId } from '../../../src/layouts/stoplight/v6.js';
import type { PrivateServer } from '../../../src/redis/server.js';
import { renderInspections } from '../../../src/report/inspect.js';
import type { BucketInspection } from '../../../src/layouts/inspection.js';
import { ownServer } from '../../helpers.js';
import { AT, LAST, seedOperatorLights } from '../../operator-lights.js';
import { runInProcess } from '../../unit/in-process.js';

// What an operator's lights and inspect print for an application's lights,
// in-process through the same program as the CLI. The spawned CLI keeps
// --watch's Ctrl-C and one inspect case per process path
// (test/cli/operator.test.ts).

interface Listed {
  layout: string;
  light: string;
  systemId: string | null;
  systemName: string | null;
  lightName: string | null;
  name: string;
  reference: string;
  windowSuccesses: number | null;
  windowFailures: number | null;
  failureRate: number | null;
  overThreshold?: boolean;
}
interface ListJson {
  lights: Listed[];
  problems: string[];
  leftovers: { namespace: string; keys: number }[];
  partial: boolean;
  scan: { calls: number; match: string | null; dbsize: number };
}

let server: PrivateServer;
let redis: Redis;
let dir: string;
// Its own server: the listings count every light on it.
ownServer((own, client) => {
  server = own;
  redis = client;
});
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swc-operator-'));
  await seedOperatorLights(redis);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lights = (...args: string[]) => runInProcess(['lights', '--redis-url', server.url, '--at', String(AT), ...args]);
const listJson = async (...args: string[]): Promise<ListJson> => {
  const run = await lights('--json', ...args);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ListJson;
};
/** `swc lights --json` with no flag: run once, read by three cases (none of them writes). */
let plain: Promise<ListJson> | undefined;
const plainJson = (): Promise<ListJson> => (plain ??= listJson());

describe('names for 6.0 lights', () => {
  it('a registry entry names its light; the default system is always named', async () => {
    const doc = await plainJson();
    const stripe = doc.lights.find((l) => l.light === shortId('stripe-api'));
    expect(stripe).toMatchObject({ lightName: 'stripe-api', systemName: null, name: `${shortId('payments')}/stripe-api` });
    const unnamed = doc.lights.find((l) => l.systemId === shortId('default'));
    expect(unnamed).toMatchObject({ systemName: 'default', lightName: null, name: `default/${shortId('checkout')}` });
  });

  it('--names <file> names systems and lights (light or system/light per line); table, JSON and CSV show them', async () => {
    const file = path.join(dir, 'names.txt');
    writeFileSync(file, '# our lights\npayments/checkout\nsearch/query\n\n');
    // Read-only runs.
    const [doc, table, csv, bad] = await Promise.all([
      listJson('--names', file),
      lights('--names', file),
      lights('--names', file, '--format', 'csv'),
      lights('--names', path.join(dir, 'missing.txt')),
    ]);
    expect(doc.lights.map((l) => l.name).sort()).toEqual(['default/checkout', 'legacy', 'payments/checkout', 'payments/stripe-api', 'search/query']);
    expect(table.stdout).toContain('│ payments/stripe-api');
    expect(csv.stdout).toMatch(/,payments\/checkout,payments,checkout,/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^swc: --names: .*missing\.txt: no such file\n$/);
  });

  it('a literal --match is a name, hashed: it finds checkout in both systems; a literal --system too', async () => {
    // Read-only runs.
    const [doc, both, glob, unknown] = await Promise.all([
      listJson('--match', 'checkout'),
      listJson('--match', 'checkout', '--system', 'payments'),
      listJson('--match', 'stripe*'),
      lights('--match', 'check*'),
    ]);
    expect(doc.lights.map((l) => l.name).sort()).toEqual(['default/checkout', `${shortId('payments')}/checkout`]);
    expect(both.lights.map((l) => l.name)).toEqual(['payments/checkout']);
    // A glob matches names where they are known (the registry named stripe-api).
    expect(glob.lights.map((l) => l.lightName)).toEqual(['stripe-api']);
    // A glob cannot match a name swc does not know; the listing says what would.
    expect(unknown.stdout).toBe(
      `no light matched --match check* (5 light(s) on redis://127.0.0.1:${server.port}/0); 3 6.0 light(s) have no known name for a pattern to match: give --names <file>, or a literal name (hashed)\n`,
    );
  });

  it('inspect: a name is read in the default system first (no walk); --system or system/light picks another', async () => {
    const [run, picked, pair] = await Promise.all([
      runInProcess(['inspect', 'checkout', '--redis-url', server.url]),
      runInProcess(['inspect', 'checkout', '--system', 'payments', '--redis-url', server.url, '--at', String(AT)]),
      runInProcess(['inspect', 'payments/stripe-api', '--redis-url', server.url, '--json']),
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The server's line first, then the light.
    expect(run.stdout.split('\n')[0]).toBe(`Server: redis://127.0.0.1:${server.port}/0`);
    expect(run.stdout.split('\n')[1]).toBe(`stoplight-v6  default/checkout  (system id ${shortId('default')}, light id ${shortId('checkout')})`);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stdout.split('\n')[1]).toBe(`stoplight-v6  payments/checkout  (system id ${shortId('payments')}, light id ${shortId('checkout')})`);
    const doc = JSON.parse(pair.stdout) as { inspections: BucketInspection[] };
    expect(doc.inspections[0]).toMatchObject({ systemName: 'payments', lightName: 'stripe-api', systemId: shortId('payments') });
  });
});

describe('what is not a light', () => {
  it('a string under a 5.x name is a problem, never a light; garbage counters are a problem line; leftovers point to swc clean', async () => {
    const [doc, table, inspect] = await Promise.all([
      plainJson(),
      lights(),
      runInProcess(['inspect', 'search/query', '--redis-url', server.url, '--at', String(AT)]),
    ]);
    expect(doc.lights.some((l) => l.light === 'broken')).toBe(false);
    expect(doc.problems).toContain('stoplight:v5:metadata:broken is a string, expected a hash: not a stoplight-v5 metadata key, not listed');
    expect(doc.problems).toContain(
      `stoplight:v6:${shortId('search')}:{${shortId('query')}}:window_metrics field bucket:${LAST - 3}:s holds "abc", not a count: counted as 0`,
    );
    expect(doc.leftovers).toEqual([{ namespace: 'swc-bench:deadbeef', keys: 1 }]);
    expect(table.stdout).toContain('problem: stoplight:v5:metadata:broken is a string');
    expect(table.stdout).toContain('leftovers: 1 swc-bench namespace(s) with 1 key(s) (swc-bench:deadbeef): not lights; swc clean lists and removes them');
    expect(table.stdout).not.toContain('NaN');
    expect(inspect.stderr).toContain(`field bucket:${LAST - 3}:s holds "abc", not a count`);
    expect(inspect.stdout).not.toContain('NaN');
  });
});

describe('incidents', () => {
  it('--window gives each light its failure rate; --threshold marks those at or over it; --sort rate puts them first', async () => {
    const [doc, table, none] = await Promise.all([
      listJson('--window', '10', '--threshold', '0.5', '--sort', 'rate'),
      lights('--window', '10', '--threshold', '0.5', '--sort', 'rate'),
      plainJson(),
    ]);
    // The 6.0 window (at - 10, at] holds the burst's last 9 seconds: 18 successes, 72 failures.
    expect(doc.lights[0]).toMatchObject({ lightName: 'stripe-api', windowSuccesses: 18, windowFailures: 72, failureRate: 0.8, overThreshold: true });
    expect(doc.lights.slice(1).every((l) => l.overThreshold === false)).toBe(true);
    const legacy = doc.lights.find((l) => l.light === 'legacy');
    // 5.x counts [at - 10, at]: 11 seconds, the last of them empty.
    expect(legacy).toMatchObject({ windowSuccesses: 10, windowFailures: 0, failureRate: 0 });
    const first = table.stdout.split('\n').find((l) => /^│ [a-z ]+│ stoplight-/.test(l)) ?? '';
    expect(first).toContain('stripe-api');
    expect(first).toContain('80.0% ≥');
    expect(table.stdout).toContain('fail rate ≥: 1 light at or over --threshold 0.5 in the window');
    // Without --window only a light with a registered window_size has a rate: stripe-api's 300 s hold its whole minute (130 of 600 failing).
    expect(none.lights.filter((l) => l.failureRate !== null).map((l) => [l.lightName, l.windowFailures, l.windowSuccesses])).toEqual([
      ['stripe-api', 130, 470],
    ]);
  });

  it('inspect shows failures apart from successes over time: a 10-second burst at 80% stands out', async () => {
    const [inspection] = await inspectLight(redis, { light: 'stripe-api', system: 'payments', windowSeconds: 60, at: AT });
    const text = renderInspections(inspection ? [inspection] : [], { color: false, limit: 5, picture: true });
    const line = (label: string): string => /│(.*)│/.exec(text.split('\n').find((l) => l.startsWith(label)) ?? '')?.[1] ?? '';
    const failures = line('failures  ');
    const rate = line('fail rate ');
    expect([...failures]).toHaveLength(60);
    // 10% failures before the burst are the lowest block; the burst's 80% are tall, on the fixed 0–100% scale.
    // The window (AT - 60, AT] starts a second into the traffic and ends a second after it: 49 seconds before the burst, its 10, one empty.
    expect(rate).toBe(`${'▁'.repeat(49)}${'▇'.repeat(10)} `);
    expect(text).toMatch(/fail rate │.*│ 0–100%, peak 80%/);
    expect(failures).toBe(`${'▂'.repeat(49)}${'█'.repeat(10)} `);
    // The successes drop in the burst, but the volume (10 a second) does not: a volume sparkline would not show it.
    expect(line('successes ')).toBe(`${'█'.repeat(49)}${'▂'.repeat(10)} `);
  });
});

describe('what inspect prints is right', () => {
  it('lights fits 80 columns (COLUMNS=80): fewer columns, no wrapped rows; --wide keeps every column', async () => {
    const [narrow, wide, ...inspected] = await Promise.all([
      runInProcess(['lights', '--redis-url', server.url, '--at', String(AT), '--window', '60'], { COLUMNS: '80' }),
      runInProcess(['lights', '--redis-url', server.url, '--at', String(AT), '--window', '60', '--wide'], { COLUMNS: '80' }),
      ...['payments/stripe-api', 'legacy'].map((light) =>
        runInProcess(['inspect', light, '--redis-url', server.url, '--at', String(AT), '--window', '60'], { COLUMNS: '80' }),
      ),
    ]);
    const widest = Math.max(
      ...narrow.stdout
        .split('\n')
        .filter((l) => /^[│┌├└]/.test(l))
        .map((l) => [...l].length),
    );
    expect(widest).toBeLessThanOrEqual(80);
    expect(narrow.stdout).toContain('fail rate');
    // inspect too: every line of a 6.0 and a 5.x light within 80 columns (tables drop columns, prose breaks between words).
    for (const shown of inspected) {
      expect(shown.code, shown.stderr).toBe(0);
      expect(Math.max(...shown.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(80);
      expect(shown.stdout).toContain('longest B/limit');
    }
    expect(wide.stdout).toContain('first event');
    expect(wide.stdout).toContain('layout');
  });
});
