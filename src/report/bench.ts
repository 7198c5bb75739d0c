import { NOISY_SPREAD } from '../core/thresholds.js';
import type { AppView, BenchReport, CellResult, LatencyStats, Spread } from '../measure/types.js';
import { hasInstructions, instructionRatioCell, instructionsCell, instructionsGrid, profileGrid, throughputNotes } from './instructions.js';
import { palette, kb, percent, times } from './style.js';
import { renderBox, renderCsv, renderMarkdown, type Grid } from './table.js';
import { hintLines, wrapLine } from './encoding-hints.js';
import { clusterFooter, findingsGrid, labelsLine, shardsGrid } from './cluster.js';

/** Output formats of `swc bench`; `--format` choices come from here. */
export const benchFormats = ['table', 'json', 'markdown', 'csv'] as const;
export type BenchFormat = (typeof benchFormats)[number];

/** `60` → `1 min`, `90` → `90 s`, `3600` → `1 h`. */
export function formatWindow(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The cells of a report grouped by window and rate, layouts side by side, in run order. */
function groups(report: BenchReport): { windowSeconds: number; rate: number; byLayout: Map<string, CellResult> }[] {
  const out: { windowSeconds: number; rate: number; byLayout: Map<string, CellResult> }[] = [];
  for (const result of report.results) {
    let group = out.find((g) => g.windowSeconds === result.windowSeconds && g.rate === result.rate);
    if (!group) {
      group = { windowSeconds: result.windowSeconds, rate: result.rate, byLayout: new Map() };
      out.push(group);
    }
    group.byLayout.set(result.layout, result);
  }
  return out;
}

/** The layouts of a report in the order the plan listed them (results run in that order). */
function layoutsOf(report: BenchReport): string[] {
  return [...new Set(report.results.map((r) => r.layout))];
}

/**
 * The pairs a report divides: every layout against the first one listed.
 * Two layouts give one pair, named in full; there is no guessing which is "old".
 */
function pairsOf(report: BenchReport): { first: string; other: string }[] {
  const [first, ...others] = layoutsOf(report);
  return first === undefined ? [] : others.map((other) => ({ first, other }));
}

/**
 * Memory per light: one row per window and rate, one KB column per layout,
 * then one ratio column per layout after the first: `first / other`, the
 * bytes of the first layout listed over the other's.
 */
export function memoryGrid(report: BenchReport, { wide = true }: { wide?: boolean } = {}): Grid {
  const layouts = layoutsOf(report);
  // Published and diff columns only beside the layouts the preset has figures for.
  const published = new Set(report.results.filter((r) => r.published).map((r) => r.layout));
  const hasPublished = (layout: string): boolean => published.has(layout);
  const hasDuration = report.results.some((r) => r.durationSeconds !== r.windowSeconds);
  const pairs = pairsOf(report);
  // Narrow: one pair is named in the caption, and encodings get a table of their own.
  const onePair = !wide && pairs.length === 1 ? pairs[0] : undefined;
  const ratio = onePair ? ['ratio'] : pairs.map(({ first, other }) => `${first} / ${other}`);
  const head = [
    'window',
    'req/s',
    ...(hasDuration ? ['traffic'] : []),
    'events in window',
    ...layouts.flatMap((l) => [`${l} KB`, ...(hasPublished(l) ? [`published`, `diff`] : [])]),
    ...ratio,
    ...(wide ? ['encodings'] : []),
  ];
  const rows = groups(report).map((g) => {
    const cells = layouts.map((l) => g.byLayout.get(l));
    const any = cells.find(Boolean);
    return [
      formatWindow(g.windowSeconds),
      String(g.rate),
      ...(hasDuration ? [any ? formatWindow(any.durationSeconds) : ''] : []),
      count(any?.eventsInWindow ?? g.rate * g.windowSeconds),
      ...cells.flatMap((c, i) => [
        c ? kb(c.memory.bytesPerLight) : '',
        ...(hasPublished(layouts[i] as string) ? [c?.published ? c.published.kb.toFixed(1) : '', c?.published ? percent(c.published.diff) : ''] : []),
      ]),
      ...pairs.map(({ first, other }) => {
        const a = g.byLayout.get(first);
        const b = g.byLayout.get(other);
        return a && b ? times(a.memory.bytesPerLight / b.memory.bytesPerLight) : '';
      }),
      ...(wide
        ? [
            cells
              .filter((c): c is CellResult => Boolean(c))
              .map((c) => `${c.layout}: ${keyEncodings(c)}`)
              .join(' | '),
          ]
        : []),
    ];
  });
  const numeric = head.map((h) => h !== 'window' && h !== 'encodings' && h !== 'traffic');
  return { head, rows, numeric, ...(onePair ? { caption: `ratio = ${onePair.first} / ${onePair.other}` } : {}) };
}

/** Each role of a light's keys with its encoding(s): `metadata listpack, success events skiplist`. */
export function keyEncodings(cell: CellResult): string {
  const byRole = new Map<string, Set<string>>();
  for (const key of cell.memory.keys) byRole.set(key.role, (byRole.get(key.role) ?? new Set()).add(key.encoding));
  return [...byRole].map(([role, encodings]) => `${role} ${[...encodings].join('/')}`).join(', ');
}

/** Which key of each layout has which encoding, one row per cell and layout. */
export function encodingsGrid(report: BenchReport): Grid {
  const head = ['window', 'req/s', 'layout', 'encoding of each key'];
  const rows = report.results.map((r) => [formatWindow(r.windowSeconds), String(r.rate), r.layout, keyEncodings(r)]);
  return { head, rows, numeric: [false, true, false, false] };
}

const ms = (n: number): string => (n >= 10 ? n.toFixed(1) : n.toFixed(3));

/** `61,200–70,100`, the rounds' min and max; empty for a single round. */
const range = (spread: Spread | undefined, show: (n: number) => string): string =>
  spread && spread.min !== spread.max ? `${show(spread.min)}–${show(spread.max)}` : '';

/** The spread as a percentage, `noisy` past the threshold; empty without rounds. */
const spreadText = (spread: Spread | null | undefined): string =>
  spread ? `${Math.round(spread.spread * 100)}%${spread.noisy ? ' noisy' : ''}` : '';

/**
 * The engine's capacity: one row per cell and operation, with many calls in
 * flight (connections × pipeline). Figures are medians of the rounds; the
 * range and spread of ops/s say how far one round may be from another.
 */
export function throughputGrid(report: BenchReport, options: { wide?: boolean } = {}): Grid | undefined {
  const measured = report.results.filter((r) => r.throughput);
  if (measured.length === 0) return undefined;
  const rounded = measured.some((r) => (r.throughput?.rounds ?? 1) > 1);
  // The range takes the most room: a terminal table of 120 columns keeps the spread, --wide adds the range.
  const ranged = rounded && options.wide !== false;
  const head = [
    'window',
    'req/s',
    'layout',
    'op',
    'ops/s',
    ...(ranged ? ['ops/s min–max'] : []),
    ...(rounded ? ['spread'] : []),
    'p50 ms',
    'p99 ms',
    // With counts, p99.9 goes to --wide: the table keeps 120 columns.
    ...(hasInstructions(report) && options.wide === false ? [] : ['p99.9 ms']),
    'server µs/call',
    ...(rounded ? ['µs spread'] : []),
    ...(hasInstructions(report) ? ['instructions per call'] : []),
  ];
  const rows: string[][] = [];
  for (const r of measured) {
    const t = r.throughput;
    if (!t) continue;
    for (const [op, stats] of [['write', t.write], ['read', t.read], ['request', t.request]] as [string, LatencyStats][]) {
      rows.push([
        formatWindow(r.windowSeconds),
        String(r.rate),
        r.layout,
        op,
        count(stats.opsPerSec),
        ...(ranged ? [range(stats.rounds?.opsPerSec, count)] : []),
        ...(rounded ? [spreadText(stats.rounds?.opsPerSec)] : []),
        ms(stats.p50Ms),
        ms(stats.p99Ms),
        ...(hasInstructions(report) && options.wide === false ? [] : [ms(stats.p999Ms)]),
        stats.serverUsecPerCall === null ? '–' : stats.serverUsecPerCall.toFixed(1),
        ...(rounded ? [spreadText(stats.rounds?.serverUsecPerCall)] : []),
        ...(hasInstructions(report) ? [instructionsCell(r, op as 'write' | 'read' | 'request')] : []),
      ]);
    }
  }
  const text = new Set(['window', 'layout', 'op', 'ops/s min–max', 'spread', 'µs spread']);
  const t = measured[0]?.throughput;
  const notes = throughputNotes(report);
  return {
    head,
    rows,
    ...(notes.length > 0 ? { notes } : {}),
    numeric: head.map((h) => !text.has(h) || h === 'ops/s min–max'),
    ...(t && rounded
      ? {
          caption: `medians of ${t.rounds} rounds per phase, layouts alternating; spread = (max − min) / median, noisy above ${Math.round(NOISY_SPREAD * 100)}%`,
        }
      : {}),
  };
}

/**
 * The application's view: what one thread sees sending one request at a
 * time (a read, then a write) through ioredis, timed with tinybench.
 */
export function appViewGrid(report: BenchReport): Grid | undefined {
  const measured = report.results.filter((r) => r.throughput?.app);
  if (measured.length === 0) return undefined;
  const head = ['window', 'req/s', 'layout', 'requests/s', 'mean ms', 'p50 ms', 'p99 ms', '± mean', 'samples'];
  const rows = measured.map((r) => {
    const a = r.throughput?.app as AppView;
    return [
      formatWindow(r.windowSeconds),
      String(r.rate),
      r.layout,
      count(a.opsPerSec),
      ms(a.meanMs),
      ms(a.p50Ms),
      ms(a.p99Ms),
      `${a.rmePercent.toFixed(1)}%${a.noisy ? ' noisy' : ''}`,
      count(a.samples),
    ];
  });
  return { head, rows, numeric: head.map((h) => h !== 'window' && h !== 'layout') };
}

/**
 * Accuracy (by default; `--no-accuracy` skips it): one row per cell, the
 * failure ratio's error against the exact window, the share of reads
 * deciding differently about the threshold, and the server µs per request
 * the accuracy phase probed.
 */
export function accuracyGrid(report: BenchReport): Grid | undefined {
  const measured = report.results.filter((r) => r.accuracy);
  if (measured.length === 0) return undefined;
  const threshold = measured[0]?.accuracy?.threshold ?? 0.5;
  const probed = measured.some((r) => r.serverCost);
  const head = ['window', 'req/s', 'layout', 'reads', 'max error', 'mean error', `decides differently at ${threshold}`, ...(probed ? ['server µs/request'] : [])];
  const rows = measured.map((r) => {
    const a = r.accuracy as NonNullable<CellResult['accuracy']>;
    return [
      formatWindow(r.windowSeconds),
      String(r.rate),
      r.layout,
      count(a.reads),
      a.maxAbsError.toFixed(4),
      a.meanAbsError.toFixed(4),
      `${(a.decisionMismatchShare * 100).toFixed(2)}%`,
      ...(probed ? [r.serverCost ? r.serverCost.requestUsecPerCall.toFixed(1) : '–'] : []),
    ];
  });
  return {
    head,
    rows,
    numeric: head.map((_, i) => i === 1 || i >= 3),
    // At most 120 columns with the heading: a terminal table stays within that.
    caption:
      'failure ratio vs the exact window, 1.25 windows of traffic failing from 0.05 to 0.2' +
      (probed ? '; server µs: write + read, probed' : ''),
  };
}

/** Real traffic (`--realtime`): one row per cell, pacing and write latency. */
export function realtimeGrid(report: BenchReport): Grid | undefined {
  const measured = report.results.filter((r) => r.realtime);
  if (measured.length === 0) return undefined;
  const head = ['window', 'req/s', 'layout', 'achieved/s', 'shortfall', 'seconds', 'events', 'late p99 ms', 'late max ms', 'write p50 ms', 'write p99 ms', 'write p99.9 ms'];
  const rows: string[][] = [];
  for (const r of measured) {
    const t = r.realtime;
    if (!t) continue;
    rows.push([
      formatWindow(r.windowSeconds),
      String(r.rate),
      r.layout,
      t.achievedRate.toFixed(1),
      `${(t.shortfall * 100).toFixed(1)}%`,
      t.seconds.toFixed(2),
      count(t.eventsTotal),
      ms(t.lateP99Ms),
      ms(t.lateMaxMs),
      ms(t.write.p50Ms),
      ms(t.write.p99Ms),
      ms(t.write.p999Ms),
    ]);
  }
  return { head, rows, numeric: head.map((_, i) => i === 1 || i >= 3), caption: 'achieved/s is per light; events are all lights' };
}

/**
 * Throughput ratios: each layout after the first over the first one listed,
 * per cell (the post claims 1.0). With more than two layouts a column names
 * each pair; with two, the caption does.
 */
export function throughputRatioGrid(report: BenchReport, options: { wide?: boolean } = {}): Grid | undefined {
  const pairs = pairsOf(report);
  const named = pairs.length > 1;
  const hasApp = report.results.some((r) => r.throughput?.app);
  const rows: string[][] = [];
  for (const g of groups(report)) {
    for (const { first, other } of pairs) {
      const a = g.byLayout.get(first)?.throughput;
      const b = g.byLayout.get(other)?.throughput;
      if (!a || !b) continue;
      // Rounds measured back to back: the median of per-round ratios, with their range.
      const per = b.ratio?.reference === first ? b.ratio : undefined;
      const shown = (spread: Spread | null | undefined, whole: number | null): string =>
        spread
          ? `${times(spread.median)}${options.wide !== false ? ` (${times(spread.min)}–${times(spread.max)})` : ''}${spread.noisy ? ' noisy' : ''}`
          : whole === null || !Number.isFinite(whole)
            ? '–'
            : times(whole);
      rows.push([
        formatWindow(g.windowSeconds),
        String(g.rate),
        ...(named ? [`${other} / ${first}`] : []),
        shown(per?.write, b.write.opsPerSec / a.write.opsPerSec),
        shown(per?.read, b.read.opsPerSec / a.read.opsPerSec),
        shown(per?.request, b.request.opsPerSec / a.request.opsPerSec),
        shown(
          per?.serverUsecPerRequest,
          a.request.serverUsecPerCall && b.request.serverUsecPerCall ? b.request.serverUsecPerCall / a.request.serverUsecPerCall : null,
        ),
        ...(hasApp ? [a.app && b.app ? times(a.app.meanMs / b.app.meanMs) : '–'] : []),
        ...(hasInstructions(report) ? [instructionRatioCell(g.byLayout.get(other), g.byLayout.get(first))] : []),
      ]);
    }
  }
  if (rows.length === 0) return undefined;
  const head = [
    'window',
    'req/s',
    ...(named ? ['layouts'] : []),
    'write ops/s',
    'read ops/s',
    'request ops/s',
    'server µs/request',
    ...(hasApp ? ['app requests/s'] : []),
    ...(hasInstructions(report) ? ['instructions/request'] : []),
  ];
  const only = pairs[0];
  return {
    head,
    rows,
    numeric: head.map((h, i) => i > 0 && h !== 'layouts'),
    ...(!named && only ? { caption: `${only.other} / ${only.first}` } : {}),
  };
}

/** One flat row per result, for spreadsheets. */
export function csvGrid(report: BenchReport): Grid {
  const stat = (s: LatencyStats | undefined): string[] =>
    s ? [s.opsPerSec, s.p50Ms, s.p99Ms, s.p999Ms, s.serverUsecPerCall ?? ''].map(String) : ['', '', '', '', ''];
  const head = [
    'layout', 'windowSeconds', 'rate', 'durationSeconds', 'eventsInWindow', 'events', 'bytesPerLight',
    'usedMemoryDeltaPerLight', 'encodings', 'publishedKb', 'publishedDiff',
    ...['write', 'read', 'request'].flatMap((op) => ['OpsPerSec', 'P50Ms', 'P99Ms', 'P999Ms', 'ServerUsecPerCall'].map((f) => `${op}${f}`)),
    ...['RequestedRate', 'AchievedRate', 'Seconds', 'Events', 'LateP99Ms', 'LateMaxMs', 'WriteP50Ms', 'WriteP99Ms', 'WriteP999Ms'].map((f) => `realtime${f}`),
    ...['Reads', 'MaxAbsError', 'MeanAbsError', 'Threshold', 'DecisionMismatchShare'].map((f) => `accuracy${f}`),
    'serverWriteUsecPerCall',
    'serverReadUsecPerCall',
  ];
  const accuracy = (a: CellResult['accuracy']): string[] =>
    a ? [a.reads, a.maxAbsError, a.meanAbsError, a.threshold, a.decisionMismatchShare].map(String) : Array<string>(5).fill('');
  const realtime = (t: CellResult['realtime']): string[] =>
    t
      ? [t.requestedRate, t.achievedRate, t.seconds, t.events, t.lateP99Ms, t.lateMaxMs, t.write.p50Ms, t.write.p99Ms, t.write.p999Ms].map(String)
      : Array<string>(9).fill('');
  const rows = report.results.map((r) => [
    r.layout,
    String(r.windowSeconds),
    String(r.rate),
    String(r.durationSeconds),
    String(r.eventsInWindow),
    String(r.events),
    String(r.memory.bytesPerLight),
    String(r.memory.usedMemoryDeltaPerLight),
    r.memory.keys.map((k) => `${k.type}:${k.encoding}`).join('+'),
    r.published ? String(r.published.kb) : '',
    r.published ? r.published.diff.toFixed(4) : '',
    ...stat(r.throughput?.write),
    ...stat(r.throughput?.read),
    ...stat(r.throughput?.request),
    ...realtime(r.realtime),
    ...accuracy(r.accuracy),
    r.serverCost ? String(r.serverCost.writeUsecPerCall) : '',
    r.serverCost ? String(r.serverCost.readUsecPerCall) : '',
  ]);
  return { head, rows };
}

/** Parts joined with `; `, starting a new line before a part that would pass `width`. */
function wrapParts(parts: readonly string[], width: number): string {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 2 + part.length <= width) lines[lines.length - 1] = `${last}; ${part}`;
    else lines.push(part);
  }
  return lines.join(';\n');
}

/** The human-readable report: memory table, throughput tables, and the server it ran on. */
export function renderBench(report: BenchReport, format: Exclude<BenchFormat, 'json'>, color: boolean, options: { wide?: boolean } = {}): string {
  if (format === 'csv') return `${renderCsv(csvGrid(report))}\n`;
  const c = palette(color);
  // A terminal table fits 120 columns unless --wide; markdown is scrolled, so it keeps every column.
  const wide = format === 'markdown' || options.wide === true;
  const first = report.results.find((r) => r.throughput)?.throughput;
  const capacity = first
    ? report.cluster
      ? `${first.connections} connection(s) × pipeline ${first.pipeline} in flight on each of ${report.cluster.shards} primaries at once`
      : `${first.connections} connection(s) × pipeline ${first.pipeline} in flight`
    : '';
  const grids: [string, Grid | undefined][] = [
    [`Memory per light (KB = 1024 bytes, MEMORY USAGE … SAMPLES 0 summed over the light's keys)${labelsLine(report) ? `\n${labelsLine(report)}` : ''}`, memoryGrid(report, { wide })],
    ['Encodings', wide ? undefined : encodingsGrid(report)],
    ['Per primary (Redis Cluster)', shardsGrid(report)],
    ['Cluster-safety findings (CROSSSLOT)', findingsGrid(report)],
    [`Engine capacity (steady state, injected clock, ${capacity})`, throughputGrid(report, { wide })],
    [`Application's view (one request at a time through ioredis, a read then a write; tinybench${report.cluster ? '; lights of the first primary' : ''})`, appViewGrid(report)],
    [wide ? 'Throughput ratios (median and range of per-round ratios)' : 'Throughput ratios (median of per-round ratios; --wide for the range)', throughputRatioGrid(report, { wide })],
    ['Instructions per call (valgrind callgrind, inside call())', instructionsGrid(report)],
    ["Where the instructions go (--profile: top server functions)", profileGrid(report)],
    ['Real traffic (--realtime: server clock, paced)', realtimeGrid(report)],
    ['Accuracy', accuracyGrid(report)],
  ];
  const t = report.results.find((r) => r.throughput)?.throughput;
  const footerParts = [
    `${report.redis.server ? `${report.redis.server.charAt(0).toUpperCase()}${report.redis.server.slice(1)} ${report.redis.serverVersion ?? '?'} (redis_version ${report.redis.version})` : `Redis ${report.redis.version}`}, ${report.redis.memAllocator}${report.redis.private ? ' (private server)' : ''}`,
    Object.entries(report.redis.config)
      .map(([k, v]) => `${k}=${v ?? '?'}`)
      .join(' '),
    ...(t ? [`${t.connections} connection(s)${report.cluster ? ' per primary' : ''}, pipeline ${t.pipeline}`] : []),
    ...[clusterFooter(report), labelsLine(report)].filter((x): x is string => x !== undefined),
  ];
  // Markdown keeps one line (a paragraph); a terminal gets lines of at most 120 columns.
  const footer = format === 'markdown' ? footerParts.join('; ') : wrapParts(footerParts, 120);
  const parts: string[] = [];
  for (const [heading, grid] of grids) {
    if (!grid) continue;
    // A caption that would run past 120 columns goes on a line of its own.
    const title = !grid.caption ? heading : heading.length + grid.caption.length + 2 <= 120 ? `${heading}: ${grid.caption}` : `${heading}\n${grid.caption}`;
    if (format === 'markdown') parts.push(`**${title}**\n\n${renderMarkdown(grid)}`);
    else parts.push(`${c.bold(title)}\n${renderBox(grid, color)}`);
    if (grid.notes && grid.notes.length > 0) parts[parts.length - 1] += `${format === "markdown" ? "\n\n" : "\n"}${grid.notes.map((n) => (format === 'markdown' ? `_${n}_` : c.dim(n))).join('\n')}`;
  }
  const hints = hintLines(report);
  if (hints.length > 0) {
    parts.push(format === 'markdown' ? `**Encoding hints**\n\n${hints.map((h) => `- ${h}`).join('\n')}` : `${c.bold('Encoding hints')}\n${hints.map((h) => wrapLine(h)).join('\n')}`);
  }
  parts.push(format === 'markdown' ? `_${footer}_` : c.dim(footer));
  return `${parts.join('\n\n')}\n`;
}
