/**
 * The comparison's default tolerances and the `--memory-tolerance` value:
 * constants and a parser only, so a command's help can state the defaults
 * without loading the comparison.
 */

/** Defaults of `swc compare` (fractions): bytes per light, the ops/s ratio, the server's time per call. */
export const DEFAULT_MEMORY_TOLERANCE = 0.01;
export const DEFAULT_THROUGHPUT_TOLERANCE = 0.25;
export const DEFAULT_SERVER_TOLERANCE = 0.5;

/**
 * Instruction tolerance from the runs' own repeats (`swc bench --instructions`
 * stores each op's repeats and their spread, (max − min) / mean): per op,
 * {@link INSTRUCTIONS_SPREAD_FACTOR} times the larger spread of the two runs,
 * at least {@link INSTRUCTIONS_TOLERANCE_FLOOR}. A layout's ratio to the
 * reference layout adds its two counts' spreads (each moves the ratio), with
 * twice the floor. Chosen from 16 runs of 5.x and 6.0 at 60 s @ 10/s on
 * 7.0.15, load 9–28 (docs/ci.md, `npm run bench:gate -- --instructions`):
 * - where the repeats spread widely (6.0's write 1.4–1.9%, its request
 *   0.7–1.5%), unchanged runs moved a count by at most 0.95× the larger
 *   spread (5.x's write, whose spread is small, by 1.34×): 1.5× covers both;
 * - where the repeats agree closely (reads, under 0.25%), runs still moved
 *   by up to 1.75% (5.x's read): hash and skiplist seeds differ per server
 *   start, which repeats on one server cannot see; hence a 2.5% floor;
 * - three extra HGETs in 6.0's write (its successes) add 3.7–7%, past
 *   1.5 × 1.9% = 2.8%.
 * A row's floor is never below the spread measured across runs of an
 * unchanged build ({@link measuredSpreadOf}; a ratio: its two layouts'
 * added), so a spread that grows past the floor raises the gate with it.
 */
export const INSTRUCTIONS_SPREAD_FACTOR = 1.5;
export const INSTRUCTIONS_TOLERANCE_FLOOR = 0.025;

/** The operations whose instructions per call are counted and compared. */
export type CountedOp = 'write' | 'read' | 'request';

/**
 * The spread of instructions per call across runs of an unchanged build
 * (src/compare/instruction-spread.ts, written by `npm run
 * bench:instruction-spread -- --write`): per layout and operation, (max −
 * min) / median; `measured` says when, how many runs, on which Redis and at
 * what load (null until first written).
 */
export interface MeasuredInstructionSpread {
  readonly measured: { readonly date: string; readonly runs: number; readonly redis: string; readonly load: string } | null;
  readonly spreads: Readonly<Record<string, Readonly<Record<CountedOp, number>>>>;
}

/**
 * A figure's spread across runs, as measured: the least tolerance its gate
 * may have (a row's floor is never below it); 0 for a layout not measured.
 */
export function measuredSpreadOf(measured: MeasuredInstructionSpread, layout: string, op: CountedOp): number {
  const spread = measured.spreads[layout]?.[op];
  return typeof spread === 'number' && Number.isFinite(spread) && spread > 0 ? spread : 0;
}

/**
 * The tolerance of instructions per call when a result has no spread (counted
 * before repeats were stored, or with one repeat): the former constant, from
 * 20 unchanged runs at load 11–23 where one false alarm came at +1.53%.
 */
export const DEFAULT_INSTRUCTIONS_TOLERANCE = 0.02;

/** How much bytes per light may grow: a fraction (0.01 = 1%) or a number of bytes. */
export type MemoryTolerance = { readonly fraction: number } | { readonly bytes: number };

/** `--memory-tolerance` values: `1`, `1%`, `0.5%` (percent) or `64B`, `64 B`, `1KB`/`1KiB` (bytes, 1 KB = 1024). */
export function parseMemoryTolerance(value: string): MemoryTolerance | string {
  const text = value.trim();
  const bytes = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB)$/i.exec(text);
  if (bytes) {
    const n = Number(bytes[1]) * ((bytes[2] ?? 'B').toUpperCase() === 'B' ? 1 : 1024);
    if (!Number.isFinite(n) || n > 1024 ** 3) return `--memory-tolerance: bytes must be from 0 B to 1 GiB, got "${value}"`;
    return { bytes: n };
  }
  const percent = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text);
  if (percent) {
    const n = Number(percent[1]);
    if (n > 1000) return `--memory-tolerance: a percentage from 0 to 1000, got "${value}"`;
    return { fraction: n / 100 };
  }
  return `--memory-tolerance: a percentage (1, 1%, 0.5%) or bytes (64B, 1KB), got "${value}"`;
}
