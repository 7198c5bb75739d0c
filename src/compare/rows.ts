/**
 * The rows of a comparison: which figures are compared and what one row
 * says. Apart from diff.ts so that the instruction rules (instructions.ts)
 * and the verdict share them without importing each other.
 */
import type { KeyChange } from './memory-detail.js';

/** The compared count figures: instructions per call, and their ratio to the cell's reference layout. */
export type InstructionFigure = `${Operation}Instructions` | `${Operation}InstructionRatio`;

/** Operations whose throughput is compared. */
export const OPERATIONS = ['write', 'read', 'request'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * A compared figure. `bytesPerLight` gates; `usedMemoryDeltaPerLight` is
 * shown only (it moves with allocator state). `<op>Ratio` is the layout's
 * ops/s over the reference layout's in the same run and cell, which cancels
 * most of the machine's noise; `<op>OpsPerSec` is absolute, gated only when
 * asked for. `<op>ServerUsecPerCall` is the server's own time per call
 * (INFO commandstats), from each run's fastest round: what a slower script
 * changes; it gates unless both runs have `<op>ServerCpuUsecPerCall`, the
 * server's CPU time per call (INFO cpu), which then takes over: on a busy
 * machine the server is descheduled inside scripts, which adds to their usec
 * but not to their CPU time. Even CPU time per call moves with the machine's
 * load (a busy spell makes every call cost more), so for a layout other than
 * the reference `<op>ServerCpuRatio` gates (its CPU per call over the
 * reference's, median of per-round ratios: both measured back to back, the
 * spell hits both; every round's ratio of one run beyond every round's of
 * the other) and the absolute figures are shown only; the reference layout
 * (or a cell's only layout) gates on its absolute CPU per call, when every
 * round of one run is beyond every round of the other and, with other
 * layouts in the cell, its CPU over theirs moved as far: a change that
 * slows every layout alike is not told from a busy machine.
 */
/** Commands per call of bench's write, failure and read (src/compare/commands.ts). */
export type CommandsFigure = `${'write' | 'failure' | 'read'}CommandsPerCall`;

/** One command whose count per call changed between the runs. */
export interface CommandChange {
  readonly command: string;
  readonly baseline: number;
  readonly current: number;
}

export type Figure =
  | 'bytesPerLight'
  | 'usedMemoryDeltaPerLight'
  | `${Operation}Ratio`
  | `${Operation}OpsPerSec`
  | `${Operation}ServerUsecPerCall`
  | `${Operation}ServerCpuUsecPerCall`
  | `${Operation}ServerCpuRatio`
  // Instructions per call under callgrind, and their ratio to the reference layout (src/compare/instructions.ts).
  | InstructionFigure
  // Commands per call from INFO commandstats (src/compare/commands.ts).
  | CommandsFigure;

/**
 * `regressed` fails the comparison; `missing` (in the baseline, not in the
 * current run) fails too, since an unmeasured cell could hide a regression;
 * `extra` (new in the current run) and `info` are reported only.
 */
export type RowStatus = 'ok' | 'improved' | 'regressed' | 'info' | 'missing' | 'extra';

/**
 * How an instruction row's tolerance was set: `spread` (the factor times the
 * larger of the two runs' spreads), `floor` (that product was under the
 * floor), `fallback` (a run has no repeats to take a spread from: the
 * constant) or `flag` (`--instructions-tolerance`).
 */
export interface CountTolerance {
  readonly fraction: number;
  readonly basis: 'spread' | 'floor' | 'fallback' | 'flag';
  /** The larger of the two runs' spreads ((max − min) / mean of the repeats; for a ratio, its two counts' added), when both have one. */
  readonly spreadFraction?: number;
  /** The factor and floor applied (`spread` and `floor` only). */
  readonly factor?: number;
  readonly floorFraction?: number;
}

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
  readonly changeFraction: number | null;
  readonly status: RowStatus;
  /** With rounds: the baseline's rounds, lowest and highest (the figure above is their median). */
  readonly baselineRange?: { readonly min: number; readonly max: number };
  /** With rounds: the current run's rounds, lowest and highest. */
  readonly currentRange?: { readonly min: number; readonly max: number };
  /** bytesPerLight rows whose bytes changed: what changed per key role (src/compare/memory-detail.ts). */
  readonly keys?: readonly KeyChange[];
  /** Commands-per-call rows: the commands whose count per call changed. */
  readonly commands?: readonly CommandChange[];
  /** Instruction rows: the tolerance applied and how it was set. */
  readonly tolerance?: CountTolerance;
}
