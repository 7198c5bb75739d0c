import type { PhaseEstimate, PlanEstimate } from '../bench/estimate.js';
import { durationText, formatWindow } from '../core/format.js';
import { SWC_VERSION } from '../core/version.js';
import { palette } from './style.js';
import { renderCsv, renderMarkdown, type Grid } from './table.js';
import { PIPED_COLUMNS, renderFitted, wrapText } from './width.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

const count = (n: number): string => n.toLocaleString('en-US');

/** One row per cell: what it writes and which phases it runs. */
export function dryRunGrid(estimate: PlanEstimate): Grid {
  const accuracy = estimate.cells.some((c) => c.accuracyEvents > 0);
  const head = ['window', 'req/s', 'layout', 'events', ...(accuracy ? ['accuracy events'] : []), 'phases'];
  const rows = estimate.cells.map((c) => [
    formatWindow(c.windowSeconds),
    String(c.rate),
    c.layout,
    count(c.events),
    ...(accuracy ? [count(c.accuracyEvents)] : []),
    c.phases.join(', '),
  ]);
  return {
    head,
    rows,
    numeric: head.map((h) => h === 'req/s' || h === 'events' || h === 'accuracy events'),
    fit: {
      priority: head.map((h) => (h === 'accuracy events' ? 1 : 0)),
      hoist: head.map((h) => h === 'window' || h === 'req/s'),
      legend: head.map((h) => h === 'phases'),
    },
  };
}

/** The estimate in words: `estimated 12 s: server start 1 s, fill 1.8 s, …`. */
export function estimateLine(estimate: PlanEstimate): string {
  const seconds = (s: number): string => (s < 0.05 ? 'under 0.1 s' : s < 10 ? `${s.toFixed(1)} s` : durationText(s));
  const phase = (p: PhaseEstimate): string => `${p.phase} ${seconds(p.seconds)}${p.beside ? ' (beside, on a second server)' : ''}`;
  return `estimated ${durationText(estimate.totalSeconds)}: ${estimate.phases.map(phase).join(', ')}`;
}

const NOTE = 'from per-phase costs measured on a 2-core machine (src/bench/estimate.ts); a busy machine takes longer, up to half as long again or more';

/**
 * `swc bench --dry-run --format csv`: one row per cell, with the field names
 * of `--dry-run --json`'s cells and plain numbers (phases joined by `+`).
 * The estimate has no row of its own: it is in the JSON and the table.
 */
export function dryRunCsvGrid(estimate: PlanEstimate): Grid {
  return {
    head: ['layout', 'windowSeconds', 'rate', 'events', 'accuracyEvents', 'phases'],
    rows: estimate.cells.map((c) => [c.layout, String(c.windowSeconds), String(c.rate), String(c.events), String(c.accuracyEvents), c.phases.join('+')]),
  };
}

/** `swc bench --dry-run` for people (the cells, then the estimate), or as CSV. */
export function renderDryRun(estimate: PlanEstimate, format: 'table' | 'markdown' | 'csv', color: boolean, width: number = PIPED_COLUMNS): string {
  if (format === 'csv') return `${renderCsv(dryRunCsvGrid(estimate))}\n`;
  const c = palette(color);
  const grid = dryRunGrid(estimate);
  const title = `Plan: ${estimate.cells.length} cell(s); --dry-run sends nothing to Redis`;
  if (format === 'markdown') return `**${title}**\n\n${renderMarkdown(grid)}\n\n${estimateLine(estimate)} (${NOTE})\n`;
  const prose = Math.min(width, PIPED_COLUMNS);
  return `${renderFitted(title, grid, width, { color, bold: (t) => c.bold(t), dim: (t) => c.dim(t) })}\n${wrapText(estimateLine(estimate), prose)}\n${c.dim(wrapText(NOTE, prose))}\n`;
}

/** `swc bench --dry-run --json`. */
export function dryRunJson(estimate: PlanEstimate): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    dryRun: true,
    cells: estimate.cells,
    phases: estimate.phases.map((p) => ({ phase: p.phase, estimatedSeconds: p.seconds, ...(p.beside ? { beside: true } : {}) })),
    servers: estimate.servers,
    estimatedSeconds: estimate.totalSeconds,
  };
}
