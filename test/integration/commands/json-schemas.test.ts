/**
 * Every command's --json validated against the JSON Schema file it ships in
 * schemas/, in-process through the same program as the CLI: the runs that
 * read a Redis with lights (the file's own server), bench --dry-run and
 * --realtime, and compare of the committed baseline. The runs that are
 * processes of their own (private servers, valgrind) and compare of a
 * bench's saved result stay spawned in test/cli/json-schemas.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLayout } from '../../../src/layouts/index.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import type { PrivateServer } from '../../../src/redis/server.js';
import { ownServer } from '../../helpers.js';
import { ISO, jsonChecker, SMALL } from '../../json-runs.js';
import { runInProcess } from '../../unit/in-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-json-'));
const jsonOf = jsonChecker(runInProcess);

let server: PrivateServer;
let redis: Redis;
let now = 0;
// Its own server: lights counts every light on it, and clean every leftover.
ownServer((own, client) => {
  server = own;
  redis = client;
});

beforeAll(async () => {
  // A small application: a 6.0 and a 5.x light with a few events each, one failure among them.
  now = Number((await redis.time())[0]);
  for (const layout of ['stoplight-v6', 'stoplight-v5']) {
    const client = await LayoutClient.open(redis, createLayout(layout));
    for (let s = 10; s > 0; s--) await client.recordSuccess({ name: 'checkout' }, { windowSeconds: 300, at: now - s });
    await client.recordFailure({ name: 'checkout' }, { windowSeconds: 300, at: now, errorJson: '{"error":"timeout"}' });
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every --json validates against its shipped schema (in-process runs)', () => {
  it('compare against a schemaVersion 1 baseline, and --across-builds', async () => {
    // The committed CI baseline was written by schemaVersion 1; the verdict is today's.
    await jsonOf('compare', ['compare', 'fixtures/baselines/small.json', 'fixtures/baselines/small.json', '--json', '--memory-tolerance', '64B']);
    const baseline = JSON.parse(readFileSync('fixtures/baselines/small.json', 'utf8')) as { redis: Record<string, unknown> };
    const other = path.join(dir, 'valkey.json');
    writeFileSync(other, JSON.stringify({ ...baseline, redis: { ...baseline.redis, server: 'valkey', serverVersion: '8.0.1' } }));
    await jsonOf('compare-across-builds', ['compare', 'fixtures/baselines/small.json', other, '--across-builds', '--json']);
  });

  it('bench --realtime: its moments are ISO 8601 on the wall clock', async () => {
    const bench = await jsonOf('bench', [
      'bench',
      '--redis-url',
      server.url,
      '--realtime',
      '--layout',
      'stoplight-v6',
      '--rate',
      '20',
      '--window',
      '30',
      '--duration',
      '1s',
      '--no-accuracy',
      '--no-progress',
      '--json',
    ]);
    const realtime = (bench.results as { realtime: { startedAt: string; endedAt: string } }[])[0]?.realtime;
    expect(realtime?.startedAt).toMatch(ISO);
    expect(Date.parse(realtime!.endedAt)).toBeGreaterThanOrEqual(Date.parse(realtime!.startedAt));
  });

  it('bench --dry-run', async () => {
    await jsonOf('bench-dry-run', ['bench', '--dry-run', ...SMALL, '--json']);
  });

  it('lights, inspect, clean and doctor on a Redis with lights', async () => {
    const url = ['--redis-url', server.url];
    // Read-only commands first; clean after them.
    const [lights, inspected, judged] = await Promise.all([
      jsonOf('lights', ['lights', ...url, '--json']),
      jsonOf('inspect', ['inspect', 'checkout', ...url, '--window', '300', '--json']),
      jsonOf('inspect', ['inspect', 'checkout', ...url, '--at', String(now), '--json']),
      jsonOf('doctor', ['doctor', ...url, '--json']),
    ]);
    expect(lights.at).toMatch(ISO);
    expect(lights.matched).toBe(2);
    const inspections = inspected.inspections as { layout: string; window: { at: string }; keys: { role: string }[] }[];
    expect(inspections.map((i) => i.layout).sort()).toEqual(['stoplight-v5', 'stoplight-v6']);
    expect(inspections[0]?.window.at).toMatch(ISO);
    // The same names for the same keys as bench's memory.keys.
    expect(inspections.find((i) => i.layout === 'stoplight-v6')?.keys.map((k) => k.role)).toEqual(['metrics', 'index']);
    // --at takes Unix seconds; the document echoes it as a moment.
    expect((judged.request as { at: string }).at).toBe(new Date(now * 1000).toISOString().replace('.000Z', 'Z'));
    await jsonOf('clean', ['clean', ...url, '--json']);
  });
});
