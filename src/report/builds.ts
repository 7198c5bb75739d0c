import type { BenchReport, CellResult } from '../measure/types.js';
import type { BuildIdentity } from '../redis/build.js';
import { formatWindow, keyEncodings } from './bench.js';
import { kb, palette, times } from './style.js';
import { renderBox, renderCsv, renderMarkdown, type Grid } from './table.js';

/** One build's run, as the multi-build bench gathers it. */
export interface BuildRun {
  readonly label: string;
  readonly build: BuildIdentity;
  /** The build's own `swc bench --json` output (a bench report, a sweep, or a report with suggestions). */
  readonly report: unknown;
}

/** Whether a build's output is a plain bench report (not a sweep). */
export function isBenchReport(value: unknown): value is BenchReport {
  return typeof value === 'object' && value !== null && Array.isArray((value as { results?: unknown }).results);
}

const cellKey = (r: CellResult): string => `${r.windowSeconds}|${r.rate}|${r.layout}`;

/**
 * Memory per light with one column group per build: a row per window, rate
 * and layout; each build's KB, and after every build but the first its ratio
 * to the first (build / first: below 1× the build needs fewer bytes). The
 * published figure, where the preset has one, sits before the builds.
 */
export function buildsMemoryGrid(runs: readonly BuildRun[]): Grid {
  const reports = runs.map((r) => (isBenchReport(r.report) ? r.report : undefined));
  const byKey = reports.map((rep) => new Map((rep?.results ?? []).map((c) => [cellKey(c), c] as const)));
  // Rows in the first build's order; a cell only another build measured goes after them.
  const order: CellResult[] = [];
  const seen = new Set<string>();
  for (const rep of reports) {
    for (const c of rep?.results ?? []) {
      if (seen.has(cellKey(c))) continue;
      seen.add(cellKey(c));
      order.push(c);
    }
  }
  const hasPublished = order.some((c) => c.published);
  const head = [
    'window',
    'req/s',
    'layout',
    ...(hasPublished ? ['published KB'] : []),
    ...runs.flatMap((r, i) => [`${r.label} KB`, ...(i > 0 ? ['ratio'] : [])]),
  ];
  const rows = order.map((cell) => {
    const key = cellKey(cell);
    const first = byKey[0]?.get(key);
    const published = byKey.map((m) => m.get(key)?.published).find(Boolean);
    return [
      formatWindow(cell.windowSeconds),
      String(cell.rate),
      cell.layout,
      ...(hasPublished ? [published ? published.kb.toFixed(1) : ''] : []),
      ...byKey.flatMap((m, i) => {
        const c = m.get(key);
        return [c ? kb(c.memory.bytesPerLight) : '—', ...(i > 0 ? [c && first ? times(c.memory.bytesPerLight / first.memory.bytesPerLight) : ''] : [])];
      }),
    ];
  });
  const numeric = head.map((_, i) => i === 1 || i > 2);
  return { head, rows, numeric, caption: `ratio = a build's bytes per light / ${runs[0]?.label ?? 'the first build'}'s` };
}

/** Encodings per build where builds differ (the same encodings everywhere: no rows). */
export function buildsEncodingGrid(runs: readonly BuildRun[]): Grid {
  const reports = runs.map((r) => (isBenchReport(r.report) ? r.report : undefined));
  const byKey = reports.map((rep) => new Map((rep?.results ?? []).map((c) => [cellKey(c), c] as const)));
  const rows: string[][] = [];
  for (const cell of reports[0]?.results ?? []) {
    const encodings = byKey.map((m) => {
      const c = m.get(cellKey(cell));
      return c ? keyEncodings(c) : '—';
    });
    if (new Set(encodings).size > 1) {
      rows.push([formatWindow(cell.windowSeconds), String(cell.rate), cell.layout, ...encodings]);
    }
  }
  return { head: ['window', 'req/s', 'layout', ...runs.map((r) => r.label)], rows, numeric: [false, true, false, ...runs.map(() => false)] };
}

/** What each build is, one line each: where it came from and the settings it reported. */
export function buildLines(runs: readonly BuildRun[]): string[] {
  return runs.map((r) => {
    const b = r.build;
    const sha = b.gitSha && !/^0+$/.test(b.gitSha) ? ` git ${b.gitSha}${b.gitDirty ? '-dirty' : ''}` : '';
    const settings = Object.entries(b.defaults)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return `${r.label}: ${b.path}${sha}, ${b.arch} ${b.os}; compiled defaults: ${settings}`;
  });
}

/** The multi-build bench as a table, markdown or CSV. */
export function renderBuilds(runs: readonly BuildRun[], format: 'table' | 'markdown' | 'csv', color: boolean): string {
  const memory = buildsMemoryGrid(runs);
  if (format === 'csv') return `${renderCsv(memory)}\n`;
  const c = palette(color);
  const render = (grid: Grid): string => (format === 'markdown' ? renderMarkdown(grid) : renderBox(grid, color));
  const title = (text: string): string => (format === 'markdown' ? `**${text}**` : c.bold(text));
  const parts = [
    `${title("Memory per light per server build (KB = 1024 bytes, MEMORY USAGE … SAMPLES 0 summed over the light's keys; each build on its own private server, same settings)")}\n${memory.caption ?? ''}\n${render(memory)}`,
  ];
  const encodings = buildsEncodingGrid(runs);
  if (encodings.rows.length > 0) parts.push(`${title('Encodings that differ between builds')}\n${render(encodings)}`);
  const lines = buildLines(runs);
  parts.push(format === 'markdown' ? lines.map((l) => `- ${l}`).join('\n') : c.dim(lines.join('\n')));
  return `${parts.join('\n\n')}\n`;
}
