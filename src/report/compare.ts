import type { CompareRow, Figure, Verdict } from '../compare/diff.js';
import { countsText, DEFAULT_INSTRUCTIONS_TOLERANCE, isInstructionFigure } from '../compare/instructions.js';
import type { BenchReport } from '../measure/types.js';
import { palette, percent } from './style.js';
import { renderBox, renderCsv, renderMarkdown, type Grid } from './table.js';

/** Output formats of `swc compare` besides `--json`; `--format` choices come from here. */
export const compareFormats = ['table', 'markdown', 'csv', 'github'] as const;
export type CompareFormat = (typeof compareFormats)[number];

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
};

const isServer = (figure: Figure): boolean => figure.endsWith('UsecPerCall') || figure.endsWith('ServerCpuRatio');

function figureLabel(r: CompareRow): string {
  const label = FIGURE_LABELS[r.figure];
  return r.reference !== undefined ? `${label} (÷ ${r.reference})` : label;
}

function value(r: CompareRow, v: number | null): string {
  if (v === null) return '–';
  if (r.reference !== undefined) return v.toFixed(isInstructionFigure(r.figure) ? 4 : 3);
  if (isServer(r.figure)) return v.toFixed(1);
  return Math.round(v).toLocaleString('en-US');
}

function tolerance(r: CompareRow, verdict: Verdict): string {
  if (isInstructionFigure(r.figure)) return percent(verdict.options.instructionsTolerance ?? DEFAULT_INSTRUCTIONS_TOLERANCE);
  if (isServer(r.figure)) return percent(verdict.options.serverTolerance ?? verdict.options.throughputTolerance);
  return r.figure === 'bytesPerLight' ? percent(verdict.options.memoryTolerance) : percent(-verdict.options.throughputTolerance);
}

/** The comparison as a grid: one row per cell and figure. */
export function compareGrid(verdict: Verdict): Grid {
  const head = ['cell', 'figure', 'baseline', 'current', 'change', 'status'];
  const rows = verdict.rows.map((r) => [
    r.cell,
    figureLabel(r),
    value(r, r.baseline),
    value(r, r.current),
    r.change === null ? '–' : percent(r.change),
    r.status,
  ]);
  return { head, rows, numeric: [false, false, true, true, true, false] };
}

/** Every row with raw numbers, for spreadsheets. */
export function compareCsvGrid(verdict: Verdict): Grid {
  const head = ['cell', 'layout', 'windowSeconds', 'rate', 'figure', 'reference', 'baseline', 'current', 'change', 'status'];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
  const rows = verdict.rows.map((r) =>
    [r.cell, r.layout, r.windowSeconds, r.rate, r.figure, r.reference, r.baseline, r.current, r.change, r.status].map(cell),
  );
  return { head, rows };
}

/** One line per failure, naming the cell, the figure and the change against the tolerance. */
export function failureLines(verdict: Verdict): string[] {
  const lines = verdict.mismatches.map(
    (m) => `${m.field} differs (baseline ${m.baseline}, current ${m.current}): the runs' figures are not comparable`,
  );
  for (const r of verdict.failures) {
    if (r.status === 'missing') lines.push(`${r.cell}: ${figureLabel(r)} missing from the current run`);
    else lines.push(`${r.cell}: ${figureLabel(r)} ${percent(r.change ?? Number.NaN)} (tolerance ${tolerance(r, verdict)}${roundsNote(r)}${countsText(r)})`);
  }
  return lines;
}

/** Says when an ops/s verdict rested on rounds that do not overlap. */
function roundsNote(r: CompareRow): string {
  if (!r.baselineRange || !r.currentRange || isServer(r.figure)) return '';
  return '; no round of either run overlaps the other';
}

/** One line per figure that got better beyond its tolerance: worth a new baseline. */
export function improvementLines(verdict: Verdict): string[] {
  return verdict.rows
    .filter((r) => r.status === 'improved')
    .map((r) => `${r.cell}: ${figureLabel(r)} ${percent(r.change ?? Number.NaN)} (better than the tolerance ${tolerance(r, verdict)}${roundsNote(r)}${countsText(r)})`);
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
  const lines = [
    ...failureLines(verdict).map((l) => `::error ${file},title=swc regression::${ghData(l)}`),
    ...improvementLines(verdict).map((l) => `::notice ${file},title=swc improvement::${ghData(l)}`),
  ];
  const cells = new Set(verdict.rows.map((r) => r.cell)).size;
  lines.push(
    verdict.ok
      ? `::notice ${file},title=swc compare::${ghData(`ok: no regression in ${cells} cell(s)`)}`
      : `::error ${file},title=swc compare::${ghData(`FAIL: ${failureLines(verdict).length} problem(s)`)}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The human-readable comparison: which builds, the table, then the verdict with each failure and improvement named. */
export function renderCompare(verdict: Verdict, baseline: CompareSide, current: CompareSide, format: CompareFormat, color: boolean): string {
  if (format === 'csv') return `${renderCsv(compareCsvGrid(verdict))}\n`;
  if (format === 'github') return renderGithub(verdict, baseline);
  const markdown = format === 'markdown';
  const c = palette(color && !markdown);
  const build = (s: CompareSide): string =>
    `${s.label}: swc ${s.report.swcVersion}, Redis ${s.report.redis.version}, ${s.report.redis.memAllocator}`;
  const grid = compareGrid(verdict);
  const paint = (status: string): string =>
    status === 'regressed' || status === 'missing' ? c.red(status) : status === 'improved' ? c.green(status) : status === 'extra' ? c.yellow(status) : status;
  const table = markdown
    ? renderMarkdown(grid)
    : renderBox({ ...grid, rows: grid.rows.map((row) => [...row.slice(0, -1), paint(row.at(-1) ?? '')]) }, color);
  const tolerances = `memory tolerance ${percent(verdict.options.memoryTolerance)} growth of bytes per light; throughput tolerance ${percent(-verdict.options.throughputTolerance)} of each ratio${verdict.options.absolute ? ' and of absolute ops/s' : ''}; server µs/call tolerance ${percent(verdict.options.serverTolerance ?? verdict.options.throughputTolerance)} (fastest round against fastest round; with CPU µs per call in both runs, each layout's per-round CPU ratio to the reference layout instead, and the reference's own CPU µs only when no round of one run overlaps the other's); with rounds in both runs, an ops/s change counts only when no round of one run overlaps the other's${verdict.rows.some((r) => isInstructionFigure(r.figure)) ? `; instructions/call tolerance ${percent(verdict.options.instructionsTolerance ?? DEFAULT_INSTRUCTIONS_TOLERANCE)} per layout and of each layout's ratio to the reference layout` : ''}`;
  const failures = failureLines(verdict);
  const improvements = improvementLines(verdict);
  const summary = verdict.ok
    ? c.green(`ok: no regression in ${new Set(verdict.rows.map((r) => r.cell)).size} cell(s)`)
    : c.red(`FAIL: ${failures.length} problem(s)`);
  const improved = improvements.length > 0 ? [`improved: ${improvements.length} figure(s); consider refreshing the baseline`] : [];
  const extra = verdict.extraCells.length > 0 ? [`new in the current run (no baseline): ${verdict.extraCells.join(', ')}`] : [];
  if (markdown) {
    // Markdown joins consecutive lines into one paragraph: every line is a list item or stands alone between blank lines.
    const list = (items: string[]): string[] => (items.length > 0 ? ['', ...items.map((l) => `- ${l}`)] : []);
    const blocks = [
      ['- baseline ' + build(baseline), '- current ' + build(current), `- ${tolerances}`].join('\n'),
      table,
      [`**${summary}**`, ...list(failures)].join('\n'),
      ...(improved.length > 0 ? [[`**${improved[0]}**`, ...list(improvements)].join('\n')] : []),
      ...extra,
    ];
    return `${blocks.join('\n\n')}\n`;
  }
  const lines = [
    build(baseline),
    build(current),
    tolerances,
    '',
    table,
    '',
    summary,
    ...failures.map((l) => `  ${l}`),
    ...improved.map((l) => c.green(l)),
    ...improvements.map((l) => `  ${l}`),
    ...extra,
  ];
  return `${lines.join('\n')}\n`;
}
