import type { BenchReport, CellResult } from '../measure/types.js';
import { OPERATIONS, type CompareRow, type CountTolerance, type InstructionFigure, type RowStatus } from './rows.js';
import { MEASURED_INSTRUCTION_SPREAD } from './instruction-spread.js';
import {
  DEFAULT_INSTRUCTIONS_TOLERANCE,
  INSTRUCTIONS_SPREAD_FACTOR,
  INSTRUCTIONS_TOLERANCE_FLOOR,
  measuredSpreadOf,
  type MeasuredInstructionSpread,
} from './tolerances.js';

export { DEFAULT_INSTRUCTIONS_TOLERANCE, INSTRUCTIONS_SPREAD_FACTOR, INSTRUCTIONS_TOLERANCE_FLOOR };

/** The ops whose counts are compared. */
const OPS = OPERATIONS;
export type { InstructionFigure };

export const INSTRUCTION_FIGURES: readonly InstructionFigure[] = OPS.flatMap((op) => [`${op}Instructions`, `${op}InstructionRatio`] as const);

export const isInstructionFigure = (figure: string): figure is InstructionFigure => (INSTRUCTION_FIGURES as readonly string[]).includes(figure);

/** Symmetric, as the server µs figures: regressed above `1 + tolerance` times the baseline, improved below `1 / (1 + tolerance)`. */
function judgeCount(baseline: number, current: number, tolerance: number): RowStatus {
  if (current > baseline * (1 + tolerance)) return 'regressed';
  if (baseline > current * (1 + tolerance)) return 'improved';
  return 'ok';
}

const change = (baseline: number, current: number): number => (baseline === current ? 0 : baseline === 0 ? Number.POSITIVE_INFINITY : current / baseline - 1);

function row(
  cell: CellResult,
  name: string,
  figure: InstructionFigure,
  baseline: number,
  current: number | null,
  status: RowStatus,
  reference?: string,
  ranges: { baseline?: Range; current?: Range } = {},
  tolerance?: CountTolerance,
): CompareRow {
  return {
    cell: name,
    layout: cell.layout,
    windowSeconds: cell.windowSeconds,
    rate: cell.rate,
    // The row type's figure union includes these (src/compare/diff.ts Figure).
    figure,
    ...(reference !== undefined ? { reference } : {}),
    baseline,
    current,
    changeFraction: current === null ? null : change(baseline, current),
    status,
    ...(ranges.baseline ? { baselineRange: ranges.baseline } : {}),
    ...(ranges.current ? { currentRange: ranges.current } : {}),
    ...(tolerance ? { tolerance } : {}),
  };
}

type Range = { readonly min: number; readonly max: number };

/** An op's lowest and highest repeat, when it was counted more than once (results before repeats have none). */
const rangeOf = (op: { min?: number; max?: number; repeats?: readonly number[] } | undefined): Range | undefined =>
  op && typeof op.min === 'number' && typeof op.max === 'number' && (op.repeats?.length ?? 2) > 1 ? { min: op.min, max: op.max } : undefined;

type Counted = { instructionsPerCall: number; min?: number; max?: number; repeats?: readonly number[]; spreadFraction?: number };

/** An op's spread ((max − min) / mean of its repeats), when it was counted more than once; undefined for results without repeats. */
export function spreadOf(op: Counted | undefined): number | undefined {
  if (!op || (op.repeats?.length ?? 2) < 2) return undefined;
  if (typeof op.spreadFraction === 'number' && Number.isFinite(op.spreadFraction)) return op.spreadFraction;
  if (typeof op.min === 'number' && typeof op.max === 'number' && op.instructionsPerCall > 0) return (op.max - op.min) / op.instructionsPerCall;
  return undefined;
}

/** How instruction tolerances are set: an explicit fraction (`--instructions-tolerance`), else from the spreads. */
export interface CountToleranceSettings {
  /** `--instructions-tolerance`: this fraction for every row, spreads aside. */
  readonly fixed?: number;
  readonly factor?: number;
  readonly floor?: number;
  /** The spreads measured across runs of an unchanged build (default: src/compare/instruction-spread.ts): no row's floor is below its own. */
  readonly measured?: MeasuredInstructionSpread;
}

/**
 * A row's tolerance: `fixed` when given; else the factor times the larger of
 * the two runs' spreads, at least the floor (`floorScale` times it: 2 for a
 * ratio, whose two counts each move) and at least `across`, the spread
 * measured across runs of an unchanged build; the larger of the constant and
 * `across` when either run has no spread. `spreads` holds each run's spread
 * (a ratio's: its two counts' added).
 */
export function countTolerance(spreads: readonly (number | undefined)[], settings: CountToleranceSettings, floorScale = 1, across = 0): CountTolerance {
  if (settings.fixed !== undefined) return { fraction: settings.fixed, basis: 'flag' };
  if (spreads.some((s) => s === undefined)) return { fraction: Math.max(DEFAULT_INSTRUCTIONS_TOLERANCE, across), basis: 'fallback' };
  const factor = settings.factor ?? INSTRUCTIONS_SPREAD_FACTOR;
  const floor = Math.max((settings.floor ?? INSTRUCTIONS_TOLERANCE_FLOOR) * floorScale, across);
  const spread = Math.max(...(spreads as number[]));
  const fromSpread = factor * spread;
  return fromSpread > floor
    ? { fraction: fromSpread, basis: 'spread', spreadFraction: spread, factor, floorFraction: floor }
    : { fraction: floor, basis: 'floor', spreadFraction: spread, factor, floorFraction: floor };
}

/**
 * `±0.4%`: half the spread of a count's repeats ((max − min) / 2) over the
 * count; '' without repeats.
 */
export function plusMinus(value: number | null, range: Range | undefined): string {
  if (value === null || !range || value === 0) return '';
  const half = (range.max - range.min) / 2 / value;
  return ` ±${(half * 100).toFixed(half < 0.001 ? 2 : 1)}%`;
}

/**
 * Rows comparing instructions per call, for the cells where the baseline
 * has counts. When both runs counted, each op's count gates for each layout
 * on its own (a change that costs every layout alike is seen there), and
 * each layout's count over the reference layout's (the cell's first layout
 * in the baseline) gates too. A current run without counts gets shown-only
 * rows: results without counts compare as before.
 */
export function instructionRows(
  baseline: BenchReport,
  current: BenchReport,
  settings: CountToleranceSettings,
  cellName: (r: { layout: string; windowSeconds: number; rate: number }) => string,
): CompareRow[] {
  const now = new Map(current.results.map((r) => [cellName(r), r]));
  const before = new Map(baseline.results.map((r) => [cellName(r), r]));
  const references = new Map<string, string>();
  for (const r of baseline.results) {
    const key = `${r.windowSeconds}|${r.rate}`;
    if (!references.has(key)) references.set(key, r.layout);
  }
  const rows: CompareRow[] = [];
  for (const b of baseline.results) {
    const bi = b.instructions;
    if (!bi) continue;
    const name = cellName(b);
    const ci = now.get(name)?.instructions;
    const refName = references.get(`${b.windowSeconds}|${b.rate}`);
    const refB = refName !== undefined && refName !== b.layout ? before.get(cellName({ ...b, layout: refName }))?.instructions : undefined;
    const refC = refName !== undefined && refName !== b.layout ? now.get(cellName({ ...b, layout: refName }))?.instructions : undefined;
    for (const op of OPS) {
      const base = bi[op].instructionsPerCall;
      const cur = ci?.[op].instructionsPerCall ?? null;
      const ranges = { baseline: rangeOf(bi[op]), current: rangeOf(ci?.[op]) };
      const measured = settings.measured ?? MEASURED_INSTRUCTION_SPREAD;
      const own = countTolerance([spreadOf(bi[op]), spreadOf(ci?.[op])], settings, 1, measuredSpreadOf(measured, b.layout, op));
      const judged = (b: number, c: number | null, t: CountTolerance): RowStatus => (c === null ? 'info' : judgeCount(b, c, t.fraction));
      rows.push(row(b, name, `${op}Instructions`, base, cur, judged(base, cur, own), undefined, ranges, own));
      if (refB && refName !== undefined) {
        const baseRatio = base / refB[op].instructionsPerCall;
        const curRatio = cur !== null && refC ? cur / refC[op].instructionsPerCall : null;
        // The ratio moves with both of its counts: their spreads add, per run.
        const added = (a: number | undefined, r: number | undefined): number | undefined => (a === undefined || r === undefined ? undefined : a + r);
        const across = measuredSpreadOf(measured, b.layout, op) + measuredSpreadOf(measured, refName, op);
        const ratio = countTolerance([added(spreadOf(bi[op]), spreadOf(refB[op])), added(spreadOf(ci?.[op]), spreadOf(refC?.[op]))], settings, 2, across);
        rows.push(row(b, name, `${op}InstructionRatio`, baseRatio, curRatio, judged(baseRatio, curRatio, ratio), refName, {}, ratio));
      }
    }
  }
  return rows;
}

/** `156,873 ±0.2% → 167,402 ±0.3% instructions/call` for a count row (± where the repeats are stored); '' for any other. */
export function countsText(r: Pick<CompareRow, 'figure' | 'baseline' | 'current' | 'baselineRange' | 'currentRange'>): string {
  if (r.figure.endsWith('InstructionRatio')) return r.baseline !== null && r.current !== null ? `; ${r.baseline.toFixed(4)} → ${r.current.toFixed(4)}` : '';
  if (!r.figure.endsWith('Instructions')) return '';
  const n = (v: number | null): string => (v === null ? '–' : Math.round(v).toLocaleString('en-US'));
  const b = `${n(r.baseline)}${plusMinus(r.baseline, r.baselineRange)}`;
  const c = `${n(r.current)}${plusMinus(r.current, r.currentRange)}`;
  return `; ${b} → ${c} instructions/${r.figure.startsWith('request') ? 'request' : 'call'}`;
}

/**
 * Where both runs counted a cell's instructions, the counts decide its
 * server cost: the timed server figures (µs and CPU µs per call, and their
 * ratios) of that cell are shown only. Timed, they wander with the machine
 * (a +64% CPU µs on an unchanged read was seen at load 18); counted, the
 * same change is exact to a percent.
 */
export function countsDecide(
  rows: readonly CompareRow[],
  baseline: BenchReport,
  current: BenchReport,
  cellName: (r: { layout: string; windowSeconds: number; rate: number }) => string,
): CompareRow[] {
  const counted = new Set(baseline.results.filter((r) => r.instructions).map((r) => cellName(r)));
  const both = new Set(current.results.filter((r) => r.instructions && counted.has(cellName(r))).map((r) => cellName(r)));
  if (both.size === 0) return [...rows];
  return rows.map((r) =>
    both.has(r.cell) && /Server(Usec|Cpu)/.test(r.figure) && r.status !== 'missing' && r.status !== 'info' ? { ...r, status: 'info' } : r,
  );
}
