import { spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { LayoutClient } from '../../src/layouts/client.js';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { shortId, StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { HOUR_START, redisUrl, testRedis, uniqueName } from '../helpers.js';
import { inspectSchema } from '../../src/schemas/inspect.js';
import { SWC_BIN } from './run-cli.js';

const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":1764450000}';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

/** The built CLI (npm test builds first), run to its end; the cases run at once (each on lights of its own). */
function swc(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.REDIS_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SWC_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * For the runs that SCAN the worker's shared server (whatever earlier files left on it): a fixed COUNT, as
 * the adaptive one paces a large keyspace over seconds; test/cli/lights-scan.test.ts holds the pacing.
 */
const FIXED_COUNT = ['--scan-count', '1000'];

describe.concurrent('swc inspect', () => {
  it('--json prints one object with schemaVersion and one inspection per layout: keys with their facts, totals, seconds or buckets, drift', async () => {
    const name = uniqueName('cli');
    for (const layout of [new StoplightV5(), new StoplightV6()]) {
      const client = await LayoutClient.open(redis, layout);
      await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
      await client.recordFailure({ name }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: ERROR_JSON });
    }
    const run = await swc('inspect', name, '--redis-url', redisUrl(), '--json', '--at', String(HOUR_START + 1), '--window', '60');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout) as { schemaVersion: number; drift: boolean; inspections: Record<string, unknown>[] };
    expect(parsed).toMatchObject({ schemaVersion: 3, drift: false, request: { light: name, windowSeconds: 60 } });
    const [v5, v6] = parsed.inspections;
    for (const doc of [v5, v6]) {
      // totals mean the same in every layout: the events the keys hold.
      expect(doc).toMatchObject({ light: name, totals: { successes: 1, failures: 1 }, windowTotals: { successes: 1, failures: 1 } });
      expect(Object.keys((doc?.keys as object[])[0] ?? {})).toEqual(expect.arrayContaining(['key', 'type', 'encoding', 'elements', 'bytes', 'ttlSeconds']));
    }
    expect(v5).toMatchObject({ layout: 'stoplight-v5', seconds: [{ second: HOUR_START, successes: 1, failures: 0, stale: false }, expect.anything()] });
    expect(v6).toMatchObject({
      layout: 'stoplight-v6',
      buckets: [
        { second: HOUR_START, successes: 1, failures: 0, stale: false },
        { second: HOUR_START + 1, successes: 0, failures: 1, stale: false },
      ],
      drift: { ok: true },
    });
  });

  it('the table shows the light id, drift ok, the decoded error and the summary; without --window a 6.0 light claims no rate', async () => {
    const name = uniqueName('cli');
    const client = await LayoutClient.open(redis, new StoplightV6());
    await client.recordFailure({ name }, { at: HOUR_START, windowSeconds: 60, errorJson: ERROR_JSON });
    const [text, byId, idle] = await Promise.all([
      swc('inspect', name, '--redis-url', redisUrl(), '--at', String(HOUR_START), '--window', '60'),
      swc('inspect', shortId(name), '--redis-url', redisUrl(), '--json'),
      swc('inspect', name, '--redis-url', redisUrl(), '--at', String(HOUR_START + 96)),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`light id ${shortId(name)}`);
    expect(text.stdout).toContain('drift    ok');
    expect(text.stdout).toContain('last error             Timeout::Error: execution expired');
    expect(text.stdout).toMatch(/summary {2}error rate 100\.0% in the window/);
    const json = JSON.parse(byId.stdout) as { inspections: { layout: string }[] };
    expect(json.inspections.map((i) => i.layout)).toEqual(['stoplight-v6']);
    expect(idle.stdout).toContain('no window given (--window)');
    expect(idle.stdout).not.toMatch(/error rate [\d.]+%/);
  });

  it('a missing light exits 1, stdout empty, one stderr line naming the keys looked for', async () => {
    const name = uniqueName('nope');
    const run = await swc('inspect', name, '--redis-url', redisUrl(), ...FIXED_COUNT);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^swc: light "${name}" not found: no key stoplight:v5:metadata:${name}`));
  });

  it('a missing light with --json: exit 1, the same stderr line, and a JSON body on stdout (no inspection, notFound saying why)', async () => {
    const name = uniqueName('nope');
    const run = await swc('inspect', name, '--redis-url', redisUrl(), '--json', ...FIXED_COUNT);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^swc: light "${name}" not found`));
    const doc = inspectSchema.parse(JSON.parse(run.stdout)) as { request: { light: string }; inspections: unknown[]; notFound?: string };
    expect(doc.request.light).toBe(name);
    expect(doc.inspections).toEqual([]);
    expect(doc.notFound).toMatch(new RegExp(`^light "${name}" not found: no key stoplight:v5:metadata:${name}`));
  });

  it('a key of the wrong type prints what it can, warns, and exits 1', async () => {
    const name = uniqueName('cli-wrong');
    await redis.set(`stoplight:v5:metadata:${name}`, 'x');
    const run = await swc('inspect', name, '--redis-url', redisUrl(), '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ inspections: [{ layout: 'stoplight-v5', keys: [{ type: 'string', wrongType: true }] }] });
    expect(run.stderr).toContain('is a string, expected a hash');
  });

  it.each([
    [['--window', '0'], '--window: must be from 1 s to 604800 s'],
    [['--window', '1.5'], '--window: must be a whole number of seconds from 1 to 604800'],
    [['--limit', '-1'], '--limit: must be 0 to 10000, got -1'],
    [['--at', '1764450000000'], '--at: expected Unix seconds 0..4102444800'],
    [
      ['--layout', 'v7'],
      '--layout: expected one of stoplight-v5, stoplight-v6, sliding-log, ring, packed, coarse, two-window or a manifest file (*.json), got "v7"',
    ],
    [['--layout', './my-window.json'], 'my-window.json: no such file'],
  ])('rejects %j with one line and exit 2, before connecting', async (flags, message) => {
    // Port 1 would refuse: exit 2 (not 3) shows Redis was never contacted.
    const run = await swc('inspect', 'x', '--redis-url', 'redis://127.0.0.1:1', ...flags);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a key of one layout with --layout naming another exits 2 before connecting', async () => {
    const key = 'stoplight:v6:37a8eec1ce19:{682a1c47a1d3}:window_metrics';
    const run = await swc('inspect', key, '--layout', 'stoplight-v5', '--redis-url', 'redis://127.0.0.1:1');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`swc: --layout: "${key}" is a stoplight-v6 key, but --layout stoplight-v5 was given\n`);
  });

  it('exits 2 with neither a light nor --list, and with both', async () => {
    const [neither, both] = await Promise.all([
      swc('inspect', '--redis-url', 'redis://127.0.0.1:1'),
      swc('inspect', 'x', '--list', '--redis-url', 'redis://127.0.0.1:1'),
    ]);
    expect(neither.code).toBe(2);
    expect(both.code).toBe(2);
  });
});

describe.concurrent('swc lights / inspect --list', () => {
  it('swc lights (table) and inspect --list --json both list a 5.x light by name with its key count', async () => {
    const name = uniqueName('cli-list');
    const client = await LayoutClient.open(redis, new StoplightV5());
    await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
    const [lights, list] = await Promise.all([
      swc('lights', '--redis-url', redisUrl(), ...FIXED_COUNT),
      swc('inspect', '--list', '--redis-url', redisUrl(), '--json', ...FIXED_COUNT),
    ]);
    expect(lights.code).toBe(0);
    expect(lights.stdout).toMatch(new RegExp(`stoplight-v5 +│ ${name} `));
    const json = JSON.parse(list.stdout) as {
      lights: { light: string; keys: number }[];
    };
    expect(json.lights.find((l) => l.light === name)).toMatchObject({ keys: 2 });
  });

  it("swc lights --layout stoplight-v6 lists only that layout's lights and says which patterns it searched", async () => {
    const name = uniqueName('cli-only');
    for (const layout of [new StoplightV5(), new StoplightV6()]) {
      const client = await LayoutClient.open(redis, layout);
      await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
    }
    const run = await swc('lights', '--layout', 'stoplight-v6', '--redis-url', redisUrl(), '--json', ...FIXED_COUNT);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as { lights: { layout: string; light: string }[]; patterns: string[] };
    expect(json.patterns).toEqual(['stoplight:v6:*']);
    expect(new Set(json.lights.map((l) => l.layout))).toEqual(new Set(['stoplight-v6']));
    expect(json.lights.map((l) => l.light)).toContain(shortId(name));
  });
});
