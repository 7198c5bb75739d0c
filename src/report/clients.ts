/**
 * `swc bench --client`: the packages' tables (memory and cost; accuracy
 * against an exact sliding window), the line comparing each with the designs
 * at the same window and rate, then the designs' own tables.
 */
import { formatWindow } from '../core/format.js';
import type { ClientResult } from '../bench/client-bench.js';
import type { ClientReport } from '../bench/client-run.js';
import type { ClientComparison } from '../bench/client-suggest.js';
import type { ClientAccuracy } from '../measure/client-accuracy.js';
import { renderBench } from './bench.js';
import type { BenchFormat } from './bench-formats.js';
import { palette } from './style.js';
import { renderCsv, renderMarkdown, type Grid } from './table.js';
import { PIPED_COLUMNS, renderFitted, wrapText } from './width.js';

const bytes = (b: number): string => (b >= 1024 ? `${(b / 1024).toFixed(1)} KB` : `${Math.round(b)} B`);
const num = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(n >= 10 ? 1 : 2));
const rateText = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The package as a table names it. */
export const clientLabel = (c: ClientResult): string => `${c.packageName} ${c.version}`;

/** Memory, commands, reply bytes and throughput per package. */
export function clientCostGrid(clients: readonly ClientResult[]): Grid {
  return {
    head: [
      'package',
      'clock',
      'B/client at rate',
      'B/client over limit',
      'keys/client',
      'commands/decision',
      'reply B/decision',
      'decisions/s (median, spread)',
      'TTL',
    ],
    numeric: [false, false, true, true, true, true, true, true, false],
    // The package on a line of its own above its row; on a narrow terminal the clock (said below the table), keys per client and reply bytes give way first.
    stack: 0,
    fit: { priority: [0, 3, 0, 0, 2, 0, 1, 0, 0] },
    rows: clients.map((c) => {
      const cmd = 'skipped' in c.commands ? null : c.commands;
      const t = c.throughput?.decisionsPerSec;
      return [
        clientLabel(c),
        // Its source is in the clock lines below the tables.
        c.clock.kind === 'injected' ? 'injected' : 'real time',
        bytes(c.memory.atRate.bytesPerClient),
        `${bytes(c.memory.atMultiple.bytesPerClient)} (${c.memory.atMultiple.multiple}×)`,
        num(c.memory.atRate.keysPerClient),
        cmd ? `${num(cmd.perDecision)} (${num(cmd.inScripts)} in Lua)` : 'not measured',
        cmd ? num(cmd.replyBytes) : 'not measured',
        t ? `${rateText(t.median)} ±${Math.round(t.spreadFraction * 100)}%${t.noisy ? ' noisy' : ''}` : 'not measured',
        c.ttl.withoutTtl > 0 ? `${c.ttl.withoutTtl} key(s) without` : c.ttl.overWindow ? 'over the window' : 'set',
      ];
    }),
  };
}

/** One phase's accuracy, a line per fact so three phases fit a terminal side by side (the caption says what each is). */
const accuracyCell = (a: ClientAccuracy): string =>
  [
    `${a.allowed}/${a.sent} allowed`,
    `exact: ${a.exactAllowed}`,
    `max ${a.maxInWindow}/window${a.overLimit > 0 ? ` +${a.overLimit}` : ''}`,
    ...(a.lockouts > 0 ? [`${a.lockouts} locked out`] : []),
  ].join('\n');

/** Each package against an exact sliding window with the same limit. */
export function clientAccuracyGrid(clients: readonly ClientResult[]): Grid {
  return {
    head: ['package', 'steady, half the limit', 'steady, twice it', 'burst at a boundary'],
    caption:
      'exact: what an exact sliding window with the same limit allows of the same traffic; max: the most allowed in any window of its length, +n over the limit; locked out: denied where the exact window allows',
    stack: 0,
    rows: clients.map((c) => [clientLabel(c), accuracyCell(c.accuracy.steady), accuracyCell(c.accuracy.overload), accuracyCell(c.accuracy.burst)]),
  };
}

/** The line comparing a package with the designs at its window and rate. */
export function comparisonLine(c: ClientResult, comparison: ClientComparison | undefined): string {
  const head = `${clientLabel(c)}: ${bytes(c.memory.atRate.bytesPerClient)} per client at ${c.rate}/s, window ${formatWindow(c.windowSeconds)}, limit ${c.limit}`;
  const grows = c.memory.growsWithTraffic
    ? `; grows with traffic (${bytes(c.memory.atMultiple.bytesPerClient)} at ${c.memory.atMultiple.multiple}× the limit)`
    : '; the same at several times the limit';
  if (!comparison || comparison.designs.length === 0) return `${head}${grows}`;
  const designs = comparison.designs
    .map((d) => `${d.layout} ${bytes(d.bytesPerLight)} (${d.ratio >= 10 ? Math.round(d.ratio) : d.ratio.toFixed(2)}×)`)
    .join(', ');
  return `${head}${grows}; designs at the same window and rate, per light (package over design): ${designs}`;
}

/** The clock line: which packages run in real time and why. */
function clockLines(clients: readonly ClientResult[]): string[] {
  return clients.map((c) =>
    c.clock.kind === 'injected'
      ? `${c.client}: injected clock (swc drives ${c.clock.source})`
      : `${c.client}: real time, ${c.clock.why} (${c.clock.source}); ${c.elapsedSeconds.toFixed(1)} s`,
  );
}

/** A grid whose cells hold several lines, for formats with one line per cell (Markdown, CSV): the lines joined by `; `. */
function oneLine(grid: Grid): Grid {
  return { ...grid, rows: grid.rows.map((row) => row.map((cell) => cell.split('\n').join('; '))) };
}

/** The whole `swc bench --client` output in a text format. */
export function renderClientBench(
  report: ClientReport,
  comparisons: readonly ClientComparison[],
  format: Exclude<BenchFormat, 'json'>,
  color: boolean,
  options: { wide?: boolean; width?: number } = {},
): string {
  const grids: [string, Grid][] = [
    ['Packages: memory per client (MEMORY USAGE … SAMPLES 0 over its keys), commands and throughput', clientCostGrid(report.clients)],
    ['Packages: accuracy against an exact sliding window with the same limit', clientAccuracyGrid(report.clients)],
  ];
  if (format === 'csv') return `${grids.map(([, g]) => renderCsv(oneLine(g))).join('\n')}\n`;
  const c = palette(color);
  const width = format === 'markdown' || options.wide ? Number.POSITIVE_INFINITY : (options.width ?? PIPED_COLUMNS);
  const prose = Math.min(width, PIPED_COLUMNS);
  const lines = [
    ...report.clients.map((client) =>
      comparisonLine(
        client,
        comparisons.find((x) => x.client === client.client),
      ),
    ),
    ...clockLines(report.clients),
  ];
  const parts = grids.map(([title, grid]) =>
    format === 'markdown'
      ? `**${title}**\n\n${renderMarkdown(oneLine(grid))}`
      : renderFitted(title, grid, width, { color, bold: (t) => c.bold(t), dim: (t) => c.dim(t) }),
  );
  parts.push(format === 'markdown' ? lines.map((l) => `- ${l}`).join('\n') : lines.map((l) => wrapText(l, prose)).join('\n'));
  if (report.results.length > 0) parts.push(renderBench(report, format, color, options));
  return `${parts.join('\n\n')}\n`;
}
