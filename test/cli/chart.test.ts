import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectUsageError } from '../usage-errors.js';
import { result } from '../unit/report/chart-fixtures.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-chart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string): string => path.join(dir, name);

const saved = file('result.json');
writeFileSync(saved, JSON.stringify(result([60, 600], [10, 100], { published: true })));

describe('swc chart (CLI)', () => {
  it('prints terminal charts of a saved result: no colour without a TTY, within COLUMNS', async () => {
    const r = await runCli(['chart', saved], { COLUMNS: '72' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The hero alone by default: the highest rate, and the ratio.
    expect(r.stdout).toContain('memory per light by window at 100/s');
    expect(r.stdout).toContain('flat uses 1758× less than grows at 10 min @ 100/s');
    expect(r.stdout).not.toContain('memory per light by rate');
    expect(r.stdout).not.toContain('\x1b');
    expect(Math.max(...r.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(72);
  });

  // --out (SVG, PNG, two files), --chart-panels and every usage error of
  // chart and of bench's chart flags run in-process in
  // test/unit/commands/chart-cli.test.ts; a spawn shows one usage error.
  it('a usage error: exit 2, one line on stderr, nothing on stdout', async () => {
    expectUsageError(await runCli(['chart', saved, '--bogus']), /unknown option '--bogus'/);
  });
});

describe('swc bench --chart, --chart-out (CLI, private server)', () => {
  it('--chart-out writes the SVG of the run; --chart prints the charts after the table even without a TTY', async () => {
    const out = file('bench.svg');
    const r = await runCli(['bench', '--window', '30,60', '--rate', '2', '--no-throughput', '--no-progress', '--chart', '--chart-out', out], { COLUMNS: '90' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Memory per light');
    const chartAt = r.stdout.indexOf('memory per light by window at 2/s');
    expect(chartAt).toBeGreaterThan(r.stdout.indexOf('Memory per light'));
    expect(r.stderr).toContain(`swc bench: chart written to ${out}`);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('<svg');
    expect(svg.split('class="mark-line role-series"').length - 1).toBe(2); // one panel, one line per built-in layout
    expect(svg).toMatch(/stoplight-v[56] uses [\d.]+× less than stoplight-v[56] at 1 min @ 2\/s/);
  });

  it('with --baseline, --chart-out draws the baseline against this run', async () => {
    const args = ['bench', '--window', '30,60', '--rate', '2', '--no-throughput', '--no-progress'];
    const base = await runCli([...args, '--json']);
    expect(base.code).toBe(0);
    const baseFile = file('base.json');
    writeFileSync(baseFile, base.stdout);
    const out = file('against.svg');
    const r = await runCli([...args, '--baseline', baseFile, '--chart-out', out]);
    expect(r.code).toBe(0); // same seed, same build: the bytes repeat
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain(`${baseFile} vs this run: swc bench`);
    // The change of each cell: one line per layout, at 0% (same seed, same build).
    expect(svg.split('class="mark-line role-series"').length - 1).toBe(2);
    expect(svg.split('>0%<').length - 1).toBeGreaterThanOrEqual(4);
    expect(svg).toContain('no change: every cell holds the same bytes per light as the baseline');
  });

  it('without --chart no chart is printed', async () => {
    const r = await runCli(['bench', '--window', '30', '--rate', '2', '--no-throughput', '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('memory per light by');
  });
});
