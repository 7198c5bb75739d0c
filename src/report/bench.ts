import { maxOf, minOf } from '../core/arrays.js';
import { NOISY_SPREAD } from '../core/thresholds.js';
import { formatWindow } from '../core/format.js';
import type { AppView, BenchReport, CellResult, LatencyStats, Spread } from '../measure/types.js';
import type { CommandsPerCall } from '../measure/commandstats.js';
import { hasInstructions, instructionRatioCell, instructionsCell, instructionsGrid, profileGrid, throughputNotes } from './instructions.js';
import { palette, kb, percent, serverLine as serverText, times } from './style.js';
import { renderCsv, renderMarkdown, type Grid } from './table.js';
import { hintLines, wrapLine } from './encoding-hints.js';
import { clusterFooter, findingsGrid, labelsLine, shardsGrid } from './cluster.js';
import { PIPED_COLUMNS, fitsWhole, renderFitted, wrapText } from './width.js';

// The formats live apart so bench's definition reads them without the renderer.
export { benchFormats, type BenchFormat } from './bench-formats.js';
import type { BenchFormat } from './bench-formats.js';

export { formatWindow } from '../core/format.js';

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Fit hints by column name: `window` and `req/s` move to the title when constant; `drop` ranks the others (higher goes first). */
function fitByName(head: readonly string[], drop: Readonly<Record<string, number>>, legend: readonly string[] = []): NonNullable<Grid['fit']> {
  return {
    priority: head.map((h) => drop[h] ?? 0),
    hoist: head.map((h) => h === 'window' || h === 'req/s'),
    legend: head.map((h) => legend.includes(h)),
  };
}

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
  // The cost beside the saving: server µs per request, other over first (as the throughput ratios divide).
  const costed = report.results.some((r) => r.throughput?.request.serverUsecPerCall || r.serverCost);
  const cost = !costed ? [] : onePair ? ['cost'] : pairs.map(({ first, other }) => `${other} / ${first} cost`);
  const head = [
    'window',
    'req/s',
    ...(hasDuration ? ['traffic'] : []),
    'events in window',
    ...layouts.flatMap((l) => [`${l} KB`, ...(hasPublished(l) ? [`published`, `diff`] : [])]),
    ...ratio,
    ...cost,
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
      ...(costed
        ? pairs.map(({ first, other }) => {
            const c = costRatio(g.byLayout.get(first), g.byLayout.get(other));
            return c ? `${times(c.ratio)}${c.noisy ? ' noisy' : ''}` : '–';
          })
        : []),
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
  const priorityOf: Record<string, number> = { traffic: 3, 'events in window': 2, published: 4, diff: 4 };
  const caption = onePair
    ? `ratio = ${onePair.first} / ${onePair.other}${costed ? `; cost = ${onePair.other} / ${onePair.first} server µs per request` : ''}`
    : undefined;
  return {
    head,
    rows,
    numeric,
    ...(caption ? { caption } : {}),
    fit: {
      priority: head.map((h) => priorityOf[h] ?? 0),
      hoist: head.map((h) => h === 'window' || h === 'req/s' || h === 'traffic'),
      legend: head.map((h) => h === 'encodings'),
    },
  };
}

/**
 * What a request costs the server in `other` over `first`: the median of
 * per-round ratios when the throughput phases ran (with whether the rounds
 * were noisy), else the ratio of the accuracy phase's probe; null without either.
 */
export function costRatio(a: CellResult | undefined, b: CellResult | undefined): { ratio: number; noisy: boolean } | null {
  if (!a || !b) return null;
  const per = b.throughput?.ratio?.reference === a.layout ? b.throughput.ratio.serverUsecPerRequest : null;
  if (per) return { ratio: per.median, noisy: per.noisy };
  const x = a.throughput?.request.serverUsecPerCall;
  const y = b.throughput?.request.serverUsecPerCall;
  if (x && y) return { ratio: y / x, noisy: false };
  if (a.serverCost?.requestUsecPerCall && b.serverCost?.requestUsecPerCall) {
    return { ratio: b.serverCost.requestUsecPerCall / a.serverCost.requestUsecPerCall, noisy: false };
  }
  return null;
}

/**
 * One sentence per pair of layouts saying what the memory table means: how
 * much smaller a light is and what a request costs the server for it. One
 * cell is told with its figures; several with the range across cells.
 */
export function meaningLines(report: BenchReport): string[] {
  const all = groups(report);
  const lines: string[] = [];
  const pairs = pairsOf(report);
  const reference = pairs[0]?.first;
  // Many layouts: a sentence each would fill the screen; say how to read the columns instead.
  if (pairs.length > 2 && reference !== undefined) {
    return [
      `What it means: ratio = ${reference}'s bytes per light over the layout's (higher, smaller light); ` +
        `cost = the layout's server µs per request over ${reference}'s (lower, cheaper).`,
    ];
  }
  for (const { first, other } of pairs) {
    const cells = all
      .map((g) => ({ g, a: g.byLayout.get(first), b: g.byLayout.get(other) }))
      .filter((x): x is { g: (typeof all)[number]; a: CellResult; b: CellResult } => Boolean(x.a && x.b));
    if (cells.length === 0) continue;
    const memory = cells.map(({ a, b }) => a.memory.bytesPerLight / b.memory.bytesPerLight);
    const costs = cells.map(({ a, b }) => costRatio(a, b));
    const known = costs.filter((c): c is { ratio: number; noisy: boolean } => c !== null);
    const noisy = known.some((c) => c.noisy) ? ' (rounds noisy)' : '';
    const spanOf = (xs: number[]): string => {
      const lo = minOf(xs);
      const hi = maxOf(xs);
      return times(lo) === times(hi) ? times(lo) : `${times(lo)}–${times(hi)}`;
    };
    const same = memory.every((m) => times(m) === times(1));
    const less = memory.every((m) => m >= 1);
    const more = memory.every((m) => m <= 1);
    const size = same
      ? `the same memory as ${first}`
      : less
        ? `${spanOf(memory)} less memory than ${first}`
        : more
          ? `${spanOf(memory.map((m) => 1 / m))} more memory than ${first}`
          : `from ${spanOf(memory)} less to ${spanOf(memory.filter((m) => m < 1).map((m) => 1 / m))} more memory than ${first}`;
    const cost = known.length > 0 ? `, and costs the server ${spanOf(known.map((c) => c.ratio))} the time per request${noisy}` : '';
    const only = cells.length === 1 ? cells[0] : undefined;
    lines.push(
      only
        ? `What it means: at a ${formatWindow(only.g.windowSeconds)} window and ${only.g.rate} req/s, a ${other} light takes ` +
            `${kb(only.b.memory.bytesPerLight)} KB against ${kb(only.a.memory.bytesPerLight)} KB: ${size}${cost}.`
        : `What it means: across ${cells.length} cells a ${other} light takes ${size}${cost}.`,
    );
  }
  return lines;
}

/**
 * Memory per light with one row per layout: what a narrow terminal gets when
 * {@link memoryGrid}'s column per layout does not fit. `ratio` is the first
 * layout's bytes over the row's, `cost` the row's server µs per request over
 * the first layout's (as the wide table divides).
 */
export function memoryByLayoutGrid(report: BenchReport): Grid {
  const [reference] = layoutsOf(report);
  const published = report.results.some((r) => r.published);
  const hasDuration = report.results.some((r) => r.durationSeconds !== r.windowSeconds);
  const costed = report.results.some((r) => r.throughput?.request.serverUsecPerCall || r.serverCost);
  const head = [
    'window',
    'req/s',
    ...(hasDuration ? ['traffic'] : []),
    'events in window',
    'layout',
    'KB',
    ...(published ? ['published', 'diff'] : []),
    'ratio',
    ...(costed ? ['cost'] : []),
  ];
  const rows: string[][] = [];
  for (const g of groups(report)) {
    const first = reference === undefined ? undefined : g.byLayout.get(reference);
    for (const c of g.byLayout.values()) {
      const cost = c === first ? null : costRatio(first, c);
      rows.push([
        formatWindow(g.windowSeconds),
        String(g.rate),
        ...(hasDuration ? [formatWindow(c.durationSeconds)] : []),
        count(c.eventsInWindow),
        c.layout,
        kb(c.memory.bytesPerLight),
        ...(published ? [c.published ? c.published.kb.toFixed(1) : '', c.published ? percent(c.published.diff) : ''] : []),
        c === first || !first ? '' : times(first.memory.bytesPerLight / c.memory.bytesPerLight),
        ...(costed ? [cost ? `${times(cost.ratio)}${cost.noisy ? ' noisy' : ''}` : ''] : []),
      ]);
    }
  }
  return {
    head,
    rows,
    numeric: head.map((h) => h !== 'window' && h !== 'traffic' && h !== 'layout'),
    caption: `ratio = ${reference ?? '?'} / the layout${costed ? `; cost = the layout / ${reference ?? '?'} server µs per request` : ''}`,
    fit: {
      priority: head.map((h) => ({ traffic: 3, 'events in window': 2, published: 4, diff: 4 })[h] ?? 0),
      hoist: head.map((h) => h === 'window' || h === 'req/s' || h === 'traffic' || h === 'events in window'),
    },
  };
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
  return { head, rows, numeric: [false, true, false, false], fit: fitByName(head, {}, ['encoding of each key']) };
}

/** The encodings with one row per key role: what a narrow terminal gets instead of {@link encodingsGrid}. */
export function encodingsByRoleGrid(report: BenchReport): Grid {
  const head = ['window', 'req/s', 'layout', 'key', 'encoding'];
  const rows: string[][] = [];
  for (const r of report.results) {
    const byRole = new Map<string, Set<string>>();
    for (const key of r.memory.keys) byRole.set(key.role, (byRole.get(key.role) ?? new Set()).add(key.encoding));
    for (const [role, encodings] of byRole) rows.push([formatWindow(r.windowSeconds), String(r.rate), r.layout, role, [...encodings].join('/')]);
  }
  return { head, rows, numeric: [false, true, false, false, false], fit: fitByName(head, {}, ['key']) };
}

const ms = (n: number): string => (n >= 10 ? n.toFixed(1) : n.toFixed(3));

/** `61,200–70,100`, the rounds' min and max; empty for a single round. */
const range = (spread: Spread | undefined, show: (n: number) => string): string =>
  spread && spread.min !== spread.max ? `${show(spread.min)}–${show(spread.max)}` : '';

/** The spread as a percentage, `noisy` past the threshold; empty without rounds. */
const spreadText = (spread: Spread | null | undefined): string => (spread ? `${Math.round(spread.spreadFraction * 100)}%${spread.noisy ? ' noisy' : ''}` : '');

/**
 * The engine's capacity: one row per cell and operation, with many calls in
 * flight (connections × pipeline). Figures are medians of the rounds; the
 * range and spread of ops/s say how far one round may be from another.
 */
export function throughputGrid(report: BenchReport, options: { wide?: boolean } = {}): Grid | undefined {
  const measured = report.results.filter((r) => r.throughput);
  if (measured.length === 0) return undefined;
  const rounded = measured.some((r) => (r.throughput?.rounds ?? 1) > 1);
  // --percentiles: the percentiles asked for, in their order, instead of p50/p99/p99.9.
  const asked = Object.keys(measured[0]?.throughput?.write.percentilesMs ?? {});
  const latencyHead = asked.length > 0 ? asked.map((p) => `p${p} ms`) : ['p50 ms', 'p99 ms', 'p99.9 ms'];
  const latency = (stats: LatencyStats): string[] =>
    asked.length > 0
      ? asked.map((p) => {
          const v = stats.percentilesMs?.[p];
          return v === undefined ? '–' : ms(v);
        })
      : [ms(stats.p50Ms), ms(stats.p99Ms), ms(stats.p999Ms)];
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
    ...latencyHead,
    'server µs/call',
    ...(rounded ? ['µs spread'] : []),
    ...(hasInstructions(report) ? ['instructions per call'] : []),
  ];
  const rows: string[][] = [];
  for (const r of measured) {
    const t = r.throughput;
    if (!t) continue;
    for (const [op, stats] of [
      ['write', t.write],
      ['read', t.read],
      ['request', t.request],
    ] as [string, LatencyStats][]) {
      rows.push([
        formatWindow(r.windowSeconds),
        String(r.rate),
        r.layout,
        op,
        count(stats.opsPerSec),
        ...(ranged ? [range(stats.rounds?.opsPerSec, count)] : []),
        ...(rounded ? [spreadText(stats.rounds?.opsPerSec)] : []),
        ...latency(stats),
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
    // Asked percentiles: the highest and the lowest give way first, after the range and the µs spread.
    fit: fitByName(head, {
      'ops/s min–max': 6,
      'µs spread': 5,
      ...(asked.length > 0
        ? Object.fromEntries(latencyHead.map((h, i) => [h, i === latencyHead.length - 1 ? 5 : i === 0 ? 4 : 2]))
        : { 'p99.9 ms': 5, 'p50 ms': 4, 'p99 ms': 2 }),
      spread: 3,
    }),
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
  return {
    head,
    rows,
    numeric: head.map((h) => h !== 'window' && h !== 'layout'),
    fit: fitByName(head, { samples: 4, 'p50 ms': 3, 'p99 ms': 2, '± mean': 1 }),
  };
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
  const head = [
    'window',
    'req/s',
    'layout',
    'reads',
    'max error',
    'mean error',
    `decides differently at ${threshold}`,
    ...(probed ? ['server µs/request'] : []),
  ];
  const rows = measured.map((r) => {
    const a = r.accuracy as NonNullable<CellResult['accuracy']>;
    return [
      formatWindow(r.windowSeconds),
      String(r.rate),
      r.layout,
      count(a.reads),
      a.maxAbsError.toFixed(4),
      a.meanAbsError.toFixed(4),
      `${(a.decisionMismatchFraction * 100).toFixed(2)}%`,
      ...(probed ? [r.serverCost ? r.serverCost.requestUsecPerCall.toFixed(1) : '–'] : []),
    ];
  });
  return {
    head,
    rows,
    numeric: head.map((_, i) => i === 1 || i >= 3),
    fit: fitByName(head, { reads: 3, 'mean error': 2, 'server µs/request': 1 }),
    // At most 120 columns with the heading: a terminal table stays within that.
    caption: 'failure ratio vs the exact window, 1.25 windows of traffic failing from 0.05 to 0.2' + (probed ? '; server µs: write + read, probed' : ''),
  };
}

/** Real traffic (`--realtime`): one row per cell, pacing and write latency. */
export function realtimeGrid(report: BenchReport): Grid | undefined {
  const measured = report.results.filter((r) => r.realtime);
  if (measured.length === 0) return undefined;
  const head = [
    'window',
    'req/s',
    'layout',
    'achieved/s',
    'shortfall',
    'seconds',
    'events',
    'late p99 ms',
    'late max ms',
    'write p50 ms',
    'write p99 ms',
    'write p99.9 ms',
  ];
  const rows: string[][] = [];
  for (const r of measured) {
    const t = r.realtime;
    if (!t) continue;
    rows.push([
      formatWindow(r.windowSeconds),
      String(r.rate),
      r.layout,
      t.achievedRate.toFixed(1),
      `${(t.shortfallFraction * 100).toFixed(1)}%`,
      t.durationSeconds.toFixed(2),
      count(t.eventsTotal),
      ms(t.lateP99Ms),
      ms(t.lateMaxMs),
      ms(t.write.p50Ms),
      ms(t.write.p99Ms),
      ms(t.write.p999Ms),
    ]);
  }
  return {
    head,
    rows,
    numeric: head.map((_, i) => i === 1 || i >= 3),
    caption: 'achieved/s is per light; events are all lights',
    fit: fitByName(head, { 'write p50 ms': 6, 'write p99.9 ms': 5, events: 4, seconds: 4, 'late max ms': 3, 'late p99 ms': 2, 'write p99 ms': 1 }),
  };
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
    fit: fitByName(head, { 'app requests/s': 2, 'write ops/s': 1, 'read ops/s': 1 }),
    ...(!named && only ? { caption: `${only.other} / ${only.first}` } : {}),
  };
}

const COMMAND_OPS = ['write', 'failure', 'read'] as const;

/** A count per call: `15`, or `13 (10–16)` when it varied between calls (the mean, then the range). */
export function perCallText(c: { mean: number; min: number; max: number }): string {
  const n = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  return c.min === c.max ? n(c.mean) : `${n(c.mean)} (${n(c.min)}–${n(c.max)})`;
}

/** `HGET 1, HINCRBY 3, ZADD 1`: the commands one call runs, by name (a varying count as its mean and range). */
export function breakdownText(p: CommandsPerCall): string {
  return p.breakdown.length === 0 ? 'none' : p.breakdown.map((b) => `${b.command.toUpperCase()} ${perCallText(b)}`).join(', ');
}

/**
 * Commands per call (INFO commandstats deltas on swc's own server). Compact
 * by default: one row per cell and layout, the commands per call of its
 * write, failure and read. `--wide` (and markdown) gives one row per
 * operation with the reply and request bytes per call and which commands,
 * by name.
 */
export function commandsGrid(report: BenchReport, { wide = true }: { wide?: boolean } = {}): Grid | undefined {
  const measured = report.results.filter((r) => r.commands);
  if (measured.length === 0) return undefined;
  const caption = 'commands its script runs per call (EVALSHA not counted)';
  if (!wide) {
    const head = ['window', 'req/s', 'layout', ...COMMAND_OPS];
    const rows = measured.map((r) => [
      formatWindow(r.windowSeconds),
      String(r.rate),
      r.layout,
      ...COMMAND_OPS.map((op) => {
        const p = r.commands?.[op];
        return p ? perCallText(p.commands) : '–';
      }),
    ]);
    return {
      head,
      rows,
      numeric: head.map((h) => h !== 'window' && h !== 'layout'),
      caption,
      notes: ['--wide adds bytes per call and names the commands (--json and --format csv have them too)'],
      fit: fitByName(head, {}),
    };
  }
  const head = ['window', 'req/s', 'layout', 'op', 'cmds/call', 'reply B', 'request B', 'commands'];
  const rows: string[][] = [];
  for (const r of measured) {
    for (const op of COMMAND_OPS) {
      const p = r.commands?.[op];
      if (!p) continue;
      rows.push([
        formatWindow(r.windowSeconds),
        String(r.rate),
        r.layout,
        op,
        perCallText(p.commands),
        count(p.replyBytes),
        count(p.requestBytes),
        breakdownText(p),
      ]);
    }
  }
  return {
    head,
    rows,
    numeric: head.map((h) => h === 'req/s' || h === 'cmds/call' || h === 'reply B' || h === 'request B'),
    caption: `${caption}; bytes the server sent and received per call`,
    fit: fitByName(head, { 'request B': 2, 'reply B': 1 }, ['commands']),
  };
}

/** One flat row per result, for spreadsheets. */
export function csvGrid(report: BenchReport): Grid {
  const stat = (s: LatencyStats | undefined): string[] =>
    s ? [s.opsPerSec, s.p50Ms, s.p99Ms, s.p999Ms, s.serverUsecPerCall ?? ''].map(String) : ['', '', '', '', ''];
  const head = [
    'layout',
    'windowSeconds',
    'rate',
    'durationSeconds',
    'eventsInWindow',
    'events',
    'bytesPerLight',
    'usedMemoryDeltaPerLight',
    'encodings',
    'publishedKb',
    'publishedDiff',
    ...['write', 'read', 'request'].flatMap((op) => ['OpsPerSec', 'P50Ms', 'P99Ms', 'P999Ms', 'ServerUsecPerCall'].map((f) => `${op}${f}`)),
    ...['RequestedRate', 'AchievedRate', 'Seconds', 'Events', 'LateP99Ms', 'LateMaxMs', 'WriteP50Ms', 'WriteP99Ms', 'WriteP999Ms'].map((f) => `realtime${f}`),
    ...['Reads', 'MaxAbsError', 'MeanAbsError', 'Threshold', 'DecisionMismatchFraction'].map((f) => `accuracy${f}`),
    'serverWriteUsecPerCall',
    'serverReadUsecPerCall',
    ...COMMAND_OPS.flatMap((op) =>
      ['CommandsPerCall', 'CommandsMin', 'CommandsMax', 'ReplyBytesPerCall', 'RequestBytesPerCall', 'Commands'].map((f) => `${op}${f}`),
    ),
    ...['write', 'read', 'request'].flatMap((op) => ['InstructionsPerCall', 'InstructionsSpread', 'InstructionsRatio'].map((f) => `${op}${f}`)),
  ];
  const instructions = (i: CellResult['instructions']): string[] =>
    (['write', 'read', 'request'] as const).flatMap((op) =>
      i ? [String(i[op].instructionsPerCall), String(i[op].spreadFraction), i.ratio ? String(i.ratio[op]) : ''] : ['', '', ''],
    );
  // The breakdown as `hget:1+hincrby:3` (a spreadsheet cell without commas), a varying count as its mean.
  const commands = (c: CellResult['commands']): string[] =>
    COMMAND_OPS.flatMap((op) => {
      const p = c?.[op];
      if (!p) return Array<string>(6).fill('');
      const each = p.breakdown.map((b) => `${b.command}:${b.mean}`).join('+');
      return [p.commands.mean, p.commands.min, p.commands.max, p.replyBytes, p.requestBytes].map(String).concat(each);
    });
  const accuracy = (a: CellResult['accuracy']): string[] =>
    a ? [a.reads, a.maxAbsError, a.meanAbsError, a.threshold, a.decisionMismatchFraction].map(String) : Array<string>(5).fill('');
  const realtime = (t: CellResult['realtime']): string[] =>
    t
      ? [t.requestedRate, t.achievedRate, t.durationSeconds, t.events, t.lateP99Ms, t.lateMaxMs, t.write.p50Ms, t.write.p99Ms, t.write.p999Ms].map(String)
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
    ...commands(r.commands),
    ...instructions(r.instructions),
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

/** The line that marks a report a script error cut short (see BenchReport.incomplete), or undefined. */
export function incompleteLine(report: BenchReport): string | undefined {
  const i = report.incomplete;
  if (!i) return undefined;
  return (
    `INCOMPLETE: ${i.layout}'s script failed in its ${i.phase} phase${i.cause ? ` (${i.cause.name})` : ''}; ` +
    `the figures below are what was measured before it: memory for ${
      i.cells === undefined || i.cells.measured === i.cells.planned
        ? 'every cell shown'
        : `${i.cells.measured} of ${i.cells.planned} cells (the run stopped before the other ${i.cells.planned - i.cells.measured})`
    }, later phases only where shown`
  );
}

/**
 * The report's first line: the server it wrote to and what was not measured
 * there; undefined for a report saved before swc named it.
 */
export function serverLine(report: BenchReport): string | undefined {
  const { where, notMeasured } = report.redis;
  return where === undefined ? undefined : serverText(where, notMeasured);
}

/** The human-readable report: memory table, throughput tables, and the server it ran on. */
export function renderBench(
  report: BenchReport,
  format: Exclude<BenchFormat, 'json'>,
  color: boolean,
  options: { wide?: boolean; width?: number; hints?: boolean } = {},
): string {
  if (format === 'csv') return `${renderCsv(csvGrid(report))}\n`;
  const c = palette(color);
  // A terminal table fits `width` (120 columns unless told: see src/report/width.ts) unless --wide; markdown is scrolled, so it keeps every column.
  const wide = format === 'markdown' || options.wide === true;
  const width = wide ? Number.POSITIVE_INFINITY : (options.width ?? PIPED_COLUMNS);
  // Prose (footer, hints) never runs past 120 columns, even with --wide.
  const prose = Math.min(width, PIPED_COLUMNS);
  const encodings = encodingsGrid(report);
  const memory = memoryGrid(report, { wide });
  // A column per layout until they do not fit; then a row per layout.
  const memoryShown = !wide && layoutsOf(report).length > 2 && !fitsWhole(memory, width) ? memoryByLayoutGrid(report) : memory;
  const first = report.results.find((r) => r.throughput)?.throughput;
  const capacity = first
    ? report.cluster
      ? `${first.connections} connection(s) × pipeline ${first.pipeline} in flight on each of ${report.cluster.shards} primaries at once`
      : `${first.connections} connection(s) × pipeline ${first.pipeline} in flight`
    : '';
  const grids: [string, Grid | undefined][] = [
    [
      `${width < PIPED_COLUMNS ? "Memory per light (KB = 1024 bytes; MEMORY USAGE summed over a light's keys)" : "Memory per light (KB = 1024 bytes, MEMORY USAGE … SAMPLES 0 summed over the light's keys)"}${labelsLine(report) ? `\n${labelsLine(report)}` : ''}`,
      memoryShown,
    ],
    // Narrow: one row per key role rather than a legend holding every encoding.
    ['Encodings', wide ? undefined : fitsWhole({ ...encodings, fit: {} }, width) ? encodings : encodingsByRoleGrid(report)],
    ['Per primary (Redis Cluster)', shardsGrid(report)],
    ['Cluster-safety findings (CROSSSLOT)', findingsGrid(report)],
    [`Engine capacity (steady state, injected clock, ${capacity})`, throughputGrid(report, { wide })],
    [
      `Application's view (one request at a time through ioredis, a read then a write; tinybench${report.cluster ? '; lights of the first primary' : ''})`,
      appViewGrid(report),
    ],
    [
      wide ? 'Throughput ratios (median and range of per-round ratios)' : 'Throughput ratios (median of per-round ratios; --wide for the range)',
      throughputRatioGrid(report, { wide }),
    ],
    ['Commands per call (INFO commandstats, private server: exact)', commandsGrid(report, { wide })],
    ['Instructions per call (valgrind callgrind, inside call())', instructionsGrid(report)],
    ['Where the instructions go (--profile: top server functions)', profileGrid(report)],
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
    ...(report.commandsSkipped !== undefined ? [`commands per call ${report.commandsSkipped}`] : []),
  ];
  // Markdown keeps one line (a paragraph); a terminal gets lines of at most 120 columns.
  const footer = format === 'markdown' ? footerParts.join('; ') : wrapText(wrapParts(footerParts, prose), prose);
  const parts: string[] = [];
  const server = serverLine(report);
  if (server) parts.push(format === 'markdown' ? `_${server}_` : c.dim(wrapText(server, prose)));
  const stopped = incompleteLine(report);
  if (stopped) parts.push(format === 'markdown' ? `**${stopped}**` : c.bold(c.red(wrapText(stopped, prose))));
  for (const [heading, grid] of grids) {
    if (!grid) continue;
    if (format === 'markdown') {
      const title = grid.caption ? `${heading}: ${grid.caption}` : heading;
      parts.push(`**${title}**\n\n${renderMarkdown(grid)}`);
    } else {
      parts.push(renderFitted(heading, grid, width, { color, bold: (t) => c.bold(t), dim: (t) => c.dim(t) }));
    }
    // The first screen answers the question: right under the memory table, what it means.
    if (grid === grids[0]?.[1]) {
      const meaning = meaningLines(report);
      if (meaning.length > 0)
        parts[parts.length - 1] += `${format === 'markdown' ? '\n\n' : '\n'}${meaning.map((l) => (format === 'markdown' ? l : wrapText(l, prose))).join('\n')}`;
    }
    if (grid.notes && grid.notes.length > 0) {
      const notes = grid.notes.map((n) => (format === 'markdown' ? `_${n}_` : c.dim(wrapText(n, prose))));
      parts[parts.length - 1] += `${format === 'markdown' ? '\n\n' : '\n'}${notes.join('\n')}`;
    }
  }
  // A sweep's runs leave them out: each would suggest running the sweep that is running.
  const hints = options.hints === false ? [] : hintLines(report);
  if (hints.length > 0) {
    parts.push(
      format === 'markdown'
        ? `**Encoding hints**\n\n${hints.map((h) => `- ${h}`).join('\n')}`
        : `${c.bold('Encoding hints')}\n${hints.map((h) => wrapLine(h, prose)).join('\n')}`,
    );
  }
  parts.push(format === 'markdown' ? `_${footer}_` : c.dim(footer));
  return `${parts.join('\n\n')}\n`;
}

/**
 * `swc bench -q`: the headline only, one line per window and rate, like
 * `redis-benchmark -q`: each layout's bytes per light, and each layout's
 * ratio to the first one listed (and its cost, where measured). A run cut
 * short says so first. Markdown gets a list.
 */
export function renderQuietBench(report: BenchReport, format: 'table' | 'markdown' = 'table'): string {
  const [reference, ...others] = layoutsOf(report);
  const lines: string[] = [];
  const stopped = incompleteLine(report);
  if (stopped) lines.push(stopped);
  for (const g of groups(report)) {
    const first = reference === undefined ? undefined : g.byLayout.get(reference);
    const sizes = [...g.byLayout.values()].map((r) => `${r.layout} ${kb(r.memory.bytesPerLight)} KB`).join(', ');
    const ratios = others.flatMap((layout) => {
      const other = g.byLayout.get(layout);
      if (!first || !other) return [];
      const cost = costRatio(first, other);
      const costText = cost ? `, cost ${times(cost.ratio)}${cost.noisy ? ' noisy' : ''}` : '';
      return [`ratio ${reference}/${layout} ${times(first.memory.bytesPerLight / other.memory.bytesPerLight)}${costText}`];
    });
    lines.push(`${formatWindow(g.windowSeconds)} window, ${g.rate} req/s: ${sizes} per light${ratios.length > 0 ? `; ${ratios.join('; ')}` : ''}`);
  }
  // Markdown joins consecutive lines into one paragraph: a list keeps them apart.
  return `${lines.map((l) => (format === 'markdown' ? `- ${l}` : l)).join('\n')}\n`;
}
