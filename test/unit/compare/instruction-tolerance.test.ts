/**
 * The instruction gate's tolerance from the runs' own spreads
 * (src/compare/tolerances.ts): factor × the larger spread of the two runs,
 * at least the floor; a ratio's two spreads added, twice the floor; the
 * constant for a result without repeats; `--instructions-tolerance` over all.
 * Each row carries what it got and why, and the verdict says it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareReports, DEFAULT_COMPARE_OPTIONS, type CompareRow, type Verdict } from '../../../src/compare/diff.js';
import { compareOptionsFrom } from '../../../src/compare/options.js';
import { MEASURED_INSTRUCTION_SPREAD } from '../../../src/compare/instruction-spread.js';
import {
  DEFAULT_INSTRUCTIONS_TOLERANCE,
  INSTRUCTIONS_SPREAD_FACTOR,
  INSTRUCTIONS_TOLERANCE_FLOOR,
  measuredSpreadOf,
  type MeasuredInstructionSpread,
} from '../../../src/compare/tolerances.js';
import type { InstructionsResult, OpInstructions } from '../../../src/measure/instructions.js';
import type { BenchReport } from '../../../src/measure/types.js';
import { failureLines, verdictLine } from '../../../src/report/compare.js';
import { verdictDocument } from '../../../src/report/compare-json.js';
import { compareSchema } from '../../../src/schemas/compare.js';

const small = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url)), 'utf8')) as BenchReport;

/** A count of `n` per call whose three repeats spread by `spread` ((max − min) / mean); `spread` null: one repeat (an older result). */
function op(n: number, spread: number | null): OpInstructions {
  if (spread === null) return { instructionsPerCall: n, repeats: [n], min: n, max: n, spreadFraction: 0, noisy: false, calls: 300, callsPerOp: 1 };
  const half = (n * spread) / 2;
  return {
    instructionsPerCall: n,
    repeats: [n - half, n, n + half],
    min: n - half,
    max: n + half,
    spreadFraction: spread,
    noisy: spread > 0.01,
    calls: 300,
    callsPerOp: 1,
  };
}

interface Counts {
  /** 6.0's write count and spread. */
  v6Write?: [number, number | null];
  /** Every other count's spread. */
  spread?: number | null;
}

/** The small baseline with counts: 5.x's and 6.0's, 6.0's write as given. */
function withCounts({ v6Write = [155_600, 0.004], spread = 0.004 }: Counts = {}): BenchReport {
  const counted = (layout: string): InstructionsResult => {
    const v6 = layout === 'stoplight-v6';
    return {
      counted: 'test',
      write: v6 ? op(v6Write[0], v6Write[1]) : op(72_000, spread),
      read: op(v6 ? 65_500 : 97_400, spread),
      request: op(v6 ? 222_500 : 170_700, spread),
      lights: 1,
    };
  };
  return { ...small, results: small.results.map((r) => ({ ...r, instructions: counted(r.layout) })) };
}

const v6Write = (verdict: Verdict, figure = 'writeInstructions'): CompareRow => {
  const row = verdict.rows.find((r) => r.layout === 'stoplight-v6' && r.figure === figure && r.windowSeconds === 30 && r.rate === 1);
  if (!row) throw new Error(`no 6.0 ${figure} row`);
  return row;
};

describe('instruction tolerance from the measured spread', () => {
  it('is the factor times the larger of the two runs’ spreads, per op: 6.0’s wide write gets more room than its close reads', () => {
    // 3% spread in the baseline, 0.4% in the current run: the larger counts.
    const base = withCounts({ v6Write: [155_600, 0.03] });
    const within = compareReports(base, withCounts({ v6Write: [155_600 * 1.04, 0.004] }));
    const row = v6Write(within);
    expect(row.tolerance).toEqual({
      fraction: INSTRUCTIONS_SPREAD_FACTOR * 0.03,
      basis: 'spread',
      spreadFraction: 0.03,
      factor: INSTRUCTIONS_SPREAD_FACTOR,
      floorFraction: INSTRUCTIONS_TOLERANCE_FLOOR,
    });
    expect(row.status).toBe('ok');
    // The same +4% where the repeats agree closely: past the floor, a regression.
    const tight = compareReports(withCounts(), withCounts({ v6Write: [155_600 * 1.04, 0.004] }));
    expect(v6Write(tight).tolerance).toMatchObject({ fraction: INSTRUCTIONS_TOLERANCE_FLOOR, basis: 'floor', spreadFraction: 0.004 });
    expect(v6Write(tight).status).toBe('regressed');
    // Past the spread's room: a regression there too, and the other way round an improvement.
    const past = compareReports(base, withCounts({ v6Write: [155_600 * 1.05, 0.004] }));
    expect(v6Write(past).status).toBe('regressed');
    expect(v6Write(compareReports(withCounts({ v6Write: [155_600 * 1.05, 0.004] }), base)).status).toBe('improved');
  });

  it("a ratio to the reference layout adds its two counts' spreads and has twice the floor", () => {
    const verdict = compareReports(withCounts({ v6Write: [155_600, 0.03], spread: 0.01 }), withCounts({ v6Write: [155_600, 0.004], spread: 0.004 }));
    const ratio = v6Write(verdict, 'writeInstructionRatio');
    expect(ratio.tolerance?.basis).toBe('spread');
    expect(ratio.tolerance?.spreadFraction).toBeCloseTo(0.04, 10);
    expect(ratio.tolerance?.fraction).toBeCloseTo(INSTRUCTIONS_SPREAD_FACTOR * 0.04, 10);
    const reads = verdict.rows.filter((r) => r.figure === 'readInstructionRatio');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => r.tolerance?.basis === 'floor' && r.tolerance.fraction === 2 * INSTRUCTIONS_TOLERANCE_FLOOR)).toBe(true);
  });

  it('falls back to the constant for a result without repeats, and --instructions-tolerance overrides every row', () => {
    const old = withCounts({ v6Write: [155_600, null], spread: null });
    const rose = withCounts({ v6Write: [155_600 * 1.022, 0.004] });
    const fallback = compareReports(old, rose);
    expect(fallback.rows.filter((r) => r.figure.includes('Instruction')).every((r) => r.tolerance?.basis === 'fallback')).toBe(true);
    expect(v6Write(fallback)).toMatchObject({ status: 'regressed', tolerance: { fraction: DEFAULT_INSTRUCTIONS_TOLERANCE } });
    // With spreads in both, +2.2% is inside the floor.
    expect(v6Write(compareReports(withCounts(), rose)).status).toBe('ok');
    const fixed = compareReports(withCounts({ v6Write: [155_600, 0.03] }), rose, compareOptionsFrom({ ...flags, instructionsTolerance: 0.01 }));
    expect(fixed.rows.filter((r) => r.figure.includes('Instruction')).every((r) => r.tolerance?.basis === 'flag' && r.tolerance.fraction === 0.01)).toBe(true);
    expect(v6Write(fixed).status).toBe('regressed');
    // Without the flag, the options leave it unset: the spreads decide.
    expect(compareOptionsFrom(flags).instructionsTolerance).toBeUndefined();
  });

  it('no floor is below the spread measured across runs of an unchanged build (npm run bench:instruction-spread -- --write)', () => {
    // 6.0's write moved 4% across unchanged runs (more than the 2.5% floor); 5.x's was not measured.
    const measured: MeasuredInstructionSpread = {
      measured: { date: '2026-12-07', runs: 5, redis: '7.0.15', load: '1.0-2.0' },
      spreads: { 'stoplight-v6': { write: 0.04, read: 0.001, request: 0.002 } },
    };
    const options = { ...DEFAULT_COMPARE_OPTIONS, instructionsMeasuredSpread: measured };
    const rose = (by: number) => withCounts({ v6Write: [155_600 * by, 0.004] });
    const within = compareReports(withCounts(), rose(1.035), options);
    expect(v6Write(within).tolerance).toMatchObject({ fraction: 0.04, basis: 'floor', floorFraction: 0.04, spreadFraction: 0.004 });
    expect(v6Write(within).status).toBe('ok');
    // The ratio to 5.x: its two layouts' measured spreads added (4% + 0), under twice the floor (5%), which stays.
    expect(v6Write(within, 'writeInstructionRatio').tolerance).toMatchObject({ fraction: 2 * INSTRUCTIONS_TOLERANCE_FLOOR, basis: 'floor' });
    // Past the measured spread: a regression still.
    expect(v6Write(compareReports(withCounts(), rose(1.045), options)).status).toBe('regressed');
    // 5.x's write, not measured, keeps the floor.
    const v5 = within.rows.find((r) => r.layout === 'stoplight-v5' && r.figure === 'writeInstructions');
    expect(v5?.tolerance).toMatchObject({ fraction: INSTRUCTIONS_TOLERANCE_FLOOR, basis: 'floor' });
    // Without the measured spread the same +3.5% is past the 2.5% floor.
    const none: MeasuredInstructionSpread = { measured: null, spreads: {} };
    expect(v6Write(compareReports(withCounts(), rose(1.035), { ...DEFAULT_COMPARE_OPTIONS, instructionsMeasuredSpread: none })).status).toBe('regressed');
    // A result without repeats: the larger of the constant and the measured spread.
    const old = withCounts({ v6Write: [155_600, null], spread: null });
    expect(v6Write(compareReports(old, rose(1.035), options)).tolerance).toMatchObject({ fraction: 0.04, basis: 'fallback' });
    // By default the gate takes the committed measurement (src/compare/instruction-spread.ts).
    const byDefault = v6Write(compareReports(withCounts(), withCounts()));
    expect(byDefault.tolerance?.floorFraction).toBe(
      Math.max(INSTRUCTIONS_TOLERANCE_FLOOR, measuredSpreadOf(MEASURED_INSTRUCTION_SPREAD, 'stoplight-v6', 'write')),
    );
  });

  it('the failure line and the verdict line show the ± used and how it was set; the JSON carries it and fits its schema', () => {
    const verdict = compareReports(withCounts({ v6Write: [155_600, 0.03] }), withCounts({ v6Write: [155_600 * 1.06, 0.004] }));
    expect(verdict.ok).toBe(false);
    const line = failureLines(verdict).find((l) => l.startsWith('stoplight-v6 30 s @ 1/s: write instructions/call'));
    expect(line).toMatch(
      /^stoplight-v6 30 s @ 1\/s: write instructions\/call \+6\.0% \(tolerance ±4\.5% = 1\.5 × spread 3%; 155,600 ±1\.5% → 164,936 ±0\.2% instructions\/call\)$/,
    );
    expect(verdictLine(verdict)).toMatch(/instructions per call rose in \d+ figure\(s\) \(stoplight-v6; tolerance ±[\d.]+–[\d.]+%\)/);
    const ok = compareReports(withCounts(), withCounts());
    expect(verdictLine(ok)).toBe('ok: no regression in 8 cell(s) (bytes per light, commands per call, instructions per call ±2.5–5%)');
    const doc = verdictDocument(verdict, { label: 'a', report: withCounts() }, { label: 'b', report: withCounts() });
    expect(compareSchema.safeParse(doc).success).toBe(true);
    expect(doc.options).toMatchObject({
      instructionsToleranceFraction: null,
      instructionsSpreadFactor: INSTRUCTIONS_SPREAD_FACTOR,
      instructionsToleranceFloorFraction: INSTRUCTIONS_TOLERANCE_FLOOR,
    });
  });
});

/** The comparison flags at their defaults, as commander hands them over. */
const flags = {
  memoryTolerance: { fraction: DEFAULT_COMPARE_OPTIONS.memoryTolerance },
  throughputTolerance: DEFAULT_COMPARE_OPTIONS.throughputTolerance,
  serverTolerance: DEFAULT_COMPARE_OPTIONS.serverTolerance ?? 0.5,
};
