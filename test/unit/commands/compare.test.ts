import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport, CellResult, LatencyStats } from '../../../src/measure/types.js';
import { latencyStats } from '../../report-fixtures.js';
import { runInProcess as runCli } from '../in-process.js';

// In-process (test/unit/in-process.ts): compare reads files only, so its cases need no spawn;
// test/cli/compare.test.ts keeps the end-to-end runs.

/** A real result: the committed baseline of the small CI scenario. */
const BASELINE = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'swc-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const baseline = (): BenchReport => JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchReport;

function write(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** The report with `edit` applied to the result of one cell. */
function doctor(report: BenchReport, layout: string, windowSeconds: number, rate: number, edit: (r: CellResult) => CellResult): BenchReport {
  const results = report.results.map((r) => (r.layout === layout && r.windowSeconds === windowSeconds && r.rate === rate ? edit(r) : r));
  expect(results).not.toEqual(report.results);
  return { ...report, results };
}

const grow =
  (factor: number) =>
  (r: CellResult): CellResult => ({ ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight * factor } });

const stats = (opsPerSec: number): LatencyStats => latencyStats({ opsPerSec });

/** Gives every result a throughput of `ops(layout)` ops/s for each operation. */
function withThroughput(report: BenchReport, ops: (layout: string) => number): BenchReport {
  return {
    ...report,
    results: report.results.map((r) => ({
      ...r,
      throughput: { write: stats(ops(r.layout)), read: stats(ops(r.layout)), request: stats(ops(r.layout)), connections: 1, pipeline: 1 },
    })),
  };
}

interface VerdictJson {
  ok: boolean;
  comparable: boolean;
  failures: { cell: string; figure: string; changeFraction: number; status: string }[];
  missingCells: string[];
  extraCells: string[];
  mismatches: { field: string; baseline: string; current: string }[];
  rows: { cell: string; figure: string; status: string }[];
}

describe('swc compare (CLI)', () => {
  it('exits 0 on identical results', async () => {
    const result = await runCli(['compare', BASELINE, write('same.json', baseline())]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ok: no regression in 8 cell\(s\)/);
    expect(result.stdout).toMatch(/stoplight-v6 60 s @ 2\/s .*bytes per light .*9,200 .*9,200 .*\+0\.0% .*ok/);
  });

  it('exits 1 and names the cell when one layout grew by 2%', async () => {
    const current = write('grown.json', doctor(baseline(), 'stoplight-v6', 60, 2, grow(1.02)));
    const table = await runCli(['compare', BASELINE, current]);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^FAIL: bytes per light grew in 1 of 8 cells \(stoplight-v6, up to \+\d+ B, \+2\.0%; tolerance \+1\.0%\)$/m);
    expect(table.stdout).toMatch(/stoplight-v6 60 s @ 2\/s: bytes per light \+\d+ B, \+2\.0% \(tolerance \+1\.0%\)/);
    const json = await runCli(['compare', BASELINE, current, '--json']);
    expect(json.code).toBe(1);
    const verdict = JSON.parse(json.stdout) as VerdictJson;
    expect(verdict.ok).toBe(false);
    expect(verdict.failures).toEqual([expect.objectContaining({ cell: 'stoplight-v6 60 s @ 2/s', figure: 'bytesPerLight', status: 'regressed' })]);
    expect(verdict.failures[0]!.changeFraction).toBeCloseTo(0.02, 6);
    // A looser tolerance lets the same growth pass; shrinking is an improvement, not a failure.
    expect((await runCli(['compare', BASELINE, current, '--memory-tolerance', '3%'])).code).toBe(0);
    const shrunk = await runCli(['compare', BASELINE, write('shrunk.json', doctor(baseline(), 'stoplight-v5', 30, 1, grow(0.9))), '--json']);
    expect(shrunk.code).toBe(0);
    expect((JSON.parse(shrunk.stdout) as VerdictJson).rows.find((r) => r.cell === 'stoplight-v5 30 s @ 1/s')?.status).toBe('improved');
  });

  it('reports a missing cell as a failure and an extra cell as a note', async () => {
    const report = baseline();
    const missing = { ...report, results: report.results.filter((r) => !(r.layout === 'stoplight-v5' && r.windowSeconds === 30 && r.rate === 1)) };
    const gone = await runCli(['compare', BASELINE, write('missing.json', missing)]);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toMatch(/stoplight-v5 30 s @ 1\/s: bytes per light missing from the current run/);
    const extra = { ...report, results: [...report.results, { ...report.results[0]!, rate: 5 }] };
    const added = await runCli(['compare', BASELINE, write('extra.json', extra), '--json']);
    expect(added.code).toBe(0);
    expect((JSON.parse(added.stdout) as VerdictJson).extraCells).toEqual(['stoplight-v5 30 s @ 5/s']);
  });

  it('refuses a result from another Redis version or allocator (another build): exit 2, one line; --across-builds compares per key role', async () => {
    const report = baseline();
    const other = write('other-redis.json', { ...report, redis: { ...report.redis, version: '7.2.4', memAllocator: 'libc' } });
    const result = await runCli(['compare', BASELINE, other, '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/measured on Redis 7\.0\.15 jemalloc-5\.3\.0, .* on Redis 7\.2\.4 libc; pass --across-builds/);
    const across = await runCli(['compare', BASELINE, other, '--across-builds', '--json']);
    expect(across.code).toBe(0);
    expect((JSON.parse(across.stdout) as { acrossBuilds: boolean }).acrossBuilds).toBe(true);
  });

  it('gates the throughput ratio measured in the same run, and absolute ops/s only with --absolute', async () => {
    const base = write(
      'tp-base.json',
      withThroughput(baseline(), (l) => (l === 'stoplight-v6' ? 9000 : 10_000)),
    );
    // A slower machine: both layouts 40% slower, the ratio unchanged.
    const slower = write(
      'tp-slower.json',
      withThroughput(baseline(), (l) => (l === 'stoplight-v6' ? 5400 : 6000)),
    );
    expect((await runCli(['compare', base, slower])).code).toBe(0);
    const absolute = await runCli(['compare', base, slower, '--absolute']);
    expect(absolute.code).toBe(1);
    expect(absolute.stdout).toMatch(/stoplight-v5 30 s @ 1\/s: write ops\/s -40\.0% \(tolerance -25\.0%\)/);
    // 6.0 fell 30% against 5.x in the same run.
    const worse = write(
      'tp-worse.json',
      withThroughput(baseline(), (l) => (l === 'stoplight-v6' ? 6300 : 10_000)),
    );
    const result = await runCli(['compare', base, worse]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/stoplight-v6 30 s @ 1\/s: write ops\/s ratio \(÷ stoplight-v5\) -30\.0%/);
    expect((await runCli(['compare', base, worse, '--throughput-tolerance', '35'])).code).toBe(0);
  });

  it.each([
    ['malformed JSON', 'bad.json', '{"schemaVersion": 1, results: []}', /bad\.json: not valid JSON: /],
    ['truncated JSON', 'cut.json', readFileSync(BASELINE, 'utf8').slice(0, 500), /cut\.json: truncated JSON: the file ends before the document does/],
    ['an empty file', 'empty.json', '', /empty\.json: empty file/],
    [
      'a wrong schemaVersion',
      'v2.json',
      JSON.stringify({ ...baseline(), schemaVersion: 2 }),
      /v2\.json: schemaVersion 2 is not supported: this swc reads schemaVersion 1/,
    ],
    ['JSON that is not a swc result', 'package.json', JSON.stringify({ name: 'swc', version: '0.1.0' }), /package\.json: not a swc bench result/],
    [
      'a zero bytes per light',
      'zero.json',
      JSON.stringify(doctor(baseline(), 'stoplight-v6', 30, 1, (r) => ({ ...r, memory: { ...r.memory, bytesPerLight: 0 } }))),
      /zero\.json: results\[1\]\.memory\.bytesPerLight: expected a number above 0/,
    ],
    [
      'negative ops/s',
      'negative.json',
      JSON.stringify(withThroughput(baseline(), () => -1)),
      /negative\.json: results\[0\]\.throughput\.write\.opsPerSec: expected a number above 0/,
    ],
    [
      'a result with a mistyped figure',
      'typed.json',
      JSON.stringify(doctor(baseline(), 'stoplight-v6', 30, 1, (r) => ({ ...r, memory: { ...r.memory, bytesPerLight: 'big' as unknown as number } }))),
      /typed\.json: results\[1\]\.memory\.bytesPerLight: expected a number/,
    ],
  ])('exits 2 with one line naming the file for %s', async (_, name, content, message) => {
    const file = write(name, content);
    for (const args of [
      ['compare', BASELINE, file],
      ['compare', file, BASELINE],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });

  it('does not compare real traffic with injected time, and treats one window and --duration of one window alike', async () => {
    const realtime = write('realtime.json', { ...baseline(), options: { ...baseline().options, realtime: true } });
    const result = await runCli(['compare', BASELINE, realtime, '--json']);
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as VerdictJson).mismatches.map((m) => m.field)).toEqual(['options.realtime']);
    const explicit = write('explicit.json', { ...baseline(), options: { ...baseline().options, durationSeconds: 60 } });
    expect((await runCli(['compare', BASELINE, explicit])).code).toBe(0);
    const longer = write(
      'longer.json',
      doctor(baseline(), 'stoplight-v6', 30, 1, (r) => ({ ...r, durationSeconds: 90 })),
    );
    const different = await runCli(['compare', BASELINE, longer, '--json']);
    expect(different.code).toBe(1);
    expect((JSON.parse(different.stdout) as VerdictJson).mismatches.map((m) => m.field)).toEqual(['stoplight-v6 30 s @ 1/s: durationSeconds']);
  });

  it('exits 2 naming the file when a result has no results (an empty baseline would pass any run)', async () => {
    const empty = write('no-results.json', { ...baseline(), results: [] });
    for (const args of [
      ['compare', empty, BASELINE],
      ['compare', BASELINE, empty],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/no-results\.json: results: expected at least one result/);
    }
  });

  it('looks up only fields a file has: settings and layouts named constructor, __proto__ or toString', async () => {
    const report = baseline();
    // Raw JSON, so "__proto__" is an ordinary own key, as JSON.parse reads it.
    const config = JSON.stringify(report.redis.config).replace(/^\{/, '{"constructor": 128, "__proto__": {"x": 1}, ');
    const odd = write('odd-config.json', JSON.stringify(report).replace(JSON.stringify(report.redis.config), config));
    const result = await runCli(['compare', odd, BASELINE, '--json']);
    expect(result.code).toBe(1);
    const verdict = JSON.parse(result.stdout) as VerdictJson;
    expect(verdict.mismatches).toEqual([
      { field: 'redis.config.__proto__', baseline: '{"x":1}', current: 'absent' },
      { field: 'redis.config.constructor', baseline: '128', current: 'absent' },
    ]);
    // The other way round: the settings are absent from the baseline, not Object.prototype's members.
    const reversed = JSON.parse((await runCli(['compare', BASELINE, odd, '--json'])).stdout) as VerdictJson;
    expect(reversed.mismatches.map((m) => m.baseline)).toEqual(['absent', 'absent']);
    // Layouts with those names are cells like any other.
    const named = write('odd-layouts.json', {
      ...report,
      results: ['constructor', '__proto__', 'toString'].map((layout) => ({ ...report.results[0]!, layout })),
    });
    const same = await runCli(['compare', named, named, '--json']);
    expect(same.code).toBe(0);
    expect((JSON.parse(same.stdout) as VerdictJson).rows.filter((r) => r.figure === 'bytesPerLight').map((r) => [r.cell, r.status])).toEqual([
      ['constructor 30 s @ 1/s', 'ok'],
      ['__proto__ 30 s @ 1/s', 'ok'],
      ['toString 30 s @ 1/s', 'ok'],
    ]);
    const missing = await runCli(['compare', named, BASELINE, '--json']);
    expect((JSON.parse(missing.stdout) as VerdictJson).missingCells).toEqual(['constructor 30 s @ 1/s', '__proto__ 30 s @ 1/s', 'toString 30 s @ 1/s']);
  });

  it('exits 2 on a missing file and on a bad tolerance', async () => {
    const missing = await runCli(['compare', BASELINE, join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: no such file/);
    const bad = await runCli(['compare', BASELINE, BASELINE, '--memory-tolerance', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--memory-tolerance: a percentage \(1, 1%, 0\.5%\) or bytes \(64B, 1KB\), got "lots"/);
  });
});

describe('CI: output files and GitHub annotations', () => {
  it('--output into a folder that does not exist is bad usage before any run', async () => {
    const run = await runCli(['bench', '--rate', '1', '--window', '10', '--output', join(dir, 'no-such', 'r.json'), '--redis-url', 'redis://127.0.0.1:1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^swc: --output: folder .*no-such does not exist\n$/);
  });

  it('compare --format github exits 1 on a regression with ::error lines, 0 with ::notice', async () => {
    const bigger = write('bigger.json', doctor(baseline(), 'stoplight-v6', 60, 2, grow(1.05)));
    const failing = await runCli(['compare', BASELINE, bigger, '--format', 'github']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/^::error file=.*small\.json,title=swc regression::stoplight-v6 60 s @ 2\/s: bytes per light \+\d+ B, \+5\.0%25/m);
    const smaller = write('smaller.json', doctor(baseline(), 'stoplight-v6', 60, 2, grow(0.9)));
    const passing = await runCli(['compare', BASELINE, smaller, '--format', 'github']);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toMatch(/^::notice file=.*title=swc improvement::stoplight-v6 60 s @ 2\/s: bytes per light −[\d,]+ B, -10\.0%25/m);
    const csv = await runCli(['compare', BASELINE, smaller, '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('cell,layout,windowSeconds,rate,figure,reference,baseline,current,change,status');
  });
});
