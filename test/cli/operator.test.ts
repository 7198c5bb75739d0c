import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectLight } from '../../src/inspect/inspect.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { shortId, StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { connect } from '../../src/redis/connect.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { renderInspections } from '../../src/report/inspect.js';
import type { ScriptCall } from '../../src/lua/source.js';
import type { BucketInspection } from '../../src/layouts/inspection.js';
import { HOUR_START } from '../helpers.js';
import { runCli, SWC_BIN } from './run-cli.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';
/** The last second with traffic; every command judges at AT with --at. */
const LAST = HOUR_START + 1200;
const AT = LAST + 1;

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
const v5 = new StoplightV5();
const v6 = new StoplightV6();

/**
 * Lights as an application writes them (the layouts' own scripts): checkout
 * in two systems, stripe-api (named by a registry entry) with a 10-second
 * burst at 80% failures at the end of a minute of 10% failures, query with a
 * garbage counter, a 5.x light, a string under a 5.x metadata name, and a
 * leftover benchmark key.
 */
async function seed(): Promise<void> {
  await installScripts(redis, [...v5.scripts, ...v6.scripts]);
  const calls: ScriptCall[] = [];
  const lights = [
    ['payments', 'checkout'],
    ['default', 'checkout'],
    ['payments', 'stripe-api'],
    ['search', 'query'],
  ] as const;
  for (const [system, name] of lights) {
    for (let i = 0; i < 60; i += 1) {
      // Fractional times: 6.0 stores its stamps as float seconds.
      const options = { at: LAST - 59 + i + 0.94, windowSeconds: 600 };
      // stripe-api: 10 calls a second, 1 failing, then 8 failing in the last 10 seconds.
      const perSecond = name === 'stripe-api' ? 10 : 1;
      for (let e = 0; e < perSecond; e += 1) {
        const fail = name === 'stripe-api' ? e < (i >= 50 ? 8 : 1) : i % 10 === 0;
        calls.push(fail ? v6.recordFailure({ name, system }, { ...options, errorJson: ERROR_JSON }) : v6.recordSuccess({ name, system }, options));
      }
    }
  }
  for (let i = 0; i < 20; i += 1) calls.push(v5.recordSuccess({ name: 'legacy' }, { at: LAST - 19 + i, windowSeconds: 60 }));
  await execPipeline(redis, calls);
  const registry = { meta: { version: 1, registered_at: LAST }, config: { id: shortId('stripe-api'), name: 'stripe-api', window_size: 300, threshold: 0.5 } };
  await redis.hset(`stoplight:v6:${shortId('payments')}:lights`, shortId('stripe-api'), JSON.stringify(registry));
  await redis.set('stoplight:v5:metadata:broken', 'not a hash');
  await redis.set('swc-bench:deadbeef:stoplight:v6:left', '1');
  await redis.hset(`stoplight:v6:${shortId('search')}:{${shortId('query')}}:window_metrics`, `bucket:${LAST - 3}:s`, 'abc');
}

beforeAll(async () => {
  server = await startPrivateServer();
  redis = await connect(server.url);
  dir = mkdtempSync(path.join(os.tmpdir(), 'swc-operator-'));
  await seed();
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const lights = (...args: string[]) => runCli(['lights', '--redis-url', server.url, '--at', String(AT), ...args]);
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
    // Read-only runs: at once.
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
    // Read-only runs: at once.
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
      'no light matched --system/--match (5 light(s) on this server); 3 6.0 light(s) have no known name for a pattern to match: give --names <file>, or a literal name (hashed)\n',
    );
  });

  it('inspect: a name in several systems is exit 2 listing them; --system or system/light picks one', async () => {
    const [run, picked, pair] = await Promise.all([
      runCli(['inspect', 'checkout', '--redis-url', server.url]),
      runCli(['inspect', 'checkout', '--system', 'payments', '--redis-url', server.url, '--at', String(AT)]),
      runCli(['inspect', 'payments/stripe-api', '--redis-url', server.url, '--json']),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `swc: light "checkout" is in 2 systems: default (${shortId('default')}), ${shortId('payments')}; give --system <name or id>, or <system>/checkout\n`,
    );
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stdout.split('\n')[0]).toBe(`stoplight-v6  payments/checkout  (system id ${shortId('payments')}, light id ${shortId('checkout')})`);
    const doc = JSON.parse(pair.stdout) as { inspections: BucketInspection[] };
    expect(doc.inspections[0]).toMatchObject({ systemName: 'payments', lightName: 'stripe-api', systemId: shortId('payments') });
  });
});

describe('what is not a light', () => {
  it('a string under a 5.x name is a problem, never a light; garbage counters are a problem line; leftovers point to swc clean', async () => {
    const [doc, table, inspect] = await Promise.all([
      plainJson(),
      lights(),
      runCli(['inspect', 'search/query', '--redis-url', server.url, '--at', String(AT)]),
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
    expect(none.lights.every((l) => l.failureRate === null)).toBe(true);
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

  it('--watch redraws until Ctrl-C, then exits 130', async () => {
    const child = spawn(process.execPath, [SWC_BIN, 'lights', '--redis-url', server.url, '--watch', '1', '--top', '1'], {
      env: { ...process.env, REDIS_URL: '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    // Ctrl-C once the second listing is printed, not after a fixed wait.
    const second = new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if ((stdout.match(/^total: /gm) ?? []).length >= 2) resolve();
      }),
    );
    await Promise.race([second, new Promise((r) => child.on('close', r))]);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(code).toBe(130);
    expect((stdout.match(/^--- \d{4}-.*\(--watch 1 s\)$/gm) ?? []).length).toBeGreaterThanOrEqual(2);
    expect((stdout.match(/^total: /gm) ?? []).length).toBeGreaterThanOrEqual(2);
  });
});

describe('what inspect prints is right', () => {
  it('the drift line names the stored totals against the bucket sums; no "in window" without --window; stamps to the millisecond', async () => {
    const key = `stoplight:v6:${shortId('payments')}:{${shortId('checkout')}}:window_metrics`;
    await redis.hincrby(key, 'total_failures', 7);
    try {
      const [run, windowed] = await Promise.all([
        runCli(['inspect', 'checkout', '--system', 'payments', '--redis-url', server.url, '--at', String(AT), '--check']),
        runCli(['inspect', 'checkout', '--system', 'payments', '--redis-url', server.url, '--at', String(AT), '--window', '60']),
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('  stored totals 54 / 13 (total_successes / total_failures) but the buckets sum to 54 / 6 (successes 0, failures +7)');
      expect(run.stdout).not.toMatch(/in window *│/);
      expect(run.stdout).toMatch(/last_error_at +\d{10}\.940 {2}\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.940Z\)/);
      expect(run.stdout).not.toMatch(/\.9400000|\.9399999/);
      expect(windowed.stdout).toMatch(/in window *│/);
    } finally {
      await redis.hincrby(key, 'total_failures', -7);
    }
  });

  it('lights fits 80 columns (COLUMNS=80): fewer columns, no wrapped rows; --wide keeps every column', async () => {
    const [narrow, wide, ...inspected] = await Promise.all([
      runCli(['lights', '--redis-url', server.url, '--at', String(AT), '--window', '60'], { COLUMNS: '80' }),
      runCli(['lights', '--redis-url', server.url, '--at', String(AT), '--window', '60', '--wide'], { COLUMNS: '80' }),
      ...['payments/stripe-api', 'legacy'].map((light) =>
        runCli(['inspect', light, '--redis-url', server.url, '--at', String(AT), '--window', '60'], { COLUMNS: '80' }),
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
