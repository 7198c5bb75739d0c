import type { BenchReport, CellResult, Spread, ThroughputResult } from '../measure/types.js';
import type { TtlFinding } from '../clients/ttl.js';
import { countsDecide, instructionRows } from './instructions.js';
import { OPERATIONS, type CompareRow, type Figure, type Operation, type RowStatus } from './rows.js';
import { commandRows } from './commands.js';
import { judgeMemory, keyChanges, type MemoryTolerance } from './memory-detail.js';
import {
  DEFAULT_MEMORY_TOLERANCE,
  DEFAULT_SERVER_TOLERANCE,
  DEFAULT_THROUGHPUT_TOLERANCE,
  INSTRUCTIONS_SPREAD_FACTOR,
  INSTRUCTIONS_TOLERANCE_FLOOR,
  type MeasuredInstructionSpread,
} from './tolerances.js';

export { OPERATIONS, type CompareRow, type Figure, type Operation, type RowStatus } from './rows.js';

/** A setting that differs between the two runs and makes their figures incomparable. */
export interface Mismatch {
  /** `redis.version`, `redis.config.zset-max-listpack-entries`, `options.seed`, … */
  readonly field: string;
  readonly baseline: string;
  readonly current: string;
}

/** Tolerances as fractions (0.01 = 1%). */
export interface CompareOptions {
  /** Largest allowed growth of bytesPerLight, as a fraction (ignored when {@link memoryToleranceBytes} is set). */
  readonly memoryTolerance: number;
  /** Largest allowed growth of bytesPerLight in bytes (`--memory-tolerance 64B`); replaces the fraction. */
  readonly memoryToleranceBytes?: number;
  /** Largest allowed fall of a throughput ratio (and of ops/s with `absolute`). */
  readonly throughputTolerance: number;
  /** Also gate absolute ops/s. */
  readonly absolute: boolean;
  /** Largest allowed rise of the server's µs per call, fastest round against fastest round (default 50%). */
  readonly serverTolerance?: number;
  /**
   * Largest allowed change of instructions per call, per layout and as a
   * ratio to the reference layout, for every row (`--instructions-tolerance`).
   * Unset (the default): each row's own, from the runs' spreads
   * (src/compare/tolerances.ts).
   */
  readonly instructionsTolerance?: number;
  /** Unset tolerance: this many times the larger spread of the two runs (default 1.5, src/compare/tolerances.ts). */
  readonly instructionsSpreadFactor?: number;
  /** Unset tolerance: at least this (default 2.5%; twice it for a ratio). */
  readonly instructionsToleranceFloor?: number;
  /** Unset tolerance: no less than the spread measured across runs of an unchanged build (default: src/compare/instruction-spread.ts). */
  readonly instructionsMeasuredSpread?: MeasuredInstructionSpread;
  /** Largest allowed rise of commands per call (default 0: exact). */
  readonly commandsTolerance?: number;
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
  /** Rows that improved beyond their tolerance (reported, never failing). */
  readonly improvements: readonly CompareRow[];
  /** Cells of the baseline the current run lacks. */
  readonly missingCells: readonly string[];
  /** Cells of the current run the baseline lacks. */
  readonly extraCells: readonly string[];
  /** Keys a package wrote in the current run with no TTL or one past its window (bench --client): any one fails the verdict. */
  readonly ttlFindings?: readonly (TtlFinding & { readonly cell: string })[];
}

/** Defaults of `swc compare`. */
export const DEFAULT_COMPARE_OPTIONS: CompareOptions = {
  memoryTolerance: DEFAULT_MEMORY_TOLERANCE,
  throughputTolerance: DEFAULT_THROUGHPUT_TOLERANCE,
  absolute: false,
  serverTolerance: DEFAULT_SERVER_TOLERANCE,
};

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

/** A figure with, when it was measured in rounds, the lowest and highest round. */
export interface Measured {
  readonly value: number;
  readonly range?: { readonly min: number; readonly max: number };
}

const plain = (value: number): Measured => ({ value });
const measured = (value: number, spread: Spread | null | undefined): Measured => (spread ? { value, range: { min: spread.min, max: spread.max } } : { value });

function row(
  cell: CellResult,
  figure: Figure,
  baseline: number | Measured | null,
  current: number | Measured | null,
  status: RowStatus,
  reference?: string,
): CompareRow {
  const b = typeof baseline === 'number' ? plain(baseline) : baseline;
  const c = typeof current === 'number' ? plain(current) : current;
  return {
    ...rowValues(cell, figure, b?.value ?? null, c?.value ?? null, status, reference),
    ...(b?.range ? { baselineRange: b.range } : {}),
    ...(c?.range ? { currentRange: c.range } : {}),
  };
}

function rowValues(cell: CellResult, figure: Figure, baseline: number | null, current: number | null, status: RowStatus, reference?: string): CompareRow {
  return {
    cell: cellName(cell),
    layout: cell.layout,
    windowSeconds: cell.windowSeconds,
    rate: cell.rate,
    figure,
    ...(reference !== undefined ? { reference } : {}),
    baseline,
    current,
    changeFraction: baseline !== null && current !== null ? change(baseline, current) : null,
    status,
  };
}

/** The memory tolerance the options ask for: bytes when given, else the fraction. */
export function memoryToleranceOf(options: CompareOptions): MemoryTolerance {
  return options.memoryToleranceBytes !== undefined ? { bytes: options.memoryToleranceBytes } : { fraction: options.memoryTolerance };
}

/** A bytesPerLight row with, when the bytes changed, what changed per key role. */
function memoryRow(r: CompareRow, baseline: CellResult, current: CellResult): CompareRow {
  if (r.baseline === r.current) return r;
  const keys = keyChanges(baseline, current);
  return keys.length > 0 ? { ...r, keys } : r;
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

/**
 * Status of a figure measured in rounds, where `worse` is the direction of
 * a regression. The medians must differ by more than `tolerance`, and, when
 * both runs have rounds, the rounds must not overlap: every round of the
 * current run worse than every round of the baseline. On a busy machine the
 * rounds of one run wander by tens of percent; a real change moves all of
 * them, noise moves some. Without rounds (older results) the tolerance alone
 * decides.
 */
export function judgeRounds(baseline: Measured, current: Measured, tolerance: number, worse: 'up' | 'down', gating: boolean): RowStatus {
  const status = judge(baseline.value, current.value, tolerance, worse, gating);
  if (status !== 'regressed' && status !== 'improved') return status;
  const b = baseline.range;
  const c = current.range;
  if (!b || !c) return status;
  const higher = c.min > b.max;
  const lower = c.max < b.min;
  const apart = (status === 'regressed') === (worse === 'up') ? higher : lower;
  return apart ? status : 'ok';
}

/**
 * Status of a server cost (larger is worse), symmetric: regressed when it
 * grew by more than `tolerance`, improved when the baseline was more than
 * `tolerance` above it (so 2× slower and back again are both seen at 50%).
 * With `apart`, and rounds on both sides, every round of one run must also
 * be beyond every round of the other.
 */
function judgeServer(baseline: Measured, current: Measured, tolerance: number, apart: boolean): RowStatus {
  const b = baseline.range;
  const c = current.range;
  const separate = (worse: boolean): boolean => !apart || !b || !c || (worse ? c.min > b.max : c.max < b.min);
  if (current.value > baseline.value * (1 + tolerance) && separate(true)) return 'regressed';
  if (baseline.value > current.value * (1 + tolerance) && separate(false)) return 'improved';
  return 'ok';
}

/** Server µs per call: the fastest round when the run had rounds (see compareReports), else the one figure. */
const fastest = (value: number, spread: Spread | null | undefined): Measured =>
  spread ? { value: spread.min, range: { min: spread.min, max: spread.max } } : { value };

/** A layout's ops/s over the reference's: the median of per-round ratios when the run kept them, else the medians' ratio. */
function ratioOf(t: ThroughputResult, ref: ThroughputResult, refName: string, op: Operation): Measured {
  const perRound = t.ratio?.reference === refName ? t.ratio[op] : undefined;
  return perRound ? measured(perRound.median, perRound) : plain(t[op].opsPerSec / ref[op].opsPerSec);
}

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
    rows.push(
      memoryRow(
        row(
          b,
          'bytesPerLight',
          b.memory.bytesPerLight,
          c.memory.bytesPerLight,
          judgeMemory(b.memory.bytesPerLight, c.memory.bytesPerLight, memoryToleranceOf(options)),
        ),
        b,
        c,
      ),
    );
    rows.push(row(b, 'usedMemoryDeltaPerLight', b.memory.usedMemoryDeltaPerLight, c.memory.usedMemoryDeltaPerLight, 'info'));
    if (!b.throughput) continue;
    const refName = references.get(groupKey(b));
    const refB = refName !== undefined ? before.get(cellName({ ...b, layout: refName }))?.throughput : undefined;
    const refC = refName !== undefined ? now.get(cellName({ ...b, layout: refName }))?.throughput : undefined;
    const serverTolerance = options.serverTolerance ?? options.throughputTolerance;
    for (const op of OPERATIONS) {
      if (refName !== undefined && refName !== b.layout && refB) {
        const base = ratioOf(b.throughput, refB, refName, op);
        if (c.throughput && refC) {
          const cur = ratioOf(c.throughput, refC, refName, op);
          rows.push(row(b, `${op}Ratio`, base, cur, judgeRounds(base, cur, options.throughputTolerance, 'down', true), refName));
        } else {
          rows.push(row(b, `${op}Ratio`, base, null, 'missing', refName));
        }
      }
      const bs = b.throughput[op];
      const cs = c.throughput?.[op];
      const base = measured(bs.opsPerSec, bs.rounds?.opsPerSec);
      if (!cs) rows.push(row(b, `${op}OpsPerSec`, base, null, options.absolute ? 'missing' : 'info'));
      else {
        const cur = measured(cs.opsPerSec, cs.rounds?.opsPerSec);
        rows.push(row(b, `${op}OpsPerSec`, base, cur, judgeRounds(base, cur, options.throughputTolerance, 'down', options.absolute)));
      }
      // The server's own time per call: what a slower script changes, whatever the client's machine does.
      // With rounds, the fastest round of each run: a busy machine only ever adds time to a
      // round (the server is preempted inside a script), so the least disturbed round is the
      // steadiest figure of the script's own cost.
      // CPU time per call gates when both runs measured it (see Figure); usec per call is then shown only.
      const byCpu = typeof bs.serverCpuUsecPerCall === 'number' && typeof cs?.serverCpuUsecPerCall === 'number';
      if (bs.serverUsecPerCall !== null && bs.serverUsecPerCall !== undefined) {
        const baseUsec = fastest(bs.serverUsecPerCall, bs.rounds?.serverUsecPerCall);
        if (!cs) rows.push(row(b, `${op}ServerUsecPerCall`, baseUsec, null, 'missing'));
        else if (cs.serverUsecPerCall === null || cs.serverUsecPerCall === undefined) {
          // INFO commandstats not readable in the current run: nothing to judge, said plainly.
          rows.push(row(b, `${op}ServerUsecPerCall`, baseUsec, null, 'info'));
        } else {
          const curUsec = fastest(cs.serverUsecPerCall, cs.rounds?.serverUsecPerCall);
          rows.push(row(b, `${op}ServerUsecPerCall`, baseUsec, curUsec, judge(baseUsec.value, curUsec.value, serverTolerance, 'up', !byCpu)));
        }
      }
      if (byCpu && cs) {
        const baseRatio = b.throughput.ratio?.serverCpu?.[op];
        const curRatio = c.throughput?.ratio?.serverCpu?.[op];
        const relative = baseRatio && curRatio && b.throughput.ratio?.reference === c.throughput?.ratio?.reference;
        const baseCpu = fastest(bs.serverCpuUsecPerCall as number, bs.rounds?.serverCpuUsecPerCall);
        const curCpu = fastest(cs.serverCpuUsecPerCall as number, cs.rounds?.serverCpuUsecPerCall);
        // The reference layout: its own figure, and only when the others did not move with it
        // (its CPU over theirs, per round, moved as far): a busy spell moves all layouts alike.
        let status: RowStatus = 'info';
        if (!relative) {
          status = judgeServer(baseCpu, curCpu, serverTolerance, true);
          const others = current.results.filter((o) => groupKey(o) === groupKey(b) && o.layout !== b.layout && o.throughput?.ratio?.reference === b.layout);
          for (const o of others) {
            const ob = before.get(cellName(o))?.throughput?.ratio?.serverCpu?.[op];
            const oc = o.throughput?.ratio?.serverCpu?.[op];
            if (!ob || !oc || status === 'ok') continue;
            // Theirs over the reference's, inverted: the reference's over theirs.
            const own = judgeServer(plain(1 / ob.median), plain(1 / oc.median), serverTolerance, false);
            if (own !== status) status = 'ok';
          }
        }
        rows.push(row(b, `${op}ServerCpuUsecPerCall`, baseCpu, curCpu, status));
        if (relative) {
          const base = measured(baseRatio.median, baseRatio);
          const cur = measured(curRatio.median, curRatio);
          rows.push(row(b, `${op}ServerCpuRatio`, base, cur, judgeServer(base, cur, serverTolerance, true), b.throughput.ratio?.reference));
        }
      }
    }
  }
  rows.push(...commandRows(baseline, current, options.commandsTolerance ?? 0, cellName));
  rows.push(
    ...instructionRows(
      baseline,
      current,
      {
        ...(options.instructionsTolerance !== undefined ? { fixed: options.instructionsTolerance } : {}),
        ...(options.instructionsSpreadFactor !== undefined ? { factor: options.instructionsSpreadFactor } : {}),
        ...(options.instructionsToleranceFloor !== undefined ? { floor: options.instructionsToleranceFloor } : {}),
        ...(options.instructionsMeasuredSpread !== undefined ? { measured: options.instructionsMeasuredSpread } : {}),
      },
      cellName,
    ),
  );
  const extraCells: string[] = [];
  for (const c of current.results) {
    if (before.has(cellName(c))) continue;
    extraCells.push(cellName(c));
    rows.push(row(c, 'bytesPerLight', null, c.memory.bytesPerLight, 'extra'));
  }
  const mismatches = mismatchesOf(baseline, current);
  rows.splice(0, rows.length, ...countsDecide(rows, baseline, current, cellName));
  const failures = rows.filter((r) => r.status === 'regressed' || r.status === 'missing');
  const improvements = rows.filter((r) => r.status === 'improved');
  // Without --instructions-tolerance the verdict states the factor and floor its instruction rows were judged by.
  const stated: CompareOptions =
    options.instructionsTolerance === undefined
      ? {
          ...options,
          instructionsSpreadFactor: options.instructionsSpreadFactor ?? INSTRUCTIONS_SPREAD_FACTOR,
          instructionsToleranceFloor: options.instructionsToleranceFloor ?? INSTRUCTIONS_TOLERANCE_FLOOR,
        }
      : options;
  // A package key with no TTL (or past its window) is a finding of the current run, whatever the baseline held.
  const ttlFindings = [
    ...current.results.flatMap((c) => (c.ttlFindings ?? []).map((f) => ({ ...f, cell: cellName(c) }))),
    // bench --client: each package's own findings, named by the package.
    ...clientsOf(current).flatMap((c) => (c.ttlFindings ?? []).map((f) => ({ ...f, cell: `--client ${c.client}` }))),
  ];
  return {
    ok: failures.length === 0 && mismatches.length === 0 && ttlFindings.length === 0,
    options: stated,
    mismatches,
    rows,
    failures,
    improvements,
    missingCells,
    extraCells,
    ...(ttlFindings.length > 0 ? { ttlFindings } : {}),
  };
}

/** The package results of a bench --client report (none in another report). */
function clientsOf(report: BenchReport): readonly { readonly client: string; readonly ttlFindings?: readonly TtlFinding[] }[] {
  const clients = (report as { readonly clients?: unknown }).clients;
  return Array.isArray(clients) ? (clients as { client: string; ttlFindings?: TtlFinding[] }[]) : [];
}
