import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../unit/in-process.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const scenario = join(root, 'fixtures/scenarios/small.json');

interface Row {
  cell: string;
  layout: string;
  figure: string;
  status: string;
  keys?: { role: string; bytes: { baseline: number; current: number }; newFields?: { field: string; bytes: number }[] }[];
}

/**
 * The regression the issue measured: a wasteful field (an 88-byte value) in
 * every 6.0 write, from an edited copy of lua/. The gate must catch it in
 * every 6.0 cell with an absolute tolerance, and say which field grew.
 * In-process: the spawned CLI compares a committed baseline and refuses
 * bench --format github without --baseline (test/cli/compare-explain.test.ts).
 */
describe('compare names what grew (real redis-server)', () => {
  let dir = '';
  let base = '';
  let waste = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swc-grew-'));
    const scripts = join(dir, 'lua');
    cpSync(join(root, 'lua'), scripts, { recursive: true });
    for (const name of ['record_success', 'record_failure']) {
      const file = join(scripts, 'stoplight-v6', `${name}.lua`);
      const text = readFileSync(file, 'utf8');
      // Before the script's return (success returns the second, failure the snapshot).
      expect(text).toMatch(/\nreturn [^\n]+\n$/);
      writeFileSync(file, text.replace(/\n(return [^\n]+\n)$/, `\nredis.call('HSET', metrics_key, 'debug_trace', string.rep('x', 88))\n$1`));
    }
    // Each bench on a private server of its own (the same build and settings each time, so the unchanged cells give
    // the same bytes): the edited scripts run there as they are, where on a server given by URL they need
    // --trust-scripts, whose rehearsal and per-call checks made each run of this file's three take 20-40 s.
    // --no-commands: the figures of a run on a shared server (commands per call are measured only on a private one).
    const run = async (extra: string[]): Promise<string> => {
      const r = await runInProcess(['bench', '--scenario', scenario, '--no-commands', '--json', '--no-progress', ...extra]);
      expect(r.stderr).not.toMatch(/Error|at .*\.js/);
      expect(r.code).toBe(0);
      return r.stdout;
    };
    base = join(dir, 'base.json');
    waste = join(dir, 'waste.json');
    writeFileSync(base, await run([]));
    writeFileSync(waste, await run(['--scripts', scripts]));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('--memory-tolerance 64B fails every 6.0 cell and names the new field per key role; the unit is in the JSON', async () => {
    const r = await runInProcess(['compare', base, waste, '--memory-tolerance', '64B', '--json']);
    expect(r.code).toBe(1);
    const verdict = JSON.parse(r.stdout) as { ok: boolean; rows: Row[]; options: Record<string, unknown> };
    expect(verdict.options).toMatchObject({ memoryToleranceBytes: 64, memoryToleranceFraction: null });
    const memory = verdict.rows.filter((x) => x.figure === 'bytesPerLight');
    expect(memory).toHaveLength(8);
    for (const row of memory) {
      if (row.layout === 'stoplight-v5') {
        expect(row.status).toBe('ok');
        continue;
      }
      expect(row.status, row.cell).toBe('regressed');
      const grown = row.keys?.[0];
      expect(grown?.role).toBe('metrics');
      expect(grown!.bytes.current - grown!.bytes.baseline).toBeGreaterThan(88);
      expect(grown?.newFields).toEqual([{ field: 'debug_trace', bytes: 88 }]);
    }
  });

  it('the text verdict fits 80 columns, its first line speaks only of memory, and names the field', async () => {
    const r = await runInProcess(['compare', base, waste, '--memory-tolerance', '64 B'], { COLUMNS: '80' });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    // Every line but the verdict fits; the verdict is one line at any width (a log and a grep read it whole).
    expect(lines.slice(1).filter((l) => [...l].length > 80)).toEqual([]);
    // The verdict is the first line, whole; its wording is the most detailed that fits 100 characters.
    const first = r.stdout.split('\n')[0];
    expect([...(first ?? '')].length).toBeLessThanOrEqual(100);
    expect(first).toMatch(/^FAIL: bytes per light grew in 4 of 8 cells \(stoplight-v6, up to \+\d+ B, \+\d\.\d%; tolerance 64 B\)$/);
    expect(r.stdout).not.toMatch(/ops\/s|µs|throughput|ratio/);
    expect(r.stdout).toMatch(/metrics: \+\d+ B \([\d,]+ B → [\d,]+ B\), \d+ → \d+ elements;\s+new field\s+`debug_trace` \(88 B\)/);
  });

  it('--format github: annotations naming the field, and a Markdown summary in $GITHUB_STEP_SUMMARY', async () => {
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await runInProcess(['compare', base, waste, '--memory-tolerance', '64B', '--format', 'github'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(1);
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(errors.filter((l) => l.includes('title=swc regression'))).toHaveLength(4);
    // The verdict's annotation first, then one per regression.
    expect(errors[0]).toMatch(/title=swc compare::FAIL: /);
    expect(errors[1]).toMatch(/new field `debug_trace` \(88 B\)/);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n### swc compare: FAIL: bytes per light grew in 4 of 8 cells')).toBe(true);
    expect(md).toMatch(/\n {2}- metrics: .*new field `debug_trace` \(88 B\)/);
    expect(md).toContain('<details><summary>Every figure</summary>');
  });

  it('swc bench --baseline --format github gates the run itself; a percent tolerance still works; a bad one is refused', async () => {
    const scripts = join(dir, 'lua');
    const gate = await runInProcess([
      'bench',
      '--scenario',
      scenario,
      '--no-commands',
      '--scripts',
      scripts,
      '--baseline',
      base,
      '--memory-tolerance',
      '64B',
      '--format',
      'github',
      '--no-progress',
    ]);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/^::error file=.*base\.json,title=swc regression::stoplight-v6 30 s @ 1\/s: bytes per light \+\d+ B/m);
    // Same bytes as the baseline: passes at 0 B.
    const same = await runInProcess(['compare', base, base, '--memory-tolerance', '0B']);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/^ok: no regression in 8 cell\(s\) \(bytes per light\)$/m);
    const percent = await runInProcess(['compare', base, waste, '--memory-tolerance', '5%', '--json']);
    expect(percent.code).toBe(0);
    expect(JSON.parse(percent.stdout).options).toMatchObject({ memoryToleranceFraction: 0.05, memoryToleranceBytes: null });
    const bad = await runInProcess(['compare', base, waste, '--memory-tolerance', '12 parsecs']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('swc: --memory-tolerance: a percentage (1, 1%, 0.5%) or bytes (64B, 1KB), got "12 parsecs"');
  });
});
