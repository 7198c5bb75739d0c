import type { CountedOp, OpInstructions } from '../measure/instructions.js';
import { INSTRUCTIONS_SPREAD, NOISY_SPREAD } from '../core/thresholds.js';
import type { BenchReport, CellResult } from '../measure/types.js';
import { formatWindow } from '../core/format.js';
import type { Grid } from './table.js';

const count = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (f: number): string => `${(f * 100).toFixed(f < 0.1 ? 1 : 0)}%`;

/** A cell of the "instructions/call" column: the count, with its repeats' spread when it passes 1%. */
export function instructionsCell(r: CellResult, op: CountedOp): string {
  const i = r.instructions?.[op];
  if (!i) return '–';
  return `${count(i.instructionsPerCall)}${i.noisy ? ` ±${pct(i.spreadFraction / 2)}` : ''}`;
}

/** Whether any result of the report carries counts. */
export const hasInstructions = (report: BenchReport): boolean => report.results.some((r) => r.instructions);

/** A layout's instructions per request over the reference's, for the ratio table. */
export function instructionRatioCell(other: CellResult | undefined, first: CellResult | undefined): string {
  const a = first?.instructions?.request.instructionsPerCall;
  const b = other?.instructions?.request.instructionsPerCall;
  return a && b ? `${(b / a).toFixed(3)}×` : '–';
}

/**
 * The lines under the throughput table: what would settle figures marked
 * noisy, that the counts are opt-in when they were not taken, and which
 * counts' repeats differ by more than 1%.
 */
export function throughputNotes(report: BenchReport): string[] {
  const notes: string[] = [];
  const measured = report.results.filter((r) => r.throughput);
  const noisy = measured.some((r) =>
    (['write', 'read', 'request'] as const).some((op) => {
      const rounds = r.throughput?.[op].rounds;
      return Boolean(rounds?.opsPerSec.noisy || rounds?.serverUsecPerCall?.noisy);
    }),
  );
  const rounds = measured[0]?.throughput?.rounds ?? 1;
  if (noisy) {
    const more = `--rounds ${Math.min(100, Math.max(rounds * 2, 10))} (now ${rounds})`;
    notes.push(
      hasInstructions(report)
        ? `noisy = rounds over ${Math.round(NOISY_SPREAD * 100)}% apart; counted instructions do not wander (ops/s, µs: ${more}, a quieter machine)`
        : `noisy = rounds over ${Math.round(NOISY_SPREAD * 100)}% apart; settled by --instructions (counts do not wander), ${more} or a quieter machine`,
    );
  }
  if (!hasInstructions(report) && measured.length > 0) {
    notes.push('instructions/call: not counted; opt-in with --instructions (under valgrind, it adds 30 s or more to a run)');
  }
  const spread = report.results.flatMap((r) =>
    (['write', 'read', 'request'] as const).flatMap((op) => {
      const i: OpInstructions | undefined = r.instructions?.[op];
      return i?.noisy ? [{ what: `${r.layout} ${op}`, spread: i.spreadFraction }] : [];
    }),
  );
  const worst = spread.sort((a, b) => b.spread - a.spread)[0];
  if (worst) {
    notes.push(
      `instructions: ${spread.length} count(s) with repeats over ${pct(INSTRUCTIONS_SPREAD)} apart (widest ${worst.what}, ${pct(worst.spread)}), shown ±half that;`,
      "each repeat's events have their own share of failures, which the seed repeats exactly: runs still agree",
    );
  }
  return notes;
}

/** Counts without a throughput table (`--no-throughput --instructions`): one row per cell and op. */
export function instructionsGrid(report: BenchReport): Grid | undefined {
  const counted = report.results.filter((r) => r.instructions);
  if (counted.length === 0 || report.results.some((r) => r.throughput)) return undefined;
  const head = ['window', 'req/s', 'layout', 'op', 'instructions/call', 'repeats min–max', 'spread', 'ratio'];
  const rows: string[][] = [];
  for (const r of counted) {
    const i = r.instructions;
    if (!i) continue;
    for (const op of ['write', 'read', 'request'] as const) {
      rows.push([
        formatWindow(r.windowSeconds),
        String(r.rate),
        r.layout,
        op,
        count(i[op].instructionsPerCall),
        `${count(i[op].min)}–${count(i[op].max)}`,
        `${pct(i[op].spreadFraction)}${i[op].noisy ? ' >1%' : ''}`,
        i.ratio ? `${i.ratio[op].toFixed(3)}×` : '',
      ]);
    }
  }
  const first = counted[0]?.instructions;
  return {
    head,
    rows,
    numeric: head.map((h) => h !== 'layout' && h !== 'op'),
    ...(first
      ? { caption: `${first.write.repeats.length} repeats of ${first.write.calls} ops; a request is its read and its write; ratio ÷ the cell's first layout` }
      : {}),
  };
}

/** `--profile`: each layout's top server functions in its write and read, by inclusive share. */
export function profileGrid(report: BenchReport): Grid | undefined {
  const profiled = report.results.filter((r) => r.instructions?.profile);
  if (profiled.length === 0) return undefined;
  const head = ['window', 'req/s', 'layout', 'op', 'function', 'inclusive', 'instructions/call', 'self'];
  const rows: string[][] = [];
  for (const r of profiled) {
    const p = r.instructions?.profile;
    if (!p) continue;
    for (const op of ['write', 'read'] as const) {
      for (const e of p[op]) {
        rows.push([
          formatWindow(r.windowSeconds),
          String(r.rate),
          r.layout,
          op,
          e.function,
          pct(e.inclusiveShare),
          count(e.inclusivePerCall),
          pct(e.selfShare),
        ]);
      }
    }
  }
  return {
    head,
    rows,
    numeric: head.map((h) => ['inclusive', 'instructions/call', 'self', 'req/s', 'window'].includes(h)),
    caption: "share of the op's instructions inside call(); call'2 is a command run by redis.call; unnamed static functions are left out",
  };
}
