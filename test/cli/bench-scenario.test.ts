import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/measure/types.js';
import { SCHEMA_VERSION } from '../../src/core/schema-version.js';
import { redisUrl, withPrivateServer } from '../helpers.js';
import { schemaErrors } from '../schema-check.js';
import { plantBaseline, shippedBaseline, smallAgainst, SMALL_BASELINE, SMALL_SCENARIO } from './bench-fixtures.js';
import { runCli, type CliResult } from './run-cli.js';

const SMALL = SMALL_SCENARIO;
const BLOG = fileURLToPath(new URL('../../fixtures/scenarios/blog.json', import.meta.url));
const BASELINE = SMALL_BASELINE;
const dir = mkdtempSync(join(tmpdir(), 'swc-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** `swc bench --redis-url <a redis-server of its own> …`: runs on one server take turns, so these run at once. */
const benchOnOwnServer = (args: readonly string[]): Promise<CliResult> =>
  withPrivateServer({}, (server) => runCli(['bench', '--redis-url', server.url, ...args]));

describe.concurrent('swc bench --scenario (CLI)', () => {
  it('runs a scenario, and a flag on the command line overrides its field', async () => {
    const result = await benchOnOwnServer(['--scenario', SMALL, '--rate', '5', '--window', '30', '--json', '--no-progress']);
    // With --no-progress only the run line (the namespace, for leftovers) is on stderr.
    expect(result.stderr).toMatch(/^swc bench: run swc-bench:[0-9a-f]{8}: writing only under [^\n]*; removed at the end\n$/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BenchReport;
    expect(report.options).toMatchObject({ rates: [5], windows: [30], lights: 8, seed: 1, failureRate: 0.5, scenario: SMALL });
    expect(report.results.map((r) => [r.layout, r.windowSeconds, r.rate])).toEqual([
      ['stoplight-v5', 30, 5],
      ['stoplight-v6', 30, 5],
    ]);
  });

  it('a scenario asks for accuracy with its threshold; --threshold on the command line overrides it', async () => {
    const file = write('accuracy.json', { layouts: ['two-window'], windows: [20], rates: [2], throughput: false, threshold: 0.3 });
    const [fromFile, overridden] = await Promise.all([
      benchOnOwnServer(['--scenario', file, '--json', '--no-progress']),
      benchOnOwnServer(['--scenario', file, '--threshold', '0.6', '--json', '--no-progress']),
    ]);
    expect(fromFile.code).toBe(0);
    expect((JSON.parse(fromFile.stdout) as BenchReport).results[0]?.accuracy).toMatchObject({ threshold: 0.3, reads: 240 });
    expect((JSON.parse(overridden.stdout) as BenchReport).results[0]?.accuracy?.threshold).toBe(0.6);
  });

  // One refusal spawned, as a user meets it; every field's refusal is checked in-process in
  // test/unit/commands/bench-scenario-refusals.test.ts (the same program and exit path).
  it('exits 2 naming the file and the field for malformed JSON', async () => {
    const file = write('scenario.json', '{"rates": [1,]}');
    const result = await runCli(['bench', '--redis-url', redisUrl(), '--scenario', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`swc: ${file}: `);
    expect(result.stderr).toMatch(/not valid JSON/);
  });

  it('runs the committed blog scenario (one cell by flags) with the published figures beside ours', async () => {
    // --rate/--window keep the blog matrix to one cell and --no-throughput skips the timed
    // phases: this checks the file and its published memory figures, not our figures.
    const blog = await benchOnOwnServer(['--scenario', BLOG, '--rate', '10', '--window', '1m', '--no-throughput', '--json']);
    expect(blog.code).toBe(0);
    const report = JSON.parse(blog.stdout) as BenchReport;
    expect(report.results.map((r) => r.published?.kb)).toEqual([74.9, 11.6]);
  });
});

/**
 * The Redis build the private server would be (`redis-server --version`:
 * `v=7.0.15 … malloc=jemalloc-5.3.0`), against the one the committed baseline
 * was taken on: bytes are exact only on the same build.
 */
const build = (() => {
  const baseline = shippedBaseline();
  const wanted = `${baseline.redis.version} ${baseline.redis.memAllocator}`;
  let here = 'no redis-server';
  try {
    const text = execFileSync(process.env.SWC_REDIS_SERVER ?? 'redis-server', ['--version'], { encoding: 'utf8' });
    here = `${/v=(\S+)/.exec(text)?.[1] ?? '?'} ${/malloc=(\S+)/.exec(text)?.[1] ?? '?'}`;
  } catch {
    // no redis-server: the tests below would fail on their own; the reason says why
  }
  return { same: here === wanted, reason: `baseline taken on Redis ${wanted}, this redis-server is ${here}` };
})();

// At once: the byte-for-byte runs start servers of their own, the refusals end before any cell.
describe.concurrent('swc bench --baseline (CLI)', () => {
  // Skipped, with the reason in the test name, on another Redis build: its bytes differ by design.
  it.skipIf(!build.same)(
    `gives the committed baseline byte for byte on fresh private servers, run after run, and compares in one step: 0 against it, 1 naming the cell when the baseline was 2% smaller (needs the baseline's build: ${build.reason})`,
    async () => {
      const baseline = shippedBaseline();
      const { file: smaller } = plantBaseline(dir, 'smaller.json', (r) =>
        r.layout === 'stoplight-v5' && r.windowSeconds === 60 && r.rate === 1 ? r.memory.bytesPerLight / 1.02 : undefined,
      );
      // Two runs, each on a redis-server of its own, so each has its own hash seed: the
      // figures must not depend on it. Each saves its full result (--output).
      const [sameFile, grewFile] = [join(dir, 'same.json'), join(dir, 'grew.json')];
      const [same, grew] = await Promise.all([
        runCli(['bench', '--scenario', SMALL, '--baseline', BASELINE, '--output', sameFile, '--no-progress']),
        runCli(['bench', '--scenario', SMALL, '--baseline', smaller, '--json', '--output', grewFile, '--no-progress']),
      ]);
      expect(same.code, same.stderr).toBe(0);
      expect(same.stdout).toMatch(/ok: no regression in 8 cell\(s\)/);
      expect(grew.code, grew.stderr).toBe(1);
      const verdict = JSON.parse(grew.stdout) as { ok: boolean; failures: { cell: string; figure: string }[]; current: { label: string } };
      expect(verdict.ok).toBe(false);
      // bench --baseline --json prints the verdict (CI's gate): it validates against compare's shipped schema
      // (test/cli/json-schemas.test.ts counts on this run for it).
      expect((verdict as unknown as { schemaVersion: number }).schemaVersion).toBe(SCHEMA_VERSION);
      expect(schemaErrors('compare', verdict)).toEqual([]);
      expect(verdict.current.label).toBe('this run');
      expect(verdict.failures.map((f) => [f.cell, f.figure])).toEqual([['stoplight-v5 60 s @ 1/s', 'bytesPerLight']]);
      // Same seed, scenario and Redis build as the baseline: every bytesPerLight is identical to it, in both runs.
      for (const file of [sameFile, grewFile]) {
        const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
        for (const r of report.results) expect(r.memory.keys.filter((k) => k.type === 'zset').map((k) => k.encoding)).not.toContain('skiplist');
        expect(report.results.map((r) => r.memory.bytesPerLight)).toEqual(baseline.results.map((r) => r.memory.bytesPerLight));
      }
    },
  );

  it.each([
    ['another Redis version', { version: '7.4.1' }, 'Redis 7.4.1 jemalloc-5.3.0'],
    ['another allocator', { version: '7.0.15', memAllocator: 'libc' }, 'Redis 7.0.15 libc'],
    ['Valkey', { version: '7.2.4', server: 'valkey', serverVersion: '8.0.1' }, 'Valkey 8.0.1 jemalloc-5.3.0'],
  ] as const)(
    'a baseline measured on another build (%s): exit 2 before any cell, naming both builds and swc compare --across-builds',
    async (_name, redis, build) => {
      const report = shippedBaseline();
      const other = write(`other-build-${_name.replace(/ /g, '-')}.json`, { ...report, redis: { ...report.redis, ...redis } });
      const result = await runCli([...smallAgainst(redisUrl(), other), '--output', join(dir, 'run.json'), '--no-progress']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      const refusal = lines.at(-1) ?? '';
      expect(refusal).toContain(`--baseline: ${other} was measured on ${build}`);
      expect(refusal).toMatch(/this server is (Redis|Valkey) \S+ \S+; /);
      expect(refusal).toContain(`swc compare --across-builds ${other} ${join(dir, 'run.json')}`);
      // Refused before the fill: no cell ran, so no result was saved.
      expect(lines.filter((l) => !l.startsWith('swc bench: run '))).toEqual([refusal]);
    },
  );

  it('a truncated baseline: exit 2 naming the file, before any cell runs', async () => {
    const result = await runCli(['bench', '--scenario', SMALL, '--baseline', write('bad-baseline.json', '{"results": ')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad-baseline\.json: truncated JSON/);
    expect(result.stderr).not.toMatch(/swc bench: \[/);
  });
});
