import { describe, expect, it } from 'vitest';
import { chartModel, type PanelName } from '../../../src/report/chart-data.js';
import { renderChartTerminal } from '../../../src/report/chart-terminal.js';
import { LAYOUTS, result } from './chart-fixtures.js';

/** Every memory panel by default here (the tests below were written for them); the hero alone is the command's default, tested on its own. */
const MEMORY: PanelName[] = ['window', 'rate'];
const draw = (report: ReturnType<typeof result>, width = 80, color = false, panels: PanelName[] = MEMORY): string =>
  renderChartTerminal(chartModel([{ label: 'run', report }], panels), { width, color });

/** The panel of the output whose header starts with `title`, up to the next blank line. */
function panel(text: string, title: string): string[] {
  const blocks = text.split('\n\n');
  const block = blocks.find((b) => b.startsWith(title));
  if (!block) throw new Error(`no panel "${title}" in:\n${text}`);
  return block.split('\n');
}

describe('terminal charts (fixed results, colour off)', () => {
  it('by default the hero alone, with its ratio under the title and each line named with its last value', () => {
    const text = renderChartTerminal(chartModel([{ label: 'run', report: result([60, 300, 600], [10, 100], { layouts: ['grows', 'windowed'] }) }]), {
      width: 80,
      color: false,
    });
    const blocks = text.split('\n\n').slice(1);
    expect(blocks).toHaveLength(1);
    const rows = blocks[0]?.split('\n') ?? [];
    expect(rows[0]).toBe('memory per light by window at 100/s (KB per light, log scale)');
    expect(rows[1]).toBe('windowed uses 43× less than grows at 10 min @ 100/s');
    expect(text).toContain('◂ grows 6.9 MB');
    expect(text).toContain('◂ windowed 164 KB');
  });

  it('one panel per rate against window, one per window against rate, every layout named at its line end', () => {
    const text = draw(result([60, 300, 600], [10, 100]));
    const headers = text
      .split('\n\n')
      .slice(1)
      .map((b) => b.split('\n')[0]);
    expect(headers).toEqual([
      'memory per light by window at 10/s (KB per light, log scale)',
      'memory per light by window at 100/s (KB per light, log scale)',
      'memory per light by rate, 1 min window (KB per light, log scale)',
      'memory per light by rate, 5 min window (KB per light, log scale)',
      'memory per light by rate, 10 min window (KB per light, log scale)',
    ]);
    for (const block of text.split('\n\n').slice(1)) {
      for (const layout of LAYOUTS) expect(block).toContain(layout);
    }
    // No latency panel: this result has no throughput.
    expect(text).not.toContain('latency');
  });

  it('a line ends on the row of its last value: the largest is named highest', () => {
    const rows = panel(draw(result([60, 600], [100])), 'memory per light by window at 100/s');
    const rowOf = (name: string): number => rows.findIndex((r) => r.includes(`◂ ${name}`) || r.includes(`, ${name}`));
    // At 10 min and 100/s: grows 7.2 MB > windowed 168 KB > flat 4 KB.
    expect(rowOf('grows')).toBeGreaterThan(0);
    expect(rowOf('grows')).toBeLessThan(rowOf('windowed'));
    expect(rowOf('windowed')).toBeLessThan(rowOf('flat'));
    // x axis: a tick and a label per window.
    expect(rows.find((r) => r.includes('└'))).toBeUndefined();
    const axis = rows.find((r) => /^\s+┬─+┬$/.test(r));
    expect(axis).toBeDefined();
    expect(rows[rows.indexOf(axis as string) + 1]).toMatch(/^\s+1 min\s+10 min$/);
  });

  it('two lines ending on the same value: both named, on neighbouring rows, within the width', () => {
    const report = result([60, 600], [10], { layouts: ['flat'] });
    const twin = { ...report, results: [...report.results, ...report.results.map((r) => ({ ...r, layout: 'flat-twin' }))] };
    const rows = panel(draw(twin, 70), 'memory per light by window');
    const named = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.includes('◂'));
    expect(named.map(({ r }) => r.slice(r.indexOf('◂')))).toEqual(['◂ flat', '◂ flat-twin']);
    // On the hero, with their values, and a ratio that says they are the same.
    const hero = draw(twin, 70, false, ['hero']);
    expect(hero).toContain('flat and flat-twin use the same memory at 10 min @ 10/s');
    expect(hero).toContain('◂ flat 4.0 KB');
    expect(hero).toContain('◂ flat-twin 4.0 KB');
    expect(Math.abs((named[1]?.i ?? 0) - (named[0]?.i ?? 0))).toBe(1);
    for (const r of rows) expect([...r].length).toBeLessThanOrEqual(70);
  });

  it('stays within the width it is given, and uses it', () => {
    const report = result([60, 180, 300, 600], [10, 100], { throughput: true, rounds: true });
    for (const width of [60, 100, 160]) {
      const lines = draw(report, width, false, ['hero', 'window', 'rate', 'latency']).split('\n');
      const longest = Math.max(...lines.map((l) => [...l].length));
      expect(longest).toBeLessThanOrEqual(width);
      expect(longest).toBeGreaterThanOrEqual(width - 2);
    }
  });

  it('no escape codes with colour off; one colour per layout with colour on', () => {
    const report = result([60, 600], [10, 100]);
    expect(draw(report)).not.toContain('\x1b');
    const coloured = draw(report, 80, true);
    const codes = new Set(coloured.match(/\x1b\[\d+m/g));
    codes.delete('\x1b[0m');
    expect(codes.size).toBe(LAYOUTS.length);
  });

  it('linear scale when values stay within ten times; log scale past that', () => {
    const close = result([60, 120], [10], { layouts: ['windowed', 'flat'] });
    expect(panel(draw(close), 'memory per light by window')[0]).toBe('memory per light by window at 10/s (KB per light)');
    const far = result([60, 600], [10], { layouts: ['windowed', 'flat'] });
    expect(panel(draw(far), 'memory per light by window')[0]).toBe('memory per light by window at 10/s (KB per light, log scale)');
  });

  it('latency: per window, each layout and percentile with its median and its range over the rounds; not drawn from one round', () => {
    const text = draw(result([60, 600], [10, 100], { throughput: true, rounds: true }), 80, false, ['latency']);
    const rows = panel(text, 'request latency (a read, then a write) by window at 10/s');
    expect(rows.slice(0, 2)).toEqual([
      'request latency (a read, then a write) by window at 10/s (latency, ms): median',
      'of the rounds (fastest–slowest round)',
    ]);
    // grows' request p50 is 0.3 ms; its rounds 10% under to 30% over.
    expect(rows).toContain('1 min   grows p50     0.30 ms  (0.27–0.39)');
    expect(rows).toContain('10 min  flat p99      2.80 ms  (2.52–3.64)');
    expect(rows).toHaveLength(2 + 2 * LAYOUTS.length * 2);
    expect(text).toContain('request latency (a read, then a write) by window at 100/s');
    const single = draw(result([60], [10], { throughput: true }), 80, false, ['hero', 'latency']);
    expect(single).not.toContain('request latency');
    expect(single.trimEnd()).toMatch(/latency: not drawn, no cell was measured over 2 rounds or more[^]*one run of a percentile is noise$/);
  });

  it('a single cell is drawn as bars, longest for the largest', () => {
    expect(draw(result([300], [10]), 60, false, ['hero'])).toMatchInlineSnapshot(`
      "swc bench on Redis 7.0.15 (jemalloc-5.3.0)
      failure rate 0.5, 1 light per cell, seed 1, traffic one
      window per cell
      hash-max-listpack-entries 128, zset-max-listpack-entries 128
      memory: MEMORY USAGE … SAMPLES 0 summed over a light's keys;
      1 KB = 1024 bytes
      ── grows   ── windowed   ── flat

      memory per light by window at 10/s (KB per light)
      flat uses 88× less than grows at 5 min @ 10/s
      grows 5 min    ████████████████████████████████████ 352 KB
      windowed 5 min ████████ 82.0 KB
      flat 5 min     █ 4.0 KB
      "
    `);
  });

  it('two results: the change of each cell from the first, one line per layout, the largest named', () => {
    const model = chartModel(
      [
        { label: 'base.json', report: result([60, 600], [10]) },
        { label: 'now.json', report: result([60, 600], [10], { scale: 1.5 }) },
      ],
      ['hero'],
    );
    const text = renderChartTerminal(model, { width: 100, color: false });
    expect(text).toContain('(base.json against now.json: memory as the change of each cell from the first)');
    expect(text).toContain('memory per light, change from baseline, by window at 10/s (bytes per light, % change from baseline)');
    expect(text).toMatch(/largest change: \w+ \+50\.0% at/);
    for (const layout of LAYOUTS) expect(text).toContain(`◂ ${layout} +50.0%`);
  });

  it('a cell missing for one layout: lines over the x values every layout has, and a note of what was left out', () => {
    const full = result([60, 300, 600], [10]);
    const partial = { ...full, results: full.results.filter((r) => !(r.layout === 'flat' && r.windowSeconds === 600)) };
    const rows = panel(draw(partial, 100), 'memory per light by window at 10/s');
    expect(rows.filter(Boolean).at(-1)).toBe('(not drawn: grows at 10 min, windowed at 10 min — not every series has that point)');
    expect(rows.join('\n')).not.toMatch(/\b10 min\s*$/m);
  });

  it('control characters in a layout name are shown escaped', () => {
    const report = result([60, 600], [10], { layouts: ['flat'] });
    const evil = { ...report, results: report.results.map((r) => ({ ...r, layout: 'evil\x1b[2J' })) };
    const text = draw(evil);
    expect(text).not.toContain('\x1b');
    expect(text).toContain('evil\\x1b[2J');
  });
});
