import { ttlFindingText } from './client-keys.js';
import { memoryToleranceOf, type CompareRow, type Figure, type Verdict } from '../compare/diff.js';
import {
  countsText,
  DEFAULT_INSTRUCTIONS_TOLERANCE,
  INSTRUCTIONS_SPREAD_FACTOR,
  INSTRUCTIONS_TOLERANCE_FLOOR,
  isInstructionFigure,
  plusMinus,
} from '../compare/instructions.js';
import type { CountTolerance } from '../compare/rows.js';
import { keyChangeText, memoryToleranceText, USED_MEMORY_BOUND, usedMemoryDisagrees } from '../compare/memory-detail.js';
import type { BenchReport } from '../measure/types.js';
import { palette, percent } from './style.js';
import { renderCsv, renderMarkdown, type Grid } from './table.js';
import { PIPED_COLUMNS, renderFitted, visibleLength, wrapText } from './width.js';
import type { CompareFormat } from './compare-formats.js';

export { compareFormats, type CompareFormat } from './compare-formats.js';

/** One side of a comparison as the header shows it. */
export interface CompareSide {
  /** A file name, or a description such as "this run". */
  readonly label: string;
  readonly report: BenchReport;
}

const FIGURE_LABELS: Record<Figure, string> = {
  bytesPerLight: 'bytes per light',
  usedMemoryDeltaPerLight: 'used_memory Δ per light',
  writeRatio: 'write ops/s ratio',
  readRatio: 'read ops/s ratio',
  requestRatio: 'request ops/s ratio',
  writeOpsPerSec: 'write ops/s',
  readOpsPerSec: 'read ops/s',
  requestOpsPerSec: 'request ops/s',
  writeServerUsecPerCall: 'write server µs/call (fastest round)',
  readServerUsecPerCall: 'read server µs/call (fastest round)',
  requestServerUsecPerCall: 'request server µs/request (fastest round)',
  writeServerCpuUsecPerCall: 'write server CPU µs/call (fastest round)',
  readServerCpuUsecPerCall: 'read server CPU µs/call (fastest round)',
  requestServerCpuUsecPerCall: 'request server CPU µs/request (fastest round)',
  writeServerCpuRatio: 'write server CPU µs/call ratio',
  readServerCpuRatio: 'read server CPU µs/call ratio',
  requestServerCpuRatio: 'request server CPU µs/request ratio',
  writeInstructions: 'write instructions/call',
  readInstructions: 'read instructions/call',
  requestInstructions: 'request instructions/request',
  writeInstructionRatio: 'write instructions/call ratio',
  readInstructionRatio: 'read instructions/call ratio',
  requestInstructionRatio: 'request instructions/request ratio',
  writeCommandsPerCall: 'write commands/call',
  failureCommandsPerCall: 'failure commands/call',
  readCommandsPerCall: 'read commands/call',
};

const isServer = (figure: Figure): boolean => figure.endsWith('UsecPerCall') || figure.endsWith('ServerCpuRatio');

const isCommandsFigure = (figure: Figure): boolean => figure.endsWith('CommandsPerCall');

const count = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** `+1 ZCARD per call (15 → 16 commands)`: what changed in a commands-per-call row. */
function commandsText(r: CompareRow): string {
  const changes = r.commands ?? [];
  const parts = changes.map((c) => `${c.current > c.baseline ? '+' : '−'}${count(Math.abs(c.current - c.baseline))} ${c.command.toUpperCase()}`);
  const totals = r.baseline !== null && r.current !== null ? ` (${count(r.baseline)} → ${count(r.current)} commands)` : '';
  return `${parts.length > 0 ? parts.join(', ') : 'no command changed'} per call${totals}`;
}

function figureLabel(r: CompareRow): string {
  const label = FIGURE_LABELS[r.figure];
  return r.reference !== undefined ? `${label} (÷ ${r.reference})` : label;
}

function value(r: CompareRow, side: 'baseline' | 'current'): string {
  const v = r[side];
  if (v === null) return '–';
  if (r.reference !== undefined) return v.toFixed(isInstructionFigure(r.figure) ? 4 : 3);
  if (isServer(r.figure)) return v.toFixed(1);
  // A count with its repeats: ± half their spread.
  const spread = isInstructionFigure(r.figure) ? plusMinus(v, side === 'baseline' ? r.baselineRange : r.currentRange) : '';
  return `${Math.round(v).toLocaleString('en-US')}${spread}`;
}

const pct = (fraction: number): string => `${+(fraction * 100).toFixed(fraction < 0.01 ? 2 : 1)}%`;

/**
 * An instruction row's tolerance and how it was set, without parentheses (it
 * sits inside a failure line's): `±3.2% = 2 × spread 1.6%`,
 * `±2%, the floor, over 2 × spread 0.2%`, `±2%, constant: a run has no
 * repeats`, `±5%, --instructions-tolerance`.
 */
export function countToleranceText(t: CountTolerance): string {
  const value = `±${pct(t.fraction)}`;
  const product = `${t.factor ?? INSTRUCTIONS_SPREAD_FACTOR} × spread ${pct(t.spreadFraction ?? 0)}`;
  if (t.basis === 'flag') return `${value}, --instructions-tolerance`;
  if (t.basis === 'fallback') return `${value}, constant: a run has no repeats`;
  return t.basis === 'spread' ? `${value} = ${product}` : `${value}, the floor, over ${product}`;
}

/** The instruction tolerances a verdict applied, as one range: `±2.0%` or `±2.0–3.4%`; '' without instruction rows. */
function countToleranceRange(rows: readonly CompareRow[]): string {
  const fractions = rows.flatMap((r) => (r.tolerance ? [r.tolerance.fraction] : []));
  if (fractions.length === 0) return '';
  const lo = Math.min(...fractions);
  const hi = Math.max(...fractions);
  return lo === hi ? `±${pct(lo)}` : `±${pct(lo).replace('%', '')}–${pct(hi)}`;
}

function tolerance(r: CompareRow, verdict: Verdict): string {
  if (isCommandsFigure(r.figure)) return `+${verdict.options.commandsTolerance ?? 0} commands`;
  if (isInstructionFigure(r.figure))
    return r.tolerance ? countToleranceText(r.tolerance) : percent(verdict.options.instructionsTolerance ?? DEFAULT_INSTRUCTIONS_TOLERANCE);
  if (isServer(r.figure)) return percent(verdict.options.serverTolerance ?? verdict.options.throughputTolerance);
  return r.figure === 'bytesPerLight' ? memoryTolerance(verdict) : percent(-verdict.options.throughputTolerance);
}

/** The memory tolerance as the verdict states it: `64 B` or `+1.0%`. */
function memoryTolerance(verdict: Verdict): string {
  const t = memoryToleranceOf(verdict.options);
  return 'bytes' in t ? memoryToleranceText(t) : percent(t.fraction);
}

/** Bytes grown, signed: `+96 B`. */
const grownBytes = (r: CompareRow): string => {
  const d = (r.current ?? 0) - (r.baseline ?? 0);
  return `${d >= 0 ? '+' : '−'}${Math.abs(Math.round(d)).toLocaleString('en-US')} B`;
};

/** A row's change as the verdict tells it: bytes per light in bytes and percent, the others in percent. */
function changeText(r: CompareRow): string {
  const p = percent(r.changeFraction ?? Number.NaN);
  return r.figure === 'bytesPerLight' && r.baseline !== null && r.current !== null ? `${grownBytes(r)}, ${p}` : p;
}

/** Whether the comparison covered throughput at all (a memory-only run never talks of ratios or µs). */
const hasThroughput = (verdict: Verdict): boolean =>
  verdict.rows.some(
    (r) => r.figure !== 'bytesPerLight' && r.figure !== 'usedMemoryDeltaPerLight' && !isInstructionFigure(r.figure) && !isCommandsFigure(r.figure),
  );
/** Whether both results counted instructions per call (swc bench --instructions). */
const hasInstructionRows = (verdict: Verdict): boolean => verdict.rows.some((r) => isInstructionFigure(r.figure));

/** Failure lines `-q` prints under the verdict; more are counted in one line. */
const QUIET_FAILURES = 3;

/** A verdict line's wording is chosen, from the most detailed down, as the first that fits this many characters. */
const VERDICT_CHARS = 100;

/**
 * The verdict as one line, whole at any width (never cut, never wrapped: a
 * CI log, a grep and an annotation read it as one): the most detailed
 * wording within {@link VERDICT_CHARS} characters, else the shortest one.
 */
export function verdictLine(verdict: Verdict): string {
  const cells = new Set(verdict.rows.map((r) => r.cell)).size;
  const compared = [
    'bytes per light',
    ...(verdict.rows.some((r) => isCommandsFigure(r.figure) && r.baseline !== null) ? ['commands per call'] : []),
    ...(hasInstructionRows(verdict) ? ['instructions per call'] : []),
    ...(hasThroughput(verdict) ? ['throughput and server time'] : []),
  ].join(', ');
  if (verdict.ok) {
    // The instruction tolerances applied (from the runs' spreads), where they fit.
    const range = countToleranceRange(verdict.rows.filter((r) => isInstructionFigure(r.figure) && r.status !== 'info'));
    const withRange = `ok: no regression in ${cells} cell(s) (${compared.replace('instructions per call', `instructions per call ${range}`)})`;
    return range !== '' && visibleLength(withRange) <= VERDICT_CHARS ? withRange : `ok: no regression in ${cells} cell(s) (${compared})`;
  }
  const memory = verdict.failures.filter((r) => r.figure === 'bytesPerLight' && r.status === 'regressed');
  const counts = verdict.failures.filter((r) => r.status === 'regressed' && isInstructionFigure(r.figure));
  const commands = verdict.failures.filter((r) => r.status === 'regressed' && isCommandsFigure(r.figure));
  const others = verdict.failures.filter(
    (r) => r.status === 'regressed' && r.figure !== 'bytesPerLight' && !isInstructionFigure(r.figure) && !isCommandsFigure(r.figure),
  );
  const missing = verdict.failures.filter((r) => r.status === 'missing');
  // From the most detailed wording down: the first that fits VERDICT_CHARS.
  const wordings = [2, 1, 0].map((detail) => {
    const parts: string[] = [];
    if (verdict.mismatches.length > 0) {
      parts.push(detail > 0 ? `not comparable (${verdict.mismatches.map((m) => m.field).join(', ')} differ)` : 'not comparable');
    }
    if (memory.length > 0) {
      const worst = memory.reduce((a, b) => ((b.current ?? 0) - (b.baseline ?? 0) > (a.current ?? 0) - (a.baseline ?? 0) ? b : a));
      const layouts = [...new Set(memory.map((r) => r.layout))];
      const who = detail > 1 && layouts.length === 1 ? `${layouts[0]}, ` : '';
      const limit = detail > 1 ? `; tolerance ${memoryTolerance(verdict)}` : '';
      parts.push(`bytes per light grew in ${memory.length} of ${cells} cells (${who}up to ${changeText(worst)}${limit})`);
    }
    if (counts.length > 0) {
      const layouts = [...new Set(counts.map((r) => r.layout))];
      // The tolerance that failed them: one row's with how it was set, else their range.
      const first = counts[0]?.tolerance;
      const limit = counts.length === 1 && first ? countToleranceText(first) : countToleranceRange(counts);
      const where = detail > 1 && limit !== '' ? ` (${layouts.join(', ')}; tolerance ${limit})` : detail > 0 ? ` (${layouts.join(', ')})` : '';
      parts.push(`instructions per call rose in ${counts.length} figure(s)${where}`);
    }
    if (commands.length > 0) {
      const layouts = [...new Set(commands.map((r) => r.layout))];
      parts.push(`commands per call rose in ${commands.length} figure(s)${detail > 0 ? ` (${layouts.join(', ')})` : ''}`);
    }
    if (others.length > 0) parts.push(`${others.length} throughput figure(s) regressed`);
    if (missing.length > 0) parts.push(`${missing.length} figure(s) missing`);
    const ttl = verdict.ttlFindings ?? [];
    if (ttl.length > 0) {
      const none = ttl.filter((f) => f.ttlMs === null).length;
      const policy = detail > 0 ? ` (maxmemory-policy ${ttl[0]?.policy ?? 'not known'})` : '';
      parts.push(`${ttl.length} package key(s) with ${none === ttl.length ? 'no TTL' : 'no TTL or a TTL past their window'}${policy}`);
    }
    return `FAIL: ${parts.join('; ')}`;
  });
  return wordings.find((w) => visibleLength(w) <= VERDICT_CHARS) ?? wordings.at(-1) ?? 'FAIL';
}

/** What changed per key role under a bytes-per-light row, one line each. */
export function keyLines(r: CompareRow): string[] {
  return (r.keys ?? []).map(keyChangeText);
}

/**
 * The used_memory Δ rows a table leaves out: those that moved with MEMORY
 * USAGE, within {@link USED_MEMORY_BOUND} of a light's bytes (see
 * usedMemoryDisagrees). They are noise beside the exact figure; --json and
 * --format csv keep every row.
 */
export function quietRows(verdict: Verdict): Set<CompareRow> {
  const bytes = new Map(verdict.rows.filter((r) => r.figure === 'bytesPerLight').map((r) => [r.cell, r]));
  const quiet = new Set<CompareRow>();
  for (const r of verdict.rows) {
    if (r.figure !== 'usedMemoryDeltaPerLight') continue;
    const b = bytes.get(r.cell);
    if (b && !usedMemoryDisagrees(b, r)) quiet.add(r);
  }
  return quiet;
}

/** The line under a table that left used_memory Δ rows out, or undefined when none was. */
export function quietLine(verdict: Verdict): string | undefined {
  const n = quietRows(verdict).size;
  if (n === 0) return undefined;
  return (
    `used_memory Δ per light: ${n} row(s) not shown, each within ${Math.round(USED_MEMORY_BOUND * 100)}% of the light's bytes ` +
    'of what MEMORY USAGE moved (--json and --format csv list every row)'
  );
}

/** The comparison as a grid: one row per cell and figure (with `quiet`, the default, no used_memory Δ row that agrees with MEMORY USAGE). */
export function compareGrid(verdict: Verdict, { quiet = true }: { quiet?: boolean } = {}): Grid {
  const head = ['cell', 'figure', 'baseline', 'current', 'change', 'status'];
  const hidden = quiet ? quietRows(verdict) : new Set<CompareRow>();
  const rows = verdict.rows
    .filter((r) => !hidden.has(r))
    .map((r) => [r.cell, figureLabel(r), value(r, 'baseline'), value(r, 'current'), r.changeFraction === null ? '–' : percent(r.changeFraction), r.status]);
  return {
    head,
    rows,
    numeric: [false, false, true, true, true, false],
    // The change and its status are the point; the baseline's figure goes first, long figure names to a legend.
    fit: { priority: [0, 0, 1, 0, 0, 0], legend: [false, true, false, false, false, false] },
  };
}

/** Every row with raw numbers, for spreadsheets. */
export function compareCsvGrid(verdict: Verdict): Grid {
  const head = ['cell', 'layout', 'windowSeconds', 'rate', 'figure', 'reference', 'baseline', 'current', 'change', 'status'];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
  const rows = verdict.rows.map((r) =>
    [r.cell, r.layout, r.windowSeconds, r.rate, r.figure, r.reference, r.baseline, r.current, r.changeFraction, r.status].map(cell),
  );
  return { head, rows };
}

/** One failure row as a line: the cell, the figure and the change against the tolerance. */
function failureLine(r: CompareRow, verdict: Verdict): string {
  if (r.status === 'missing') return `${r.cell}: ${figureLabel(r)} missing from the current run`;
  if (isCommandsFigure(r.figure)) return `${r.layout} ${r.figure.replace('CommandsPerCall', '')} (${r.cell}): ${commandsText(r)}`;
  return `${r.cell}: ${figureLabel(r)} ${changeText(r)} (tolerance ${tolerance(r, verdict)}${roundsNote(r)}${countsText(r)})`;
}

/** A layout whose bytes per light changed by the same bytes in every cell compared, some of them past the tolerance. */
export interface ConstantGrowth {
  readonly layout: string;
  /** The change per light, in bytes (rounded). */
  readonly bytes: number;
  /** The layout's bytes-per-light rows compared (both runs have the cell). */
  readonly cells: readonly CompareRow[];
  /** Those past the tolerance. */
  readonly failing: readonly CompareRow[];
}

/**
 * Layouts whose every compared cell changed by the same bytes per light,
 * with at least two such cells and one past the tolerance: one change (a
 * field, a longer value) that a fractional tolerance fails in the small
 * cells and passes in the large ones. Told once, as such, instead of a line
 * per failing cell and silence about the others.
 */
export function constantGrowth(verdict: Verdict): ConstantGrowth[] {
  const byLayout = new Map<string, CompareRow[]>();
  for (const r of verdict.rows) {
    if (r.figure !== 'bytesPerLight' || r.baseline === null || r.current === null) continue;
    if (r.status !== 'ok' && r.status !== 'regressed' && r.status !== 'improved') continue;
    byLayout.set(r.layout, [...(byLayout.get(r.layout) ?? []), r]);
  }
  const out: ConstantGrowth[] = [];
  for (const [layout, cells] of byLayout) {
    const grown = cells.map((r) => Math.round((r.current ?? 0) - (r.baseline ?? 0)));
    const bytes = grown[0] ?? 0;
    const failing = cells.filter((r) => r.status === 'regressed');
    if (cells.length < 2 || bytes === 0 || grown.some((g) => g !== bytes) || failing.length === 0) continue;
    out.push({ layout, bytes, cells, failing });
  }
  return out;
}

/** `stoplight-v6: +56 B per light in every cell (4); 2 of 4 cells past the tolerance +1.0% (30 s @ 1/s +1.4%, …)`. */
export function constantGrowthLine(g: ConstantGrowth, verdict: Verdict): string {
  const where = (r: CompareRow): string => `${r.windowSeconds} s @ ${r.rate}/s ${percent(r.changeFraction ?? Number.NaN)}`;
  const signed = `${g.bytes >= 0 ? '+' : '−'}${Math.abs(g.bytes).toLocaleString('en-US')} B`;
  return (
    `${g.layout}: ${signed} per light in every cell (${g.cells.length}); ` +
    `${g.failing.length} of ${g.cells.length} cells past the tolerance ${memoryTolerance(verdict)} (${g.failing.map(where).join(', ')})`
  );
}

/**
 * Each failure as a line with the key-role lines that explain it (bytes per
 * light rows only): the mismatches first, then the failure rows in order, a
 * layout's constant change per light once (see {@link constantGrowth}) unless `grouped` is false.
 */
function failureRowsWithLines(verdict: Verdict, { grouped = true }: { grouped?: boolean } = {}): { line: string; keys: string[] }[] {
  const out = verdict.mismatches.map((m) => ({
    line: `${m.field} differs (baseline ${m.baseline}, current ${m.current}): the runs' figures are not comparable`,
    keys: [] as string[],
  }));
  const byRow = new Map<CompareRow, ConstantGrowth>();
  for (const g of grouped ? constantGrowth(verdict) : []) for (const r of g.failing) byRow.set(r, g);
  const told = new Set<ConstantGrowth>();
  for (const r of verdict.failures) {
    const g = byRow.get(r);
    if (!g) {
      out.push({ line: failureLine(r, verdict), keys: keyLines(r) });
      continue;
    }
    if (told.has(g)) continue;
    told.add(g);
    out.push({ line: constantGrowthLine(g, verdict), keys: g.failing[0] ? keyLines(g.failing[0]) : [] });
  }
  for (const f of verdict.ttlFindings ?? []) out.push({ line: `${f.cell}: ${ttlFindingText(f)}`, keys: [] });
  return out;
}

/** One line per failure, naming the cell, the figure and the change against the tolerance (a constant change per light once). */
export function failureLines(verdict: Verdict): string[] {
  return failureRowsWithLines(verdict).map(({ line }) => line);
}

/** Says when an ops/s verdict rested on rounds that do not overlap. */
function roundsNote(r: CompareRow): string {
  if (!r.baselineRange || !r.currentRange || isServer(r.figure) || isInstructionFigure(r.figure)) return '';
  return '; no round of either run overlaps the other';
}

/** One line per figure that got better beyond its tolerance: worth a new baseline. */
export function improvementLines(verdict: Verdict): string[] {
  return verdict.rows
    .filter((r) => r.status === 'improved')
    .map((r) => `${r.cell}: ${figureLabel(r)} ${changeText(r)} (better than the tolerance ${tolerance(r, verdict)}${roundsNote(r)}${countsText(r)})`);
}

/** GitHub Actions workflow-command escaping: data, and property values (which also escape `:` and `,`). */
const ghData = (text: string): string => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const ghProperty = (text: string): string => ghData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * GitHub Actions annotations: `::error` per regression, missing figure or
 * incomparable setting, `::notice` per improvement and for the verdict.
 * Each names the baseline file, so the annotation lands on it.
 */
export function renderGithub(verdict: Verdict, baseline: CompareSide): string {
  const file = `file=${ghProperty(baseline.label)}`;
  // An annotation per failing figure, as a CI page lists them; the log tells a constant change once.
  const failing = failureRowsWithLines(verdict, { grouped: false });
  // The verdict first: the line a reviewer reads on the pull request, whole.
  const lines = [
    verdict.ok ? `::notice ${file},title=swc compare::${ghData(verdictLine(verdict))}` : `::error ${file},title=swc compare::${ghData(verdictLine(verdict))}`,
    ...failing.map(({ line, keys }) => `::error ${file},title=swc regression::${ghData([line, ...keys.map((k) => `  ${k}`)].join('\n'))}`),
    ...improvementLines(verdict).map((l) => `::notice ${file},title=swc improvement::${ghData(l)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** What the instruction gate applied: the flag's constant, or the rule from the spreads and the tolerances it gave. */
function countGateText(verdict: Verdict): string {
  const where = "per layout and in each layout's ratio to the cell's first layout";
  const fixed = verdict.options.instructionsTolerance;
  if (fixed !== undefined) return `instructions per call may rise by ${pct(fixed)} ${where} (--instructions-tolerance)`;
  const factor = verdict.options.instructionsSpreadFactor ?? INSTRUCTIONS_SPREAD_FACTOR;
  const floor = verdict.options.instructionsToleranceFloor ?? INSTRUCTIONS_TOLERANCE_FLOOR;
  const range = countToleranceRange(verdict.rows.filter((r) => isInstructionFigure(r.figure) && r.status !== 'info'));
  return (
    `instructions per call may rise ${where} by ${factor} × the larger spread of the two runs' repeats, at least ${pct(floor)} ` +
    `(a ratio: its two counts' spreads added, at least ${pct(2 * floor)}; ${pct(DEFAULT_INSTRUCTIONS_TOLERANCE)} where a run has no repeats)` +
    `${range !== '' ? `: ${range} here` : ''}`
  );
}

/** What the gate applied, only for the figures compared. */
function gateText(verdict: Verdict): string {
  const counted = hasInstructionRows(verdict) ? `; ${countGateText(verdict)}` : '';
  const memory = `bytes per light may grow by ${memoryTolerance(verdict).replace(/^\+/, '')} (MEMORY USAGE; used_memory Δ is shown only, and only where it moved past MEMORY USAGE by over ${Math.round(USED_MEMORY_BOUND * 100)}% of a light's bytes)${counted}`;
  if (!hasThroughput(verdict)) return `gate: ${memory}`;
  const server = percent(verdict.options.serverTolerance ?? verdict.options.throughputTolerance);
  return (
    `gate: ${memory}; each layout's ops/s ratio to the cell's first layout may fall by ${percent(verdict.options.throughputTolerance).replace('+', '')}` +
    `${verdict.options.absolute ? ', and absolute ops/s too' : ''}; server time per call may rise by ${server.replace(/^\+/, '')} ` +
    "(CPU time per call when both results have it, else µs per call of each run's fastest round); " +
    "with rounds in both runs a change counts only when no round of one run overlaps the other's"
  );
}

/**
 * The verdict as Markdown for $GITHUB_STEP_SUMMARY: the first line, what
 * failed with what grew per key role, what improved, then the full table in
 * a collapsed block.
 */
export function renderStepSummary(verdict: Verdict, baseline: CompareSide, current: CompareSide): string {
  const build = (s: CompareSide): string => `\`${s.label}\`: swc ${s.report.swcVersion}, Redis ${s.report.redis.version}, ${s.report.redis.memAllocator}`;
  const item = (text: string): string => `- ${text.replace(/\|/g, '\\|')}`;
  const failing = failureRowsWithLines(verdict).flatMap(({ line, keys }) => [item(line), ...keys.map((k) => `  ${item(k)}`)]);
  const improved = improvementLines(verdict).map(item);
  return [
    `### swc compare: ${verdictLine(verdict)}`,
    '',
    `baseline ${build(baseline)}; current ${build(current)}`,
    '',
    gateText(verdict),
    ...(failing.length > 0 ? ['', '**Regressions**', '', ...failing] : []),
    ...(improved.length > 0 ? ['', '**Improvements** (consider refreshing the baseline)', '', ...improved] : []),
    '',
    '<details><summary>Every figure</summary>',
    '',
    renderMarkdown(compareGrid(verdict, { quiet: false })),
    '',
    '</details>',
    '',
  ].join('\n');
}

/**
 * The human-readable comparison, the answer first: the verdict (one whole
 * line), each failure with what grew and each improvement, then which
 * builds, what the gate applied and the table that supports it. A terminal
 * table fits `width`; the verdict line is never cut or wrapped. `quiet`
 * stops after the answer (the verdict and its failures, `-q`).
 */
export function renderCompare(
  verdict: Verdict,
  baseline: CompareSide,
  current: CompareSide,
  format: CompareFormat,
  color: boolean,
  width: number = PIPED_COLUMNS,
  { quiet = false }: { quiet?: boolean } = {},
): string {
  if (format === 'csv') return `${renderCsv(compareCsvGrid(verdict))}\n`;
  if (format === 'github') return renderGithub(verdict, baseline);
  const markdown = format === 'markdown';
  const c = palette(color && !markdown);
  const prose = Math.min(width, PIPED_COLUMNS);
  const build = (s: CompareSide): string => `${s.label}: swc ${s.report.swcVersion}, Redis ${s.report.redis.version}, ${s.report.redis.memAllocator}`;
  const gate = gateText(verdict);
  const failing = failureRowsWithLines(verdict);
  const improvements = improvementLines(verdict);
  const first = verdictLine(verdict);
  const improved = improvements.length > 0 ? [`improved: ${improvements.length} figure(s); consider refreshing the baseline`] : [];
  const extra = verdict.extraCells.length > 0 ? [`new in the current run (no baseline): ${verdict.extraCells.join(', ')}`] : [];
  const table = (): string => {
    const grid = compareGrid(verdict);
    if (markdown) return renderMarkdown(grid);
    const paint = (status: string): string =>
      status === 'regressed' || status === 'missing' ? c.red(status) : status === 'improved' ? c.green(status) : status === 'extra' ? c.yellow(status) : status;
    const painted = { ...grid, rows: grid.rows.map((row) => [...row.slice(0, -1), paint(row.at(-1) ?? '')]) };
    return renderFitted('', painted, width, { color, bold: (t) => t }).replace(/^\n/, '');
  };
  const quietNote = quietLine(verdict);
  if (markdown) {
    // Markdown joins consecutive lines into one paragraph: every line is a list item or stands alone between blank lines.
    const list = (items: string[]): string[] => (items.length > 0 ? ['', ...items.map((l) => `- ${l}`)] : []);
    const failures = failing.flatMap(({ line, keys }) => [`- ${line}`, ...keys.map((k) => `  - ${k}`)]);
    const answer = [
      [`**${first}**`, ...(failures.length > 0 ? ['', ...failures] : [])].join('\n'),
      ...(improved.length > 0 ? [[`**${improved[0]}**`, ...list(improvements)].join('\n')] : []),
      ...extra,
    ];
    if (quiet) return `${answer.join('\n\n')}\n`;
    const blocks = [
      ...answer,
      ['- baseline ' + build(baseline), '- current ' + build(current), `- ${gate}`].join('\n'),
      table(),
      ...(quietNote ? [`_${quietNote}_`] : []),
    ];
    return `${blocks.join('\n\n')}\n`;
  }
  const wrap = (text: string): string => wrapText(text, prose, 4);
  if (quiet) {
    // A few lines: the verdict and the first failures, each on one line (a log keeps them whole).
    const shown = failing.slice(0, QUIET_FAILURES).map(({ line }) => `  ${line}`);
    const more = failing.length > QUIET_FAILURES ? [`  … ${failing.length - QUIET_FAILURES} more (without -q: every failure and the table)`] : [];
    return `${[verdict.ok ? c.green(first) : c.red(first), ...shown, ...more].join('\n')}\n`;
  }
  const answer = [
    verdict.ok ? c.green(first) : c.red(first),
    ...failing.flatMap(({ line, keys }) => [wrap(`  ${line}`), ...keys.map((k) => wrap(`    ${k}`))]),
    ...improved.map((l) => c.green(wrap(l))),
    ...improvements.map((l) => wrap(`  ${l}`)),
    ...extra.map(wrap),
  ];
  const lines = [
    ...answer,
    '',
    wrap(`baseline ${build(baseline)}`),
    wrap(`current  ${build(current)}`),
    wrap(gate),
    '',
    table(),
    ...(quietNote ? [c.dim(wrap(quietNote))] : []),
  ];
  return `${lines.join('\n')}\n`;
}
