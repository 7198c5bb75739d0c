/**
 * Every command's --json, run for real (spawned swc, real redis-server),
 * validated against the JSON Schema file it ships in schemas/ (ajv): the
 * contract of docs/output.md holds for what a user pipes to jq. Where a
 * command's --json run already happens in its own test file (bench --sweep,
 * --suggest, over builds, and --baseline's verdict), that file validates it
 * with the same check (test/schema-check.ts), instead of a second run here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLayout } from '../../src/layouts/index.js';
import { LayoutClient } from '../../src/layouts/client.js';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { SCHEMA_VERSION } from '../../src/core/schema-version.js';
import { schemaErrors } from '../schema-check.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-json-'));
const SMALL = ['--window', '30', '--rate', '1', '--lights', '2', '--no-throughput', '--no-progress'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Runs swc, expects `code`, parses stdout and checks it against schemas/<schema>.schema.json. */
async function jsonOf(schema: string, args: readonly string[], code = 0, env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  const run = await runCli(args, { REDIS_URL: '', ...env }, timeoutMs);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
  const json = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(schemaErrors(schema, json), args.join(' ')).toEqual([]);
  expect(json.schemaVersion).toBe(SCHEMA_VERSION);
  return json;
}

let server: PrivateServer;
let redis: Redis;
let now = 0;

beforeAll(async () => {
  // A small application: a 6.0 and a 5.x light with a few events each, one failure among them.
  server = await startPrivateServer();
  redis = await connect(server.url);
  now = Number((await redis.time())[0]);
  for (const layout of ['stoplight-v6', 'stoplight-v5']) {
    const client = await LayoutClient.open(redis, createLayout(layout));
    for (let s = 10; s > 0; s--) await client.recordSuccess({ name: 'checkout' }, { windowSeconds: 300, at: now - s });
    await client.recordFailure({ name: 'checkout' }, { windowSeconds: 300, at: now, errorJson: '{"error":"timeout"}' });
  }
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// The cases share nothing but the read-only private server of lights: they run
// at once (each bench and verify on its own private server), so the spawns of
// one case use the CPU another's wait leaves.
describe.concurrent('every --json validates against its shipped schema (real runs)', () => {
  it('bench, and compare of it against itself and against a schemaVersion 1 baseline', async () => {
    // Independent runs at once (the bench on a private server of its own). bench --baseline --json (the
    // verdict, CI's gate, on the committed schemaVersion 1 baseline) is validated where that run already
    // is: test/cli/bench-scenario.test.ts.
    await Promise.all([
      (async () => {
        const bench = await jsonOf('bench', ['bench', ...SMALL, '--json']);
        expect(bench.startedAt).toMatch(ISO);
        const saved = path.join(dir, 'bench.json');
        writeFileSync(saved, JSON.stringify(bench));
        const same = await jsonOf('compare', ['compare', saved, saved, '--json']);
        expect(same).toMatchObject({ ok: true, options: { memoryToleranceFraction: 0.01, memoryToleranceBytes: null } });
      })(),
      // The committed CI baseline was written by schemaVersion 1; the verdict is today's.
      jsonOf('compare', ['compare', 'fixtures/baselines/small.json', 'fixtures/baselines/small.json', '--json', '--memory-tolerance', '64B']),
    ]);
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
  }, 60_000);

  // bench --suggest --json is validated where its run already is: test/cli/bench-suggest.test.ts.
  it('bench --dry-run, --instructions', async () => {
    // At once. The count under valgrind is kept small
    // (10 calls, 2 repeats: every field of the document, in seconds instead of 300 × 3 calls).
    const [, counted] = await Promise.all([
      jsonOf('bench-dry-run', ['bench', '--dry-run', ...SMALL, '--json']),
      jsonOf(
        'bench',
        [
          'bench',
          '--instructions',
          '--instruction-calls',
          '10',
          '--instruction-repeats',
          '2',
          '--window',
          '10',
          '--rate',
          '1',
          '--no-throughput',
          '--no-accuracy',
          '--no-progress',
          '--json',
        ],
        0,
        {},
        240_000,
      ),
    ]);
    expect(counted.instructionsSeconds).toBeGreaterThan(0);
    const results = counted.results as { instructions?: { write: { repeats: unknown[] } } }[];
    expect(results.map((r) => r.instructions?.write.repeats.length)).toEqual([2, 2]);
  }, 400_000);

  // bench --sweep --json (the document, and each run's report as bench's) is validated where its run
  // already is: test/cli/bench-sweep.test.ts.

  // bench over two builds (--json) is validated where that run already is: test/cli/bench-builds.test.ts.
  it('verify over two builds, and compare --across-builds', async () => {
    const system = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
    const linked = path.join(dir, 'redis-server-link');
    symlinkSync(system, linked);
    const verified = await jsonOf('builds', [
      'verify',
      '--layout',
      'stoplight-v6',
      '--calls',
      '500',
      '--seed',
      '11',
      '--no-progress',
      '--json',
      '--redis-server',
      system,
      '--redis-server',
      linked,
    ]);
    for (const entry of Object.values(verified.builds as Record<string, { result: unknown }>)) expect(schemaErrors('verify', entry.result)).toEqual([]);
    const baseline = JSON.parse(readFileSync('fixtures/baselines/small.json', 'utf8')) as { redis: Record<string, unknown> };
    const other = path.join(dir, 'valkey.json');
    writeFileSync(other, JSON.stringify({ ...baseline, redis: { ...baseline.redis, server: 'valkey', serverVersion: '8.0.1' } }));
    await jsonOf('compare-across-builds', ['compare', 'fixtures/baselines/small.json', other, '--across-builds', '--json']);
  }, 300_000);

  it('verify', async () => {
    const verified = await jsonOf('verify', ['verify', '--layout', 'stoplight-v6', '--calls', '500', '--seed', '3', '--no-progress', '--json']);
    expect((verified.results as { durationSeconds: number }[])[0]?.durationSeconds).toBeGreaterThan(0);
  }, 120_000);

  it('lights, inspect, clean and doctor on a Redis with lights', async () => {
    const url = ['--redis-url', server.url];
    // Read-only commands at once; clean after them.
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
  }, 120_000);
});
