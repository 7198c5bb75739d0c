import type { BenchReport, CellResult, ThroughputResult } from '../measure/types.js';

/** Operations whose throughput is compared. */
export const OPERATIONS = ['write', 'read', 'request'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * A compared figure. `bytesPerLight` gates; `usedMemoryDeltaPerLight` is
 * shown only (it moves with allocator state). `<op>Ratio` is the layout's
 * ops/s over the reference layout's in the same run and cell, which cancels
 * most of the machine's noise; `<op>OpsPerSec` is absolute, gated only when
 * asked for.
 */
export type Figure = 'bytesPerLight' | 'usedMemoryDeltaPerLight' | `${Operation}Ratio` | `${Operation}OpsPerSec`;

/**
 * `regressed` fails the comparison; `missing` (in the baseline, not in the
 * current run) fails too, since an unmeasured cell could hide a regression;
 * `extra` (new in the current run) and `info` are reported only.
 */
export type RowStatus = 'ok' | 'improved' | 'regressed' | 'info' | 'missing' | 'extra';

/** One figure of one cell. */
export interface CompareRow {
  /** `stoplight-v6 60 s @ 10/s`. */
  readonly cell: string;
  readonly layout: string;
  readonly windowSeconds: number;
  readonly rate: number;
  readonly figure: Figure;
  /** For ratios: the layout divided by. */
  readonly reference?: string;
  readonly baseline: number | null;
  readonly current: number | null;
  /** current / baseline − 1; null when either is absent. */
  readonly change: number | null;
  readonly status: RowStatus;
}

/** A setting that differs between the two runs and makes their figures incomparable. */
export interface Mismatch {
  /** `redis.version`, `redis.config.zset-max-listpack-entries`, `options.seed`, … */
  readonly field: string;
  readonly baseline: string;
  readonly current: string;
}

/** Tolerances as fractions (0.01 = 1%). */
export interface CompareOptions {
  /** Largest allowed growth of bytesPerLight. */
  readonly memoryTolerance: number;
  /** Largest allowed fall of a throughput ratio (and of ops/s with `absolute`). */
  readonly throughputTolerance: number;
  /** Also gate absolute ops/s. */
  readonly absolute: boolean;
}

/** The outcome of {@link compareReports}. */
export interface Verdict {
  /** No regression, no missing cell or figure, and comparable runs. */
  readonly ok: boolean;
  readonly options: CompareOptions;
  /** Differences in Redis build, encoding settings or run options; any one fails the verdict. */
  readonly mismatches: readonly Mismatch[];
  readonly rows: readonly CompareRow[];
  /** Rows that fail the verdict: regressed or missing. */
  readonly failures: readonly CompareRow[];
  /** Cells of the baseline the current run lacks. */
  readonly missingCells: readonly string[];
  /** Cells of the current run the baseline lacks. */
  readonly extraCells: readonly string[];
}

/** Defaults of `swc compare`. */
export const DEFAULT_COMPARE_OPTIONS: CompareOptions = { memoryTolerance: 0.01, throughputTolerance: 0.25, absolute: false };

/** Run options that change the bytes of a cell: two runs that differ here measure different traffic. */
const TRAFFIC_OPTIONS = ['seed', 'failureRate', 'lights', 'realtime'] as const;

/** A cell's name in rows and messages. */
export function cellName(r: { layout: string; windowSeconds: number; rate: number }): string {
  return `${r.layout} ${r.windowSeconds} s @ ${r.rate}/s`;
}

const groupKey = (r: { windowSeconds: number; rate: number }): string => `${r.windowSeconds}|${r.rate}`;

const show = (v: unknown): string => (v === undefined || v === null ? 'absent' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * A field of a parsed result, looked up among its own properties only: a
 * file may name a setting `constructor` or `__proto__`, and a plain lookup
 * would find Object.prototype's member where the other file has none.
 */
const own = (record: object | undefined, name: string): unknown =>
  record !== undefined && record !== null && Object.hasOwn(record, name) ? (record as Record<string, unknown>)[name] : undefined;

function mismatchesOf(baseline: BenchReport, current: BenchReport): Mismatch[] {
  const out: Mismatch[] = [];
  const add = (field: string, a: unknown, b: unknown): void => {
    if (show(a) !== show(b)) out.push({ field, baseline: show(a), current: show(b) });
  };
  add('redis.version', baseline.redis.version, current.redis.version);
  add('redis.memAllocator', baseline.redis.memAllocator, current.redis.memAllocator);
  const settings = new Set([...Object.keys(baseline.redis.config ?? {}), ...Object.keys(current.redis.config ?? {})]);
  for (const name of [...settings].sort()) add(`redis.config.${name}`, own(baseline.redis.config, name), own(current.redis.config, name));
  for (const name of TRAFFIC_OPTIONS) {
    // Absent and false say the same for a switch (results from before it existed).
    const normal = (v: unknown): unknown => (name === 'realtime' && v === undefined ? false : v);
    add(`options.${name}`, normal(own(baseline.options, name)), normal(own(current.options, name)));
  }
  // Traffic time is compared per cell: "one window" and an explicit --duration of one window are the same traffic.
  const durations = new Map(baseline.results.map((r) => [cellName(r), r.durationSeconds]));
  for (const r of current.results) {
    const before = durations.get(cellName(r));
    if (before !== undefined) add(`${cellName(r)}: durationSeconds`, before, r.durationSeconds);
  }
  return out;
}

function change(baseline: number, current: number): number {
  if (baseline === current) return 0;
  return baseline === 0 ? Number.POSITIVE_INFINITY : current / baseline - 1;
}

function row(cell: CellResult, figure: Figure, baseline: number | null, current: number | null, status: RowStatus, reference?: string): CompareRow {
  return {
    cell: cellName(cell),
    layout: cell.layout,
    windowSeconds: cell.windowSeconds,
    rate: cell.rate,
    figure,
    ...(reference !== undefined ? { reference } : {}),
    baseline,
    current,
    change: baseline !== null && current !== null ? change(baseline, current) : null,
    status,
  };
}

/** Status of a figure where larger is worse (memory) or smaller is worse (throughput). */
function judge(baseline: number, current: number, tolerance: number, worse: 'up' | 'down', gating: boolean): RowStatus {
  const c = change(baseline, current);
  const signed = worse === 'up' ? c : -c;
  if (!gating) return 'info';
  if (signed > tolerance) return 'regressed';
  if (signed < -tolerance) return 'improved';
  return 'ok';
}

const ratio = (t: ThroughputResult, ref: ThroughputResult, op: Operation): number => t[op].opsPerSec / ref[op].opsPerSec;

/**
 * Compares two bench results cell by cell, matching on layout, window and
 * rate. Memory: bytesPerLight gates at `memoryTolerance` growth. Throughput:
 * each layout's ops/s over the reference layout's (the first layout of the
 * cell in the baseline), per operation, gates at `throughputTolerance` fall;
 * absolute ops/s too with `absolute`. Pure: no I/O.
 */
export function compareReports(baseline: BenchReport, current: BenchReport, options: CompareOptions = DEFAULT_COMPARE_OPTIONS): Verdict {
  const byName = (report: BenchReport): Map<string, CellResult> => new Map(report.results.map((r) => [cellName(r), r]));
  const now = byName(current);
  const before = byName(baseline);
  const references = new Map<string, string>();
  for (const r of baseline.results) if (!references.has(groupKey(r))) references.set(groupKey(r), r.layout);

  const rows: CompareRow[] = [];
  const missingCells: string[] = [];
  for (const b of baseline.results) {
    const c = now.get(cellName(b));
    if (!c) {
      missingCells.push(cellName(b));
      rows.push(row(b, 'bytesPerLight', b.memory.bytesPerLight, null, 'missing'));
      continue;
    }
    rows.push(row(b, 'bytesPerLight', b.memory.bytesPerLight, c.memory.bytesPerLight, judge(b.memory.bytesPerLight, c.memory.bytesPerLight, options.memoryTolerance, 'up', true)));
    rows.push(row(b, 'usedMemoryDeltaPerLight', b.memory.usedMemoryDeltaPerLight, c.memory.usedMemoryDeltaPerLight, 'info'));
    if (!b.throughput) continue;
    const refName = references.get(groupKey(b));
    const refB = refName !== undefined ? before.get(cellName({ ...b, layout: refName }))?.throughput : undefined;
    const refC = refName !== undefined ? now.get(cellName({ ...b, layout: refName }))?.throughput : undefined;
    for (const op of OPERATIONS) {
      if (refName !== b.layout && refB) {
        const base = ratio(b.throughput, refB, op);
        if (c.throughput && refC) {
          const cur = ratio(c.throughput, refC, op);
          rows.push(row(b, `${op}Ratio`, base, cur, judge(base, cur, options.throughputTolerance, 'down', true), refName));
        } else {
          rows.push(row(b, `${op}Ratio`, base, null, 'missing', refName));
        }
      }
      const base = b.throughput[op].opsPerSec;
      const cur = c.throughput?.[op].opsPerSec;
      if (cur === undefined) rows.push(row(b, `${op}OpsPerSec`, base, null, options.absolute ? 'missing' : 'info'));
      else rows.push(row(b, `${op}OpsPerSec`, base, cur, judge(base, cur, options.throughputTolerance, 'down', options.absolute)));
    }
  }
  const extraCells: string[] = [];
  for (const c of current.results) {
    if (before.has(cellName(c))) continue;
    extraCells.push(cellName(c));
    rows.push(row(c, 'bytesPerLight', null, c.memory.bytesPerLight, 'extra'));
  }
  const mismatches = mismatchesOf(baseline, current);
  const failures = rows.filter((r) => r.status === 'regressed' || r.status === 'missing');
  return { ok: failures.length === 0 && mismatches.length === 0, options, mismatches, rows, failures, missingCells, extraCells };
}
