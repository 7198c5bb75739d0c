import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compareReports, DEFAULT_COMPARE_OPTIONS } from '../../src/compare/diff.js';
import type { InstructionsResult, OpInstructions } from '../../src/measure/instructions.js';
import type { BenchReport, CellResult } from '../../src/measure/types.js';
import { latencyStats } from '../report-fixtures.js';
import { runCli } from './run-cli.js';

/** A real result (the committed baseline of the small CI scenario), given counts below. */
const BASELINE = fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'swc-compare-instructions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const op = (n: number, callsPerOp = 1): OpInstructions => ({
  instructionsPerCall: n,
  repeats: [n * 0.998, n, n * 1.002],
  min: n * 0.998,
  max: n * 1.002,
  spreadFraction: 0.004,
  noisy: false,
  calls: 300,
  callsPerOp,
});

/** Counts like the ones measured on 7.0.15 (docs/instructions.md), scaled per layout by `factor`. */
function counted(layout: string, factor: (layout: string, op: 'write' | 'read' | 'request') => number): InstructionsResult {
  const base = layout === 'stoplight-v5' ? { write: 72_000, read: 97_400, request: 170_700 } : { write: 155_600, read: 65_500, request: 222_500 };
  return {
    counted: 'test',
    write: op(base.write * factor(layout, 'write')),
    read: op(base.read * factor(layout, 'read')),
    request: op(base.request * factor(layout, 'request'), 2),
    lights: 1,
  };
}

function withCounts(factor: (layout: string, op: 'write' | 'read' | 'request') => number = () => 1): BenchReport {
  const report = JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchReport;
  return { ...report, results: report.results.map((r: CellResult) => ({ ...r, instructions: counted(r.layout, factor) })) };
}

const plain = (): BenchReport => JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchReport;
// compare's default: each row's tolerance from the runs' spreads (0.4% here: the 2.5% floor; a ratio's 5%).
const options = DEFAULT_COMPARE_OPTIONS;

describe('compare on instructions per call', () => {
  it('passes unchanged counts, and a change within the tolerance', () => {
    expect(compareReports(withCounts(), withCounts(), options).ok).toBe(true);
    const within = compareReports(
      withCounts(),
      withCounts(() => 1.01),
      options,
    );
    expect(within.ok).toBe(true);
    expect(within.rows.filter((r) => r.figure === 'writeInstructions').every((r) => r.status === 'ok')).toBe(true);
  });

  it('fails a 6% costlier 6.0 write (three more HGETs add 3.7–7%, docs/ci.md): its own count and its ratio to 5.x, naming layout and op', () => {
    const verdict = compareReports(
      withCounts(),
      withCounts((l, o) => (l === 'stoplight-v6' && o === 'write' ? 1.06 : 1)),
      options,
    );
    expect(verdict.ok).toBe(false);
    const figures = new Set(verdict.failures.map((r) => `${r.layout} ${r.figure}`));
    expect([...figures].sort()).toEqual(['stoplight-v6 writeInstructionRatio', 'stoplight-v6 writeInstructions']);
    // Every cell of 6.0 (four in the fixture), both figures.
    expect(verdict.failures).toHaveLength(8);
  });

  it('catches a change that costs every layout alike on the per-layout counts, where the ratios see nothing', () => {
    const verdict = compareReports(
      withCounts(),
      withCounts(() => 1.04),
      options,
    );
    expect(verdict.ok).toBe(false);
    expect(verdict.failures.every((r) => r.figure.endsWith('Instructions'))).toBe(true);
    expect(verdict.rows.filter((r) => r.figure.endsWith('InstructionRatio')).every((r) => r.status === 'ok')).toBe(true);
    expect(new Set(verdict.failures.map((r) => r.layout))).toEqual(new Set(['stoplight-v5', 'stoplight-v6']));
  });

  it('reports the reversed comparison as an improvement, never a failure', () => {
    const verdict = compareReports(
      withCounts((l, o) => (l === 'stoplight-v6' && o === 'write' ? 1.06 : 1)),
      withCounts(),
      options,
    );
    expect(verdict.ok).toBe(true);
    expect(verdict.improvements.map((r) => r.figure)).toContain('writeInstructions');
  });

  it('compares results without counts as before: no instruction rows, or shown-only ones when only the baseline counted', () => {
    expect(compareReports(plain(), plain(), options).rows.some((r) => r.figure.includes('Instruction'))).toBe(false);
    const oneSided = compareReports(withCounts(), plain(), options);
    expect(oneSided.ok).toBe(true);
    const rows = oneSided.rows.filter((r) => r.figure.includes('Instruction'));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.status === 'info' && r.current === null)).toBe(true);
  });

  it("lets the counts decide a counted cell's server cost: timed server figures there are shown only", () => {
    const stats = (usec: number) => latencyStats({ serverUsecPerCall: usec });
    const timed = (report: BenchReport, usec: number): BenchReport => ({
      ...report,
      results: report.results.map((r) => ({ ...r, throughput: { write: stats(usec), read: stats(usec), request: stats(usec), connections: 1, pipeline: 1 } })),
    });
    // Twice the µs per call: a regression by time alone, without counts.
    const byTime = compareReports(timed(plain(), 5), timed(plain(), 10), options);
    expect(byTime.failures.some((r) => r.figure === 'writeServerUsecPerCall')).toBe(true);
    const counted = compareReports(timed(withCounts(), 5), timed(withCounts(), 10), options);
    expect(counted.ok).toBe(true);
    expect(counted.rows.filter((r) => r.figure === 'writeServerUsecPerCall').every((r) => r.status === 'info')).toBe(true);
  });

  it('swc compare exits 1 naming the layout, the op and both counts; --instructions-tolerance widens the gate', async () => {
    const before = join(dir, 'before.json');
    const after = join(dir, 'after.json');
    writeFileSync(before, JSON.stringify(withCounts()));
    writeFileSync(after, JSON.stringify(withCounts((l, o) => (l === 'stoplight-v6' && o === 'write' ? 1.03 : 1))));
    const failed = await runCli(['compare', before, after]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(
      // The tolerance and how it was set; each count with ± half its repeats' spread (the line wraps at 120 columns).
      /stoplight-v6 30 s @ 1\/s: write instructions\/call \+3(\.0)?% \(tolerance ±2\.5%, the floor, over 1\.5 × spread 0\.4%;\s+155,600\s+±\d\.\d%\s+→\s+160,268\s+±\d\.\d%\s+instructions\/call\)/,
    );
    const wider = await runCli(['compare', before, after, '--instructions-tolerance', '5%']);
    expect(wider.code).toBe(0);
    const same = await runCli(['compare', before, before]);
    expect(same.code).toBe(0);
  });
});
