/**
 * swc chart and bench's chart flags through the same program as the CLI,
 * in-process (no spawn each, resvg and the chart code loaded once): files
 * written, what goes to stdout and to stderr, and the usage errors (exit 2,
 * one line). test/cli/chart.test.ts keeps what a process shows: the terminal
 * charts off a TTY, one usage error, and bench --chart against Redis.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectUsageError } from '../../usage-errors.js';
import { result } from '../report/chart-fixtures.js';
import { runInProcess } from '../in-process.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-chart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string): string => path.join(dir, name);

const saved = file('result.json');
writeFileSync(saved, JSON.stringify(result([60, 600], [10, 100], { published: true })));
const later = file('later.json');
writeFileSync(later, JSON.stringify(result([60, 600], [10, 100], { scale: 1.2 })));

describe('swc chart (in-process)', () => {
  it('--out writes a standalone SVG and prints nothing on stdout', async () => {
    const out = file('one.svg');
    const r = await runInProcess(['chart', saved, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`swc chart: chart written to ${out}\n`);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toMatch(/^<\?xml[^\n]*\n<svg /);
    expect(svg).toContain('published figure');
  });

  it('two files: a comparison titled with both names, drawing the change of each cell', async () => {
    const out = file('two.svg');
    const r = await runInProcess(['chart', saved, later, '--out', out]);
    expect(r.code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('result.json vs later.json: swc bench on Redis');
    expect(svg).toContain('memory per light, change from baseline, by window at 100/s');
    expect(svg).toContain('>+20.0%<');
  });

  it('--out x.png writes a PNG (2× the SVG) of the hero; --chart-panels picks the panels', async () => {
    const png = file('hero.png');
    const r = await runInProcess(['chart', saved, '--out', png]);
    expect(r.stderr).toBe(`swc chart: chart written to ${png}\n`);
    expect(r.code).toBe(0);
    const bytes = readFileSync(png);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
    const width = bytes.readUInt32BE(16);
    const height = bytes.readUInt32BE(20);
    // The SVG of the same chart, for its size: the PNG is drawn at twice it.
    const svgFile = file('hero.svg');
    expect((await runInProcess(['chart', saved, '--out', svgFile])).code).toBe(0);
    const svg = readFileSync(svgFile, 'utf8');
    const [, w, h] = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg) ?? [];
    expect(width).toBe(2 * Number(w));
    expect(height).toBe(2 * Number(h));
    expect(width).toBeGreaterThan(1200);

    const all = file('all.png');
    const every = await runInProcess(['chart', saved, '--out', all, '--chart-panels', 'all']);
    expect(every.code).toBe(0);
    // No throughput in this result: latency is named as not drawn, on stderr.
    expect(every.stderr).toMatch(/^swc chart: latency: not drawn, the result has no throughput figures/);
    expect(readFileSync(all).readUInt32BE(20)).toBeGreaterThan(2 * height);
    const text = await runInProcess(['chart', saved, '--chart-panels', 'rate,hero'], { COLUMNS: '80' });
    expect(text.code).toBe(0);
    expect(text.stdout.indexOf('memory per light by rate, 1 min window')).toBeLessThan(text.stdout.indexOf('memory per light by window at 100/s'));
  });

  it('exit 2, one line, for a missing file, a file that is not a result, and bad flags; no SVG written', async () => {
    expectUsageError(await runInProcess(['chart', file('missing.json')]), /missing\.json: no such file/);
    const notResult = file('not-result.json');
    writeFileSync(notResult, '{"hello": 1}');
    expectUsageError(await runInProcess(['chart', notResult, '--out', file('x.svg')]), /not-result\.json: not a swc bench result/);
    const broken = file('broken.json');
    writeFileSync(broken, '{"schemaVersion": 1, "results": [');
    expectUsageError(await runInProcess(['chart', broken]), /broken\.json: truncated JSON/);
    expectUsageError(await runInProcess(['chart', saved, '--bogus']), /unknown option '--bogus'/);
    expectUsageError(await runInProcess(['chart']), /missing required argument 'result'/);
    expectUsageError(await runInProcess(['chart', saved, '--out', file('chart.jpg')]), /--out: expected a file name ending in \.svg or \.png/);
    expectUsageError(
      await runInProcess(['chart', saved, '--chart-panels', 'hero,bars']),
      /^swc: --chart-panels: unknown panel "bars"; accepted: hero, window, rate, latency, all$/m,
    );
    expectUsageError(await runInProcess(['chart', saved, '--chart-panels', ',']), /--chart-panels: expected one or more of hero, window, rate, latency, all/);
    expectUsageError(await runInProcess(['chart', saved, '--out', file('no/such/folder/c.svg')]), /--out: folder .* does not exist/);
    expect(existsSync(file('x.svg'))).toBe(false);
  });
});

describe('swc bench chart flags (in-process)', () => {
  it('bad chart flags exit 2 before Redis is touched', async () => {
    // An unreachable URL: reaching Redis would exit 3, so exit 2 shows nothing was tried.
    const unreachable = ['--redis-url', 'redis://127.0.0.1:1'];
    expectUsageError(await runInProcess(['bench', ...unreachable, '--chart', '--json']), /--chart: draws after a table or markdown, not json/);
    expectUsageError(await runInProcess(['bench', ...unreachable, '--chart', '--format', 'csv']), /--chart: .*not csv/);
    expectUsageError(
      await runInProcess(['bench', ...unreachable, '--chart-out', file('r.json')]),
      /--chart-out: expected a file name ending in \.svg or \.png/,
    );
    expectUsageError(
      await runInProcess(['bench', ...unreachable, '--chart-out', file('r.svg'), '--chart-panels', 'pie']),
      /--chart-panels: unknown panel "pie"; accepted: hero, window, rate, latency, all/,
    );
    expectUsageError(await runInProcess(['bench', ...unreachable, '--chart-panels', 'hero']), /--chart-panels: selects the panels of --chart or --chart-out/);
    expectUsageError(await runInProcess(['bench', ...unreachable, '--chart-out', file('nope/r.svg')]), /--chart-out: folder .* does not exist/);
  });
});
