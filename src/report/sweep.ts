import type { SweepReport, SweepRun } from '../bench/sweep.js';
import { changedSettings, settingsLabel } from '../core/settings.js';
import { ADVICE_MIN_RATIO } from '../core/thresholds.js';
import { csvGrid, formatWindow, renderBench, type BenchFormat } from './bench.js';
import { wrapLine } from './encoding-hints.js';
import { kb, palette, times } from './style.js';
import { renderCsv, renderMarkdown, type Grid } from './table.js';
import { PIPED_COLUMNS, renderFitted } from './width.js';

/** A run's name in titles and columns: its settings, and whether they are the server's defaults. */
export function runLabel(run: SweepRun): string {
  return `${settingsLabel(run.settings)}${run.default ? ' (default)' : ''}`;
}

/** The run with the fewest bytes, by the settings it changes from the default. */
function smallestText(report: SweepReport, index: number): string {
  const run = report.sweep[index];
  if (!run) return '';
  if (run.default) return 'the default';
  const base = report.sweep.find((r) => r.default);
  return settingsLabel(changedSettings(run.settings, base?.settings ?? {}));
}

/**
 * Where each layout leaves listpack: one row per layout and cell, KB per
 * light under each run (`*` where a key of the layout is a hashtable or
 * skiplist), the run with the fewest bytes and the default's bytes over it.
 */
export function sweepSummaryGrid(report: SweepReport): Grid {
  // The caption names the settings; a column only their values, `/`-separated.
  const column = (r: SweepRun): string => `${report.settings.map((name) => r.settings[name] ?? '?').join('/')}${r.default ? ' (default)' : ''} KB`;
  const head = ['window', 'req/s', 'layout', ...report.sweep.map(column), 'smallest with', 'default / smallest'];
  const rows = report.summary.map((row) => [
    formatWindow(row.windowSeconds),
    String(row.rate),
    row.layout,
    ...row.bytesPerLight.map((b, i) => (b === null ? '' : `${kb(b)}${row.expanded[i] ? ' *' : ''}`)),
    smallestText(report, row.smallest),
    row.defaultOverSmallest === null ? '–' : times(row.defaultOverSmallest),
  ]);
  const last = head.length - 1;
  return {
    head,
    rows,
    numeric: head.map((h, i) => i === 1 || (i >= 3 && i < last - 1) || i === last),
    caption: `columns: KB per light by ${report.settings.join('/')}; * = a key of the layout is a hashtable or skiplist there (it left listpack)`,
    // The swept columns are the point of the table: the verdict columns go first.
    fit: {
      priority: head.map((_, i) => (i === last ? 2 : i === last - 1 ? 1 : 0)),
      hoist: head.map((h) => h === 'window' || h === 'req/s'),
      // Long settings go to a legend before a column is dropped.
      legend: head.map((_, i) => i === last - 1),
    },
  };
}

/** One CSV: the swept settings and whether they are the defaults, then the normal columns, one row per run and cell. */
export function sweepCsvGrid(report: SweepReport): Grid {
  const grids = report.sweep.map((run) => ({ run, grid: csvGrid(run.report) }));
  const head = [...report.settings, 'default', ...(grids[0]?.grid.head ?? [])];
  const rows = grids.flatMap(({ run, grid }) =>
    grid.rows.map((row) => [...report.settings.map((s) => String(run.settings[s] ?? '')), String(run.default), ...row]),
  );
  return { head, rows };
}

/**
 * A sweep for people, the answer first: the advice, the summary across
 * runs, then each run's normal tables under a title naming its settings
 * (without the encoding hints: they suggest the sweep that ran).
 */
export function renderSweep(
  report: SweepReport,
  format: Exclude<BenchFormat, 'json'>,
  color: boolean,
  options: { wide?: boolean; width?: number } = {},
): string {
  if (format === 'csv') return `${renderCsv(sweepCsvGrid(report))}\n`;
  const c = palette(color);
  const parts: string[] = [];
  const grid = sweepSummaryGrid(report);
  const width = format === 'markdown' || options.wide ? Number.POSITIVE_INFINITY : (options.width ?? PIPED_COLUMNS);
  const prose = Math.min(width, PIPED_COLUMNS);
  const lines = report.advice.map((a) => a.text);
  const none = `No combination makes a layout at least ${ADVICE_MIN_RATIO}× smaller than the default.`;
  if (format === 'markdown') parts.push(`**Advice**\n\n${lines.length > 0 ? lines.map((l) => `- ${l}`).join('\n') : none}`);
  else parts.push(`${c.bold('Advice')}\n${lines.length > 0 ? lines.map((l) => wrapLine(l, prose)).join('\n') : none}`);
  parts.push(
    format === 'markdown'
      ? `### Where each layout leaves listpack\n\n_${grid.caption ?? ''}_\n\n${renderMarkdown(grid)}`
      : renderFitted('Where each layout leaves listpack', grid, width, { color, bold: (t) => c.bold(t), dim: (t) => c.dim(t), captionBelow: true }),
  );
  for (const [i, run] of report.sweep.entries()) {
    const title = `Sweep ${i + 1}/${report.sweep.length}: ${runLabel(run)}`;
    const body = renderBench(run.report, format, color, { ...options, hints: false }).trimEnd();
    parts.push(format === 'markdown' ? `### ${title}\n\n${body}` : `${c.bold.underline(title)}\n\n${body}`);
  }
  return `${parts.join('\n\n')}\n`;
}

/** `swc bench --sweep -q`: the advice only, one line each (or the line that says none helps). */
export function renderQuietSweep(report: SweepReport): string {
  const lines = report.advice.map((a) => a.text);
  return `${(lines.length > 0 ? lines : [`No combination makes a layout at least ${ADVICE_MIN_RATIO}× smaller than the default.`]).join('\n')}\n`;
}
