import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareReports, DEFAULT_COMPARE_OPTIONS } from '../../../src/compare/diff.js';
import { plusMinus } from '../../../src/compare/instructions.js';
import { USED_MEMORY_BOUND } from '../../../src/compare/memory-detail.js';
import type { InstructionsResult } from '../../../src/measure/instructions.js';
import type { BenchReport, CellResult } from '../../../src/measure/types.js';
import { compareGrid, constantGrowth, failureLines, quietLine, renderCompare, renderStepSummary } from '../../../src/report/compare.js';
import { instructionsOp as op, twoLayouts } from './fixtures.js';

const small = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url)), 'utf8')) as BenchReport;
const side = (report: BenchReport, label: string) => ({ label, report });
const withCells = (report: BenchReport, edit: (r: CellResult) => CellResult): BenchReport => ({ ...report, results: report.results.map(edit) });
const usedRows = (text: string): string[] => text.split('\n').filter((l) => l.includes('used_memory Δ per light |'));

describe('used_memory Δ rows: only where they disagree with MEMORY USAGE', () => {
  it('a used_memory swing of 15% with MEMORY USAGE unchanged is not shown; one past the bound is', () => {
    const swung = withCells(twoLayouts, (r) => ({
      ...r,
      memory: { ...r.memory, usedMemoryDeltaPerLight: Math.round(r.memory.usedMemoryDeltaPerLight * 0.85) },
    }));
    const verdict = compareReports(twoLayouts, swung);
    expect(verdict.ok).toBe(true);
    // Every row stays in the verdict (--json, csv); the table leaves the four out and says so.
    expect(verdict.rows.filter((r) => r.figure === 'usedMemoryDeltaPerLight')).toHaveLength(4);
    const text = renderCompare(verdict, side(twoLayouts, 'base.json'), side(swung, 'this run'), 'markdown', false);
    expect(usedRows(text)).toEqual([]);
    expect(quietLine(verdict)).toMatch(/^used_memory Δ per light: 4 row\(s\) not shown, each within 25% of the light's bytes/);
    expect(text).toContain(quietLine(verdict));
    expect(renderCompare(verdict, side(twoLayouts, 'b'), side(swung, 'c'), 'csv', false).match(/usedMemoryDeltaPerLight/g)).toHaveLength(4);
    // The step summary's collapsed "every figure" table keeps them.
    expect(usedRows(renderStepSummary(verdict, side(twoLayouts, 'b'), side(swung, 'c')))).toHaveLength(4);

    // One cell's used_memory grew by more than a quarter of its light's bytes while MEMORY USAGE did not move: shown.
    const first = twoLayouts.results[0] as CellResult;
    const past = Math.ceil(first.memory.bytesPerLight * USED_MEMORY_BOUND) + 1;
    const strayed = withCells(twoLayouts, (r) =>
      r === first ? { ...r, memory: { ...r.memory, usedMemoryDeltaPerLight: r.memory.usedMemoryDeltaPerLight + past } } : r,
    );
    const v2 = compareReports(twoLayouts, strayed);
    const shown = compareGrid(v2).rows.filter((row) => row[1] === 'used_memory Δ per light');
    expect(shown).toHaveLength(1);
    expect(shown[0]?.[0]).toBe('stoplight-v5 60 s @ 10/s');
    expect(quietLine(v2)).toMatch(/^used_memory Δ per light: 3 row\(s\)/);
  });

  it('a real memory change moves both figures alike: the used_memory row stays quiet', () => {
    const grown = withCells(twoLayouts, (r) => ({
      ...r,
      memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight + 5000, usedMemoryDeltaPerLight: r.memory.usedMemoryDeltaPerLight + 5100 },
    }));
    const verdict = compareReports(twoLayouts, grown);
    expect(verdict.ok).toBe(false);
    expect(compareGrid(verdict).rows.filter((row) => row[1] === 'used_memory Δ per light')).toEqual([]);
  });
});

describe('a change per light that is the same in every cell is told once', () => {
  // +56 B in every stoplight-v6 cell of the small baseline: 1% fails the smaller lights and passes the larger.
  const plus56 = withCells(small, (r) => (r.layout === 'stoplight-v6' ? { ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight + 56 } } : r));
  const verdict = compareReports(small, plus56, { ...DEFAULT_COMPARE_OPTIONS, memoryTolerance: 0.01 });
  const v6 = small.results.filter((r) => r.layout === 'stoplight-v6');
  const failing = v6.filter((r) => 56 > 0.01 * r.memory.bytesPerLight);

  it('one line names the constant change, how many cells it failed and which, instead of one line per cell', () => {
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(v6.length);
    const groups = constantGrowth(verdict);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ layout: 'stoplight-v6', bytes: 56 });
    expect(groups[0]?.cells).toHaveLength(v6.length);
    expect(groups[0]?.failing).toHaveLength(failing.length);
    const lines = failureLines(verdict);
    expect(lines).toEqual([
      `stoplight-v6: +56 B per light in every cell (${v6.length}); ${failing.length} of ${v6.length} cells past the tolerance +1.0% (` +
        failing.map((r) => `${r.windowSeconds} s @ ${r.rate}/s +${((56 / r.memory.bytesPerLight) * 100).toFixed(1)}%`).join(', ') +
        ')',
    ]);
    const text = renderCompare(verdict, side(small, 'small.json'), side(plus56, 'this run'), 'table', false, 120);
    // Said once in the log (wrapped at 120 columns).
    expect(text.replace(/\n +/g, ' ')).toContain(lines[0]);
    expect(text.match(/per light in every cell/g)).toHaveLength(1);
  });

  it('a change that differs from cell to cell keeps a line per failing cell', () => {
    const uneven = withCells(small, (r) =>
      r.layout === 'stoplight-v6' ? { ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight + r.rate * 100 } } : r,
    );
    const v = compareReports(small, uneven);
    expect(constantGrowth(v)).toEqual([]);
    expect(failureLines(v)).toHaveLength(v.failures.length);
  });
});

describe('instruction rows show ± where the repeats are stored', () => {
  const counted = (write: number, wide: number): BenchReport =>
    withCells(twoLayouts, (r) => ({
      ...r,
      instructions: { counted: 'test', write: op(write, wide), read: op(65_500, 0.002), request: op(222_500, 0.002), lights: 1 } as InstructionsResult,
    }));

  it('half the spread of the repeats, in the table and in a failure line', () => {
    expect(plusMinus(200_000, { min: 199_000, max: 201_000 })).toBe(' ±0.5%');
    expect(plusMinus(200_000, undefined)).toBe('');
    const baseline = counted(193_049, 0.006);
    const current = counted(200_000, 0.004);
    const verdict = compareReports(baseline, current);
    const row = verdict.rows.find((r) => r.figure === 'writeInstructions');
    expect(row?.baselineRange).toEqual({ min: 193_049 * 0.997, max: 193_049 * 1.003 });
    const grid = compareGrid(verdict).rows.find((r) => r[1] === 'write instructions/call');
    expect(grid?.slice(2, 4)).toEqual(['193,049 ±0.3%', '200,000 ±0.2%']);
    const line = failureLines(verdict).find((l) => l.includes('write instructions/call'));
    expect(line).toMatch(/193,049 ±0\.3% → 200,000 ±0\.2% instructions\/call\)$/);
    // Not an ops/s figure measured in rounds: no word about overlapping rounds.
    expect(line).not.toMatch(/round/);
  });
});

describe('--format github keeps an annotation per failing figure', () => {
  it('even when the change per light is constant', () => {
    const plus56 = withCells(small, (r) => (r.layout === 'stoplight-v6' ? { ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight + 56 } } : r));
    const verdict = compareReports(small, plus56);
    const errors = renderCompare(verdict, side(small, 'small.json'), side(plus56, 'c'), 'github', false)
      .split('\n')
      .filter((l) => l.includes('title=swc regression'));
    expect(errors).toHaveLength(verdict.failures.length);
  });
});
