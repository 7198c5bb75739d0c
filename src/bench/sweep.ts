/**
 * The encoding what-if (`swc bench --sweep <setting>=<v1>,<v2>,…`): the
 * settings a sweep may change, the combinations of several flags, and what
 * a finished sweep says: bytes per light under each combination, and advice
 * where a combination shrinks a layout. Running the servers is the
 * command's (src/commands/bench-sweep.ts); rendering is src/report/sweep.ts.
 */
import { ADVICE_MIN_RATIO } from '../core/thresholds.js';
import { changedSettings, settingsLabel } from '../core/settings.js';
import { UsageError } from '../core/errors.js';
import { isExpanded } from '../measure/encoding.js';
import type { BenchReport, CellResult } from '../measure/types.js';
import { causesOf, explainKey, type LimitCause } from '../measure/encoding-advice.js';
import type { SCHEMA_VERSION } from '../core/schema-version.js';

// Shared with report/sweep.ts, which states them: kept in core/ and re-exported for existing callers.
export { ADVICE_MIN_RATIO } from '../core/thresholds.js';
export { changedSettings, settingsLabel } from '../core/settings.js';
// The flag's parser and the settings it accepts live apart, so the command's definition loads only them.
export { canonicalSetting, MAX_SWEEP_COMBINATIONS, parseSweep, SWEEP_SETTINGS, type SweepAxis } from './sweep-axes.js';
import { canonicalSetting, MAX_SWEEP_COMBINATIONS, type SweepAxis } from './sweep-axes.js';

/** One combination: a value for every swept setting, as `name=value` in flag order. */
export type Combination = readonly { readonly setting: string; readonly value: number }[];

/**
 * Every combination of the axes (the first axis varies slowest). Refuses the
 * same setting twice (also as its alias), a setting also given with
 * `--redis-server-arg`, and more than {@link MAX_SWEEP_COMBINATIONS}.
 */
export function combinationsOf(axes: readonly SweepAxis[], serverArgs: readonly string[] = []): Combination[] {
  const seen = new Map<string, string>();
  for (const axis of axes) {
    const before = seen.get(axis.canonical);
    if (before !== undefined) {
      throw new UsageError(
        `--sweep: ${axis.setting} is swept twice${before !== axis.setting ? ` (as ${before} too, its other name)` : ''}; give its values in one flag`,
      );
    }
    seen.set(axis.canonical, axis.setting);
  }
  for (const arg of serverArgs) {
    const name = arg.slice(0, arg.indexOf('=')).replace(/^--/, '').toLowerCase();
    const canonical = canonicalSetting(name);
    if (canonical !== undefined && seen.has(canonical)) {
      throw new UsageError(`--sweep/--redis-server-arg: both set ${name}; leave it to --sweep, or drop it from the sweep`);
    }
  }
  const total = axes.reduce((n, a) => n * a.values.length, 1);
  if (total > MAX_SWEEP_COMBINATIONS) {
    throw new UsageError(
      `--sweep: ${axes.map((a) => a.values.length).join(' × ')} = ${total} combinations; at most ${MAX_SWEEP_COMBINATIONS} (each runs the whole matrix on a server of its own)`,
    );
  }
  let out: { setting: string; value: number }[][] = [[]];
  for (const axis of axes) out = out.flatMap((combo) => axis.values.map((value) => [...combo, { setting: axis.setting, value }]));
  return out;
}

/** Figures within this fraction of each other count as a tie (separate servers differ by a few bytes of hashtable layout). */
const TIE = 0.005;

/**
 * The default stays "smallest with" unless a combination saves more than
 * this share of its bytes: separate private servers of one build differ by
 * up to about 1% for the same traffic (allocator and hashtable layout, most
 * of all in 5.x's skiplists), so a 0.5% saving is noise, not a setting to
 * recommend.
 */
export const SWEEP_MIN_SAVING = 0.02;

/** One run of a sweep: the settings the server ran with (as read back from it) and the ordinary bench report. */
export interface SweepRun {
  /** Each swept setting's value on that server. */
  readonly settings: Readonly<Record<string, number>>;
  /** The run on the server's defaults (with any --redis-server-arg): what the ratios divide. */
  readonly default: boolean;
  readonly report: BenchReport;
}

/** One layout at one window and rate, across the runs. */
export interface SweepSummaryRow {
  readonly layout: string;
  readonly windowSeconds: number;
  readonly rate: number;
  /** Bytes per light in each run, in `sweep` order; null where the run has no such cell. */
  readonly bytesPerLight: readonly (number | null)[];
  /** Whether some key of the layout is a hashtable or skiplist in each run (left listpack); null where unmeasured. */
  readonly expanded: readonly (boolean | null)[];
  /** Index in `sweep` of the run with the fewest bytes. */
  readonly smallest: number;
  /** The default run's bytes over the smallest run's. */
  readonly defaultOverSmallest: number | null;
}

/** A key that is expanded in the default run and compact in the smallest, and why. */
export interface AdvisedKey {
  readonly role: string;
  readonly type: string;
  /** Its encoding in the default run. */
  readonly encoding: string;
  /** The limits it is past at the default; empty when none is now. */
  readonly causes: readonly LimitCause[];
}

/** One line of advice: a combination at least {@link ADVICE_MIN_RATIO} times smaller than the default for a layout and cell. */
export interface SweepAdvice {
  readonly layout: string;
  readonly windowSeconds: number;
  readonly rate: number;
  /** Default bytes over the combination's. */
  readonly times: number;
  readonly settings: Readonly<Record<string, number>>;
  readonly keys: readonly AdvisedKey[];
  /** The whole line, as printed. */
  readonly text: string;
}

/** The whole `swc bench --sweep --json` document (`kind: "sweep"`; `swc compare` reads one of its reports, not the document). */
export interface SweepReport {
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly kind: 'sweep';
  readonly swcVersion: string;
  /** The swept settings, in flag order. */
  readonly settings: readonly string[];
  readonly sweep: readonly SweepRun[];
  readonly summary: readonly SweepSummaryRow[];
  readonly advice: readonly SweepAdvice[];
  readonly startedAt: string;
  readonly elapsedSeconds: number;
}

const cellId = (r: Pick<CellResult, 'layout' | 'windowSeconds' | 'rate'>): string => `${r.layout}\u0000${r.windowSeconds}\u0000${r.rate}`;

/** Whether some key of a cell left listpack. */
const expandedCell = (cell: CellResult): boolean => cell.memory.keys.some(isExpanded);

/** Bytes per light of every cell under every run; the default run is the one flagged `default`. */
export function summarize(runs: readonly SweepRun[]): SweepSummaryRow[] {
  const base = runs.findIndex((r) => r.default);
  const order: CellResult[] = [];
  const seen = new Set<string>();
  for (const run of [runs[base], ...runs]) {
    for (const cell of run?.report.results ?? []) {
      if (seen.has(cellId(cell))) continue;
      seen.add(cellId(cell));
      order.push(cell);
    }
  }
  return order.map((cell) => {
    const found = runs.map((run) => run.report.results.find((r) => cellId(r) === cellId(cell)));
    const bytes = found.map((f) => f?.memory.bytesPerLight ?? null);
    // The fewest bytes; among ties the default, then the run changing the fewest settings from it.
    const min = Math.min(...bytes.filter((b): b is number => b !== null));
    const changes = (i: number): number =>
      runs[i]?.default ? -1 : Object.entries(runs[i]?.settings ?? {}).filter(([k, v]) => runs[base]?.settings[k] !== v).length;
    let smallest = -1;
    bytes.forEach((b, i) => {
      if (b === null || b > min * (1 + TIE)) return;
      if (smallest < 0 || changes(i) < changes(smallest)) smallest = i;
    });
    const atDefault = base >= 0 ? bytes[base] : null;
    // A saving within the noise between servers is no reason to leave the default.
    if (atDefault != null && atDefault <= min * (1 + SWEEP_MIN_SAVING)) smallest = base;
    const least = bytes[smallest];
    return {
      layout: cell.layout,
      windowSeconds: cell.windowSeconds,
      rate: cell.rate,
      bytesPerLight: bytes,
      expanded: found.map((f) => (f ? expandedCell(f) : null)),
      smallest,
      defaultOverSmallest: atDefault != null && least != null && least > 0 ? atDefault / least : null,
    };
  });
}

/** `300 s`, `5 min`, `1 h`. */
function windowText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * A line for every layout and cell where a combination is at least
 * {@link ADVICE_MIN_RATIO} times smaller than the default, naming the keys
 * that are expanded at the default and compact there, and the limits they
 * are past at the default (measured, against the default server's config).
 */
export function adviseSweep(runs: readonly SweepRun[], summary: readonly SweepSummaryRow[]): SweepAdvice[] {
  const base = runs.find((r) => r.default);
  if (!base) return [];
  const out: SweepAdvice[] = [];
  for (const row of summary) {
    const best = runs[row.smallest];
    if (!best || best.default || row.defaultOverSmallest === null || row.defaultOverSmallest < ADVICE_MIN_RATIO) continue;
    const at = base.report.results.find((r) => cellId(r) === cellId(row));
    const there = best.report.results.find((r) => cellId(r) === cellId(row));
    if (!at || !there) continue;
    const keys: AdvisedKey[] = [];
    const clauses: string[] = [];
    const roles = new Set(at.memory.keys.filter(isExpanded).map((k) => `${k.type}\u0000${k.role}`));
    for (const role of roles) {
      const compactThere = there.memory.keys.filter((k) => `${k.type}\u0000${k.role}` === role).every((k) => !isExpanded(k));
      if (!compactThere) continue;
      const key = at.memory.keys.find((k) => isExpanded(k) && `${k.type}\u0000${k.role}` === role);
      if (!key) continue;
      keys.push({ role: key.role, type: key.type, encoding: key.encoding, causes: causesOf(key, base.report.redis.config) ?? [] });
      const clause = explainKey(key, base.report.redis.config, ' at the default');
      if (clause) clauses.push(clause);
    }
    const ratio = row.defaultOverSmallest;
    const text =
      `${row.layout} at ${windowText(row.windowSeconds)}, ${row.rate}/s: ${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}× smaller with ${settingsLabel(changedSettings(best.settings, base.settings))}` +
      (clauses.length > 0 ? ` — ${clauses.join('; ')}` : '');
    out.push({ layout: row.layout, windowSeconds: row.windowSeconds, rate: row.rate, times: ratio, settings: best.settings, keys, text });
  }
  return out;
}
