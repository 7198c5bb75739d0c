import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { result } from '../unit/report/chart-fixtures.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-chart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string): string => path.join(dir, name);

const saved = file('result.json');
writeFileSync(saved, JSON.stringify(result([60, 600], [10, 100], { published: true })));
const later = file('later.json');
writeFileSync(later, JSON.stringify(result([60, 600], [10, 100], { scale: 1.2 })));

/** A usage error: exit 2, nothing on stdout, one `swc: ` line on stderr. */
function expectUsageError(r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^swc: /);
  expect(r.stderr).toMatch(pattern);
}

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

  it('--out writes a standalone SVG and prints nothing on stdout', async () => {
    const out = file('one.svg');
    const r = await runCli(['chart', saved, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`swc chart: chart written to ${out}\n`);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toMatch(/^<\?xml[^\n]*\n<svg /);
    expect(svg).toContain('published figure');
  });

  it('two files: a comparison titled with both names, drawing the change of each cell', async () => {
    const out = file('two.svg');
    const r = await runCli(['chart', saved, later, '--out', out]);
    expect(r.code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('result.json vs later.json: swc bench on Redis');
    expect(svg).toContain('memory per light, change from baseline, by window at 100/s');
    expect(svg).toContain('>+20.0%<');
  });

  it('--out x.png writes a PNG (2× the SVG) of the hero; --chart-panels picks the panels', async () => {
    const png = file('hero.png');
    const r = await runCli(['chart', saved, '--out', png]);
    expect(r.stderr).toBe(`swc chart: chart written to ${png}\n`);
    expect(r.code).toBe(0);
    const bytes = readFileSync(png);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
    const width = bytes.readUInt32BE(16);
    const height = bytes.readUInt32BE(20);
    // The SVG of the same chart, for its size: the PNG is drawn at twice it.
    const svgFile = file('hero.svg');
    expect((await runCli(['chart', saved, '--out', svgFile])).code).toBe(0);
    const svg = readFileSync(svgFile, 'utf8');
    const [, w, h] = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg) ?? [];
    expect(width).toBe(2 * Number(w));
    expect(height).toBe(2 * Number(h));
    expect(width).toBeGreaterThan(1200);

    const all = file('all.png');
    const every = await runCli(['chart', saved, '--out', all, '--chart-panels', 'all']);
    expect(every.code).toBe(0);
    // No throughput in this result: latency is named as not drawn, on stderr.
    expect(every.stderr).toMatch(/^swc chart: latency: not drawn, the result has no throughput figures/);
    expect(readFileSync(all).readUInt32BE(20)).toBeGreaterThan(2 * height);
    const text = await runCli(['chart', saved, '--chart-panels', 'rate,hero'], { COLUMNS: '80' });
    expect(text.code).toBe(0);
    expect(text.stdout.indexOf('memory per light by rate, 1 min window')).toBeLessThan(text.stdout.indexOf('memory per light by window at 100/s'));
  });

  it('exit 2, one line, for a missing file, a file that is not a result, and bad flags; no SVG written', async () => {
    expectUsageError(await runCli(['chart', file('missing.json')]), /missing\.json: no such file/);
    const notResult = file('not-result.json');
    writeFileSync(notResult, '{"hello": 1}');
    expectUsageError(await runCli(['chart', notResult, '--out', file('x.svg')]), /not-result\.json: not a swc bench result/);
    const broken = file('broken.json');
    writeFileSync(broken, '{"schemaVersion": 1, "results": [');
    expectUsageError(await runCli(['chart', broken]), /broken\.json: truncated JSON/);
    expectUsageError(await runCli(['chart', saved, '--bogus']), /unknown option '--bogus'/);
    expectUsageError(await runCli(['chart']), /missing required argument 'result'/);
    expectUsageError(await runCli(['chart', saved, '--out', file('chart.jpg')]), /--out: expected a file name ending in \.svg or \.png/);
    expectUsageError(
      await runCli(['chart', saved, '--chart-panels', 'hero,bars']),
      /^swc: --chart-panels: unknown panel "bars"; accepted: hero, window, rate, latency, all$/m,
    );
    expectUsageError(await runCli(['chart', saved, '--chart-panels', ',']), /--chart-panels: expected one or more of hero, window, rate, latency, all/);
    expectUsageError(await runCli(['chart', saved, '--out', file('no/such/folder/c.svg')]), /--out: folder .* does not exist/);
    expect(existsSync(file('x.svg'))).toBe(false);
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

  it('bad chart flags exit 2 before Redis is touched', async () => {
    // An unreachable URL: reaching Redis would exit 3, so exit 2 shows nothing was tried.
    const unreachable = ['--redis-url', 'redis://127.0.0.1:1'];
    expectUsageError(await runCli(['bench', ...unreachable, '--chart', '--json']), /--chart: draws after a table or markdown, not json/);
    expectUsageError(await runCli(['bench', ...unreachable, '--chart', '--format', 'csv']), /--chart: .*not csv/);
    expectUsageError(await runCli(['bench', ...unreachable, '--chart-out', file('r.json')]), /--chart-out: expected a file name ending in \.svg or \.png/);
    expectUsageError(
      await runCli(['bench', ...unreachable, '--chart-out', file('r.svg'), '--chart-panels', 'pie']),
      /--chart-panels: unknown panel "pie"; accepted: hero, window, rate, latency, all/,
    );
    expectUsageError(await runCli(['bench', ...unreachable, '--chart-panels', 'hero']), /--chart-panels: selects the panels of --chart or --chart-out/);
    expectUsageError(await runCli(['bench', ...unreachable, '--chart-out', file('nope/r.svg')]), /--chart-out: folder .* does not exist/);
  });
});
