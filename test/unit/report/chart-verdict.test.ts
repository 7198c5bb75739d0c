import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareReports, DEFAULT_COMPARE_OPTIONS } from '../../../src/compare/diff.js';
import type { BenchReport, CellResult } from '../../../src/measure/types.js';
import { chartModel, chartVerdict } from '../../../src/report/chart-data.js';
import { FAILED_COLOR, renderChartSvg } from '../../../src/report/chart-svg.js';

const small = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url)), 'utf8')) as BenchReport;
const withCells = (report: BenchReport, edit: (r: CellResult) => CellResult): BenchReport => ({ ...report, results: report.results.map(edit) });
// One more field in 6.0's write: +56 B in every 6.0 cell, past 1% in the smaller lights only.
const plus56 = withCells(small, (r) => (r.layout === 'stoplight-v6' ? { ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight + 56 } } : r));
const sides = [
  { label: 'small.json', report: small },
  { label: 'this run', report: plus56 },
];

describe("a compared chart headlines the gate's verdict", () => {
  const verdict = compareReports(small, plus56);
  const failing = verdict.failures.filter((r) => r.figure === 'bytesPerLight');
  // The gate's own worst: the failing cell furthest past its tolerance.
  const worst = [...failing].sort((a, b) => (b.changeFraction ?? 0) - (a.changeFraction ?? 0))[0];

  it('the hero draws the failing cell’s rate, not the highest rate, and names it with the tolerance', () => {
    expect(verdict.ok).toBe(false);
    expect(worst).toBeDefined();
    if (!worst) return;
    // The case the hero used to miss: the worst failing cell is not at the highest rate.
    expect(worst.rate).toBeLessThan(Math.max(...small.results.map((r) => r.rate)));
    const model = chartModel(sides, ['hero'], verdict);
    const hero = model.panels[0];
    expect(hero?.name).toBe('hero');
    expect(hero?.title).toContain(`at ${worst.rate}/s`);
    const percent = `+${((worst.changeFraction ?? 0) * 100).toFixed(1)}%`;
    expect(hero?.note).toBe(
      `FAIL: stoplight-v6 ${percent} at ${worst.windowSeconds} s @ ${worst.rate}/s (tolerance +1%); ${failing.length} of ${small.results.length} cells past it`,
    );
    expect(model.verdict).toMatchObject({ ok: false, layout: 'stoplight-v6', windowSeconds: worst.windowSeconds, rate: worst.rate, failed: failing.length });
  });

  it('the tolerance is a band on every compared panel and each failed point is marked, as the verdict judged it', () => {
    const model = chartModel(sides, ['hero', 'window', 'rate'], verdict);
    expect(model.panels.length).toBeGreaterThan(1);
    for (const panel of model.panels) {
      expect(panel.band?.every((b) => b.limit === 1)).toBe(true);
      for (const s of panel.series) {
        for (const p of s.points) {
          const cell = panel.kind === 'change-by-rate' ? { x: 'rate' } : { x: 'windowSeconds' };
          const row = verdict.rows.find(
            (r) =>
              r.figure === 'bytesPerLight' &&
              r.layout === s.layout &&
              r[cell.x as 'rate' | 'windowSeconds'] === p.x &&
              (panel.kind === 'change-by-rate' ? r.windowSeconds : r.rate) ===
                Number(/(\d+)(?:\/s| s)/.exec(panel.title.replace(/.*(at |, )/, ''))?.[1] ?? NaN),
          );
          expect(p.failed === true, `${panel.title} ${s.layout} ${p.x}`).toBe(row?.status === 'regressed');
        }
      }
    }
    // The change axis holds the band whole.
    expect(model.yScales['change-by-window']?.max).toBeGreaterThanOrEqual(1);
    expect(model.yScales['change-by-window']?.min).toBeLessThanOrEqual(-1);
  });

  it('a byte tolerance gives each cell its own limit; a passing comparison says how near it came', () => {
    const bytes = compareReports(small, plus56, { ...DEFAULT_COMPARE_OPTIONS, memoryToleranceBytes: 64 });
    expect(bytes.ok).toBe(true);
    const v = chartVerdict(bytes);
    expect(v).toMatchObject({ ok: true, tolerance: '64 B', failed: 0, cells: small.results.length });
    const hero = chartModel(sides, ['hero'], bytes).panels[0];
    expect(hero?.note).toMatch(/^ok: nearest to the tolerance 64 B, stoplight-v6 \+\d\.\d% at .*; 8 of 8 cells within it$/);
    const limits = new Set(hero?.band?.map((b) => b.limit.toFixed(3)));
    expect(limits.size).toBeGreaterThan(1);
    // Without a verdict (one result, or none given) the hero is as before: the highest rate.
    expect(chartModel(sides, ['hero']).panels[0]?.title).toContain('at 2/s');
  });

  it('the SVG draws the band and a cross per failed point', async () => {
    const svg = await renderChartSvg(chartModel(sides, ['hero'], verdict));
    expect(svg).toContain('role-tolerance-band');
    // The failed marks' group: its paths up to the group's end.
    const crosses = svg.split('role-failed')[1]?.split('</g>')[0]?.match(/<path/g) ?? [];
    const onHero = failing.filter((r) => r.rate === worst?.rate).length;
    expect(crosses.length).toBe(onHero);
    expect(svg.toLowerCase()).toContain(FAILED_COLOR);
  });
});

describe('a tie by the gate’s measure', () => {
  it('goes to the larger change, then the higher rate and the longer window (the hero without a verdict)', () => {
    const plus20 = withCells(small, (r) => ({ ...r, memory: { ...r.memory, bytesPerLight: Math.round(r.memory.bytesPerLight * 1.2) } }));
    const v = chartVerdict(compareReports(small, plus20));
    // Every cell +20% within rounding: the largest change wins, and among equals the highest rate.
    expect(v?.failed).toBe(small.results.length);
    const exact = withCells(small, (r) => ({ ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight * 2 } }));
    expect(chartVerdict(compareReports(small, exact))).toMatchObject({ rate: 2, windowSeconds: 60, change: 100 });
  });
});
