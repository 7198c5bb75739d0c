import { maxOf, minOf } from '../core/arrays.js';
import type { BenchReport, CellResult } from '../measure/types.js';
import { formatWindow } from '../core/format.js';
import type { CompareOptions, CompareRow, Verdict } from '../compare/diff.js';
import { DEFAULT_PANELS, PANEL_NAMES, type PanelName } from './chart-panel-names.js';

export { DEFAULT_PANELS, PANEL_NAMES, type PanelName };

/**
 * What the charts draw, worked out once from results so the terminal and the
 * SVG renderers show the same panels. Nothing here knows a layout by name:
 * series come from whatever layouts the results hold, in run order.
 */

/** One result (or one side of a comparison) to chart. */
export interface ChartSide {
  /** Shown in legends when there are two sides (a file name, `this run`, …). */
  readonly label: string;
  readonly report: BenchReport;
}

/** One measured value: x in the panel's x unit (seconds, req/s), y in its y unit (KB, %, ms). */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  /** The published figure for the same cell, in the panel's y unit (blog preset only). */
  readonly published?: number;
  /** The lowest and highest of the rounds (latency panels): drawn as a bar through the point. */
  readonly low?: number;
  readonly high?: number;
  /** The point's value as it is written beside it (`4.7 KB`, `+2.2%`), on panels with value labels. */
  readonly label?: string;
  /** Compared: the growth the gate allows this cell, in percent (its tolerance over the baseline's bytes). */
  readonly limit?: number;
  /** Compared: the gate failed this cell (bytes per light grew past its tolerance). */
  readonly failed?: boolean;
}

/** One line (or set of ranges): a layout (and, when comparing, one result's side; on latency panels, one percentile). */
export interface ChartSeries {
  /** Legend text: the layout, with the side's label when two results are compared. */
  readonly name: string;
  readonly layout: string;
  /** The side's label when two results are compared, else null. */
  readonly side: string | null;
  /** Latency panels: the percentile the series shows (`p50`, `p99`), else null. */
  readonly marker: string | null;
  /** Sorted by x. */
  readonly points: readonly ChartPoint[];
}

/**
 * Which quantity a panel shows; panels of one kind share their y range.
 * `change-*`: two results compared, the percent change of bytes per light from the baseline.
 */
export type PanelKind = 'memory-by-window' | 'memory-by-rate' | 'change-by-window' | 'change-by-rate' | 'latency';

/** One plot: its axes' titles and ticks, and a line per series. */
export interface ChartPanel {
  /** The `--chart-panels` name that selects it. */
  readonly name: PanelName;
  readonly kind: PanelKind;
  readonly title: string;
  /** One sentence written on the panel, under its title: the ratio of the layouts, or the largest change. */
  readonly note?: string;
  readonly xTitle: string;
  readonly yTitle: string;
  /** The x values worth a label, with their labels (`1 min`, `100/s`). */
  readonly xTicks: readonly { readonly value: number; readonly label: string }[];
  /** Plot x on a log scale (its values span ten times or more). */
  readonly xLog: boolean;
  /** `lines`: points joined by a line per series; `ranges`: each point alone, with a bar from its low to its high. */
  readonly style: 'lines' | 'ranges';
  /** Whether each point's `label` is written beside it. */
  readonly labels: boolean;
  readonly series: readonly ChartSeries[];
  /**
   * Compared memory panels: the gate's tolerance as a band around zero, per x
   * (the tightest limit of the panel's points there, in percent): a point
   * above it failed.
   */
  readonly band?: readonly { readonly x: number; readonly limit: number }[];
}

/** Everything a renderer needs: panels, a shared y range per kind, and a title. */
export interface ChartModel {
  readonly title: string;
  /** Redis build and run settings, one short line each. */
  readonly subtitle: readonly string[];
  readonly panels: readonly ChartPanel[];
  /** Per panel kind: the y range over all its panels and whether it is drawn on a log scale. */
  readonly yScales: Readonly<Partial<Record<PanelKind, { readonly min: number; readonly max: number; readonly log: boolean }>>>;
  /** Series names in legend order (one colour each), shared by every panel. */
  readonly layouts: readonly string[];
  /** Side labels when two results are compared (first is the baseline), else empty. */
  readonly sides: readonly string[];
  readonly hasPublished: boolean;
  /** Panels asked for but not drawn, and why (`latency: not drawn, …`). */
  readonly notes: readonly string[];
  /**
   * Compared: the cell the gate's verdict turns on, which the hero draws: the
   * failing cell grown furthest past its tolerance, or without a failure the
   * one nearest to it (growth over the allowed growth).
   */
  readonly verdict?: ChartVerdict;
}

/** What a compared chart headlines: the gate's verdict on bytes per light. */
export interface ChartVerdict {
  readonly ok: boolean;
  readonly layout: string;
  readonly windowSeconds: number;
  readonly rate: number;
  /** Percent change of the cell's bytes per light. */
  readonly change: number;
  /** `+1.0%` or `64 B`: the tolerance as the gate states it. */
  readonly tolerance: string;
  /** Cells compared and cells past the tolerance. */
  readonly cells: number;
  readonly failed: number;
}

/** A span of ten times or more is drawn on a log scale: a linear one would flatten the small values to a line on the axis. */
export const LOG_SPAN = 10;

const KB = 1024;

/** The request percentiles latency panels draw, with the round figures they read. */
const LATENCY_MARKERS = [
  { label: 'p50', field: 'p50Ms' },
  { label: 'p99', field: 'p99Ms' },
] as const;

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];
const sortedUnique = (values: Iterable<number>): number[] => unique(values).sort((a, b) => a - b);

function spansDecade(values: readonly number[]): boolean {
  const positive = values.filter((v) => v > 0);
  if (positive.length < 2) return false;
  return maxOf(positive) / minOf(positive) >= LOG_SPAN;
}

const rateLabel = (rate: number): string => `${rate}/s`;

/** Bytes as a chart writes them beside a point: `904 B`, `4.7 KB`, `168 KB`, `1.2 MB` (1 KB = 1024 bytes). */
export function bytesLabel(bytes: number): string {
  if (bytes < KB) return `${Math.round(bytes)} B`;
  const kb = bytes / KB;
  if (kb < 100) return `${kb.toFixed(1)} KB`;
  if (kb < KB) return `${Math.round(kb)} KB`;
  const mb = kb / KB;
  return `${mb < 100 ? mb.toFixed(1) : Math.round(mb)} MB`;
}

/** A percent change as written on a chart: `+2.2%`, `-0.4%`, `+0.03%` (two decimals below 0.1%), `0%`. */
export function changeLabel(percent: number): string {
  if (percent === 0) return '0%';
  const digits = Math.abs(percent) < 0.1 ? 2 : 1;
  return `${percent > 0 ? '+' : ''}${percent.toFixed(digits)}%`;
}

/** How many times more one figure is than another: `12×` from ten up, `4.9×` below. */
export function timesLabel(ratio: number): string {
  return ratio >= 10 ? `${Math.round(ratio)}×` : `${ratio.toFixed(1)}×`;
}

/** Each cell with the side it came from. */
interface SidedCell {
  readonly side: ChartSide;
  readonly cell: CellResult;
}

function seriesOf(
  cells: readonly SidedCell[],
  sides: readonly ChartSide[],
  layouts: readonly string[],
  points: (cell: CellResult) => ChartPoint[],
): ChartSeries[] {
  const compared = sides.length > 1;
  const out: ChartSeries[] = [];
  for (const layout of layouts) {
    for (const side of sides) {
      const drawn = cells
        .filter((c) => c.side === side && c.cell.layout === layout)
        .flatMap((c) => points(c.cell))
        .sort((a, b) => a.x - b.x);
      if (drawn.length === 0) continue;
      out.push({ name: compared ? `${layout} (${side.label})` : layout, layout, side: compared ? side.label : null, marker: null, points: drawn });
    }
  }
  return out;
}

const memoryPoint = (cell: CellResult, x: number): ChartPoint[] => [
  {
    x,
    y: cell.memory.bytesPerLight / KB,
    label: bytesLabel(cell.memory.bytesPerLight),
    ...(cell.published ? { published: cell.published.bytes / KB } : {}),
  },
];

/**
 * Two results compared: per layout, the percent change of bytes per light
 * from the baseline's cell of the same layout, window and rate. A cell the
 * baseline lacks (or that held nothing) has no change to draw.
 */
function changeSeries(
  cells: readonly SidedCell[],
  sides: readonly ChartSide[],
  layouts: readonly string[],
  x: (cell: CellResult) => number,
  verdict: Verdict | undefined,
): ChartSeries[] {
  const [baseline, current] = sides;
  if (!baseline || !current) return [];
  const out: ChartSeries[] = [];
  for (const layout of layouts) {
    const points = cells
      .filter((c) => c.side === current && c.cell.layout === layout)
      .flatMap(({ cell }): ChartPoint[] => {
        const before = cells.find(
          (b) => b.side === baseline && b.cell.layout === layout && b.cell.windowSeconds === cell.windowSeconds && b.cell.rate === cell.rate,
        );
        if (!before || before.cell.memory.bytesPerLight <= 0) return [];
        const base = before.cell.memory.bytesPerLight;
        const percent = ((cell.memory.bytesPerLight - base) / base) * 100;
        // The gate's own verdict says which points failed and what it allowed them.
        const row = verdict ? memoryRow(verdict, cell) : undefined;
        const gated =
          verdict && row ? { limit: (allowedBytes(base, verdict.options) / base) * 100, ...(row.status === 'regressed' ? { failed: true } : {}) } : {};
        return [{ x: x(cell), y: percent, label: changeLabel(percent), ...gated }];
      })
      .sort((a, b) => a.x - b.x);
    if (points.length > 0) out.push({ name: layout, layout, side: null, marker: null, points });
  }
  return out;
}

/** `stoplight-v6 uses 12× less than stoplight-v5 at 10 min @ 100/s`: the smallest and the largest layout at the panel's last x. */
function ratioNote(series: readonly ChartSeries[], where: (x: number) => string): string | undefined {
  const lastX = Math.max(...series.flatMap((s) => s.points.map((p) => p.x)));
  const at = series.flatMap((s) => s.points.filter((p) => p.x === lastX && p.y > 0).map((p) => ({ layout: s.layout, y: p.y })));
  if (at.length < 2) return undefined;
  const sorted = [...at].sort((a, b) => a.y - b.y);
  const small = sorted[0];
  const large = sorted.at(-1);
  if (!small || !large) return undefined;
  const ratio = large.y / small.y;
  if (ratio < 1.005) return `${small.layout} and ${large.layout} use the same memory at ${where(lastX)}`;
  const much = ratio < 1.1 ? `${((1 - small.y / large.y) * 100).toFixed(1)}%` : timesLabel(ratio);
  return `${small.layout} uses ${much} less than ${large.layout} at ${where(lastX)}`;
}

/** The growth bytes per light may have at a cell of `baseline` bytes under the gate's options (as compareReports applies them). */
const allowedBytes = (baseline: number, options: CompareOptions): number =>
  options.memoryToleranceBytes !== undefined ? options.memoryToleranceBytes : options.memoryTolerance * baseline;

/** The memory tolerance as the gate states it: `+1%` or `64 B`. */
const toleranceText = (options: CompareOptions): string =>
  options.memoryToleranceBytes !== undefined ? `${options.memoryToleranceBytes.toLocaleString('en-US')} B` : `+${+(options.memoryTolerance * 100).toFixed(4)}%`;

/** The verdict's bytes-per-light row of a cell, when both runs have it. */
function memoryRow(verdict: Verdict, cell: Pick<CellResult, 'layout' | 'windowSeconds' | 'rate'>): CompareRow | undefined {
  return verdict.rows.find(
    (r) =>
      r.figure === 'bytesPerLight' &&
      r.layout === cell.layout &&
      r.windowSeconds === cell.windowSeconds &&
      r.rate === cell.rate &&
      r.baseline !== null &&
      r.current !== null,
  );
}

/**
 * What the gate's verdict on bytes per light turns on, by its own measure:
 * the failing cell grown furthest past its tolerance (growth over allowed
 * growth), or, when none failed, the one nearest to it. Undefined without a
 * cell in both runs.
 */
export function chartVerdict(verdict: Verdict): ChartVerdict | undefined {
  let worst: { row: CompareRow; score: number; change: number } | undefined;
  let cells = 0;
  let failed = 0;
  for (const row of verdict.rows) {
    if (row.figure !== 'bytesPerLight' || row.baseline === null || row.current === null || row.baseline <= 0) continue;
    const grown = row.current - row.baseline;
    const allowed = allowedBytes(row.baseline, verdict.options);
    const score = allowed > 0 ? grown / allowed : grown > 0 ? Number.POSITIVE_INFINITY : grown < 0 ? Number.NEGATIVE_INFINITY : 0;
    cells += 1;
    if (row.status === 'regressed') failed += 1;
    const change = (grown / row.baseline) * 100;
    // Ties go to the larger change, then (as the hero without a verdict) the higher rate and the longer window.
    const before = worst;
    const better =
      !before ||
      score > before.score ||
      (score === before.score &&
        (Math.abs(change) > Math.abs(before.change) ||
          (Math.abs(change) === Math.abs(before.change) &&
            (row.rate > before.row.rate || (row.rate === before.row.rate && row.windowSeconds > before.row.windowSeconds)))));
    if (better) worst = { row, score, change };
  }
  if (!worst) return undefined;
  return {
    ok: failed === 0,
    layout: worst.row.layout,
    windowSeconds: worst.row.windowSeconds,
    rate: worst.row.rate,
    change: worst.change,
    tolerance: toleranceText(verdict.options),
    cells,
    failed,
  };
}

/** The hero's note when two results are compared and a cell grew: the gate's verdict, its cell and its tolerance. */
function verdictNote(v: ChartVerdict): string {
  const where = `${formatWindow(v.windowSeconds)} @ ${rateLabel(v.rate)}`;
  return v.ok
    ? `ok: nearest to the tolerance ${v.tolerance}, ${v.layout} ${changeLabel(v.change)} at ${where}; ${v.cells} of ${v.cells} cells within it`
    : `FAIL: ${v.layout} ${changeLabel(v.change)} at ${where} (tolerance ${v.tolerance}); ${v.failed} of ${v.cells} cells past it`;
}

/** `largest change: stoplight-v6 +2.2% at 10 min @ 100/s`, over the panel's points. */
function changeNote(series: readonly ChartSeries[], where: (x: number) => string): string | undefined {
  let top: { layout: string; point: ChartPoint } | undefined;
  for (const s of series) for (const p of s.points) if (!top || Math.abs(p.y) > Math.abs(top.point.y)) top = { layout: s.layout, point: p };
  if (!top) return undefined;
  if (top.point.y === 0) return 'no change: every cell holds the same bytes per light as the baseline';
  return `largest change: ${top.layout} ${changeLabel(top.point.y)} at ${where(top.point.x)}`;
}

/** `redis 7.0.15 (jemalloc-5.3.0)` and the settings that change bytes: listpack limits, failure rate, lights, seed. */
function describe(sides: readonly ChartSide[]): { title: string; subtitle: string[] } {
  const first = sides[0]?.report;
  if (!first) return { title: 'swc bench', subtitle: [] };
  const redis = unique(sides.map((s) => `Redis ${s.report.redis.version} (${s.report.redis.memAllocator})`)).join(' vs ');
  const config = Object.entries(first.redis.config ?? {})
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  const o = first.options;
  const settings = [
    typeof o.failureRate === 'number' ? `failure rate ${o.failureRate}` : undefined,
    typeof o.lights === 'number' ? `${o.lights} light${o.lights === 1 ? '' : 's'} per cell` : undefined,
    typeof o.seed === 'number' ? `seed ${o.seed}` : undefined,
    typeof o.durationSeconds === 'number' ? `traffic ${formatWindow(o.durationSeconds)} per cell` : 'traffic one window per cell',
    typeof o.preset === 'string' ? `preset ${o.preset}` : undefined,
  ].filter((s): s is string => s !== undefined);
  const what = sides.length > 1 ? `${sides.map((s) => s.label).join(' vs ')}: ` : '';
  return {
    title: `${what}swc bench on ${redis}`,
    subtitle: [settings.join(', '), config, "memory: MEMORY USAGE … SAMPLES 0 summed over a light's keys; 1 KB = 1024 bytes"].filter((s) => s.length > 0),
  };
}

/** The latency series of a panel: per layout (and side), p50 and p99 of a request, each with its range over the rounds. */
function latencySeries(cells: readonly SidedCell[], sides: readonly ChartSide[], layouts: readonly string[]): ChartSeries[] {
  const compared = sides.length > 1;
  const out: ChartSeries[] = [];
  for (const layout of layouts) {
    for (const side of sides) {
      for (const marker of LATENCY_MARKERS) {
        const points = cells
          .filter((c) => c.side === side && c.cell.layout === layout)
          .flatMap(({ cell }): ChartPoint[] => {
            const rounds = cell.throughput?.request.rounds;
            if (!rounds || rounds.count < 2) return [];
            const spread = rounds[marker.field];
            return [{ x: cell.windowSeconds, y: spread.median, low: spread.min, high: spread.max, label: `${spread.median.toPrecision(2)} ms` }];
          })
          .sort((a, b) => a.x - b.x);
        if (points.length === 0) continue;
        const name = `${layout} ${marker.label}${compared ? ` (${side.label})` : ''}`;
        out.push({ name, layout, side: compared ? side.label : null, marker: marker.label, points });
      }
    }
  }
  return out;
}

/**
 * The panels of one result, or of two compared (baseline first), as
 * selected by name (by default the hero alone, see {@link PANEL_NAMES}).
 * Compared, memory panels draw the percent change of each cell from the
 * baseline rather than two lines that would lie on top of each other.
 * Latency is drawn only from cells measured over two rounds or more: each
 * point the median, with a bar from the lowest to the highest round.
 * With the comparison's `gate` verdict, the hero is the gate's: it draws
 * the rate of the cell the verdict turns on ({@link chartVerdict}) and says
 * it, each compared panel carries the tolerance as a band and marks the
 * points that failed.
 */
export function chartModel(sides: readonly ChartSide[], selected: readonly PanelName[] = DEFAULT_PANELS, gate?: Verdict): ChartModel {
  const cells: SidedCell[] = sides.flatMap((side) => side.report.results.map((cell) => ({ side, cell })));
  const verdict = gate && sides.length > 1 ? chartVerdict(gate) : undefined;
  // A cell that grew (failing or not): the hero draws its rate and headlines it; else the highest rate, as for one result.
  const told = verdict && (!verdict.ok || verdict.change > 0) ? verdict : undefined;
  const layouts = unique(cells.map((c) => c.cell.layout));
  const windows = sortedUnique(cells.map((c) => c.cell.windowSeconds));
  const rates = sortedUnique(cells.map((c) => c.cell.rate));
  const compared = sides.length > 1;
  const panels: ChartPanel[] = [];
  const notes: string[] = [];
  const heroRate = told ? told.rate : rates.at(-1);
  const memoryTitle = compared ? 'bytes per light, % change from baseline' : 'KB per light';
  const windowTicks = windows.map((w) => ({ value: w, label: formatWindow(w) }));
  const rateTicks = rates.map((r) => ({ value: r, label: rateLabel(r) }));
  const byWindow = (rate: number, name: PanelName, labels: boolean): ChartPanel => {
    const at = cells.filter((c) => c.cell.rate === rate);
    const series = compared
      ? changeSeries(at, sides, layouts, (cell) => cell.windowSeconds, gate)
      : seriesOf(at, sides, layouts, (cell) => memoryPoint(cell, cell.windowSeconds));
    const where = (x: number): string => `${formatWindow(x)} @ ${rateLabel(rate)}`;
    const note = name === 'hero' ? (compared ? (told ? verdictNote(told) : changeNote(series, where)) : ratioNote(series, where)) : undefined;
    const band = compared ? bandOf(series) : undefined;
    return {
      ...(band ? { band } : {}),
      name,
      kind: compared ? 'change-by-window' : 'memory-by-window',
      title: compared ? `memory per light, change from baseline, by window at ${rateLabel(rate)}` : `memory per light by window at ${rateLabel(rate)}`,
      ...(note !== undefined ? { note } : {}),
      xTitle: 'window',
      yTitle: memoryTitle,
      xTicks: windowTicks,
      xLog: spansDecade(windows),
      style: 'lines',
      labels,
      series,
    };
  };

  for (const name of selected) {
    if (name === 'hero') {
      if (heroRate !== undefined) panels.push(byWindow(heroRate, 'hero', true));
    } else if (name === 'window') {
      // With the hero, its rate is drawn once: by the hero.
      const hero = selected.includes('hero') ? heroRate : undefined;
      for (const rate of rates) if (rate !== hero) panels.push(byWindow(rate, 'window', compared));
    } else if (name === 'rate') {
      if (rates.length < 2) {
        notes.push('rate: not drawn, the result has one rate (memory against rate needs two or more)');
        continue;
      }
      for (const windowSeconds of windows) {
        const at = cells.filter((c) => c.cell.windowSeconds === windowSeconds);
        const series = compared
          ? changeSeries(at, sides, layouts, (cell) => cell.rate, gate)
          : seriesOf(at, sides, layouts, (cell) => memoryPoint(cell, cell.rate));
        const band = compared ? bandOf(series) : undefined;
        panels.push({
          ...(band ? { band } : {}),
          name,
          kind: compared ? 'change-by-rate' : 'memory-by-rate',
          title: compared
            ? `memory per light, change from baseline, by rate, ${formatWindow(windowSeconds)} window`
            : `memory per light by rate, ${formatWindow(windowSeconds)} window`,
          xTitle: 'requests per second per light',
          yTitle: memoryTitle,
          xTicks: rateTicks,
          xLog: spansDecade(rates),
          style: 'lines',
          labels: compared,
          series,
        });
      }
    } else {
      const before = panels.length;
      for (const rate of rates) {
        const series = latencySeries(
          cells.filter((c) => c.cell.rate === rate),
          sides,
          layouts,
        );
        if (series.length === 0) continue;
        panels.push({
          name,
          kind: 'latency',
          title: `request latency (a read, then a write) by window at ${rateLabel(rate)}`,
          note: 'median of the rounds; the bar spans the fastest to the slowest round',
          xTitle: 'window',
          yTitle: 'latency, ms',
          xTicks: windowTicks,
          xLog: spansDecade(windows),
          style: 'ranges',
          labels: false,
          series,
        });
      }
      if (panels.length === before) {
        const measured = cells.some((c) => c.cell.throughput !== undefined);
        notes.push(
          measured
            ? 'latency: not drawn, no cell was measured over 2 rounds or more (swc bench --rounds 2 or more): one run of a percentile is noise'
            : 'latency: not drawn, the result has no throughput figures (it ran with --no-throughput)',
        );
      }
    }
  }

  const yScales: Partial<Record<PanelKind, { min: number; max: number; log: boolean }>> = {};
  for (const kind of unique(panels.map((p) => p.kind))) {
    const points = panels.filter((p) => p.kind === kind).flatMap((p) => p.series.flatMap((s) => s.points));
    if (kind === 'change-by-window' || kind === 'change-by-rate') {
      // The tolerance band is drawn whole: its limits are on the axis too.
      const limits = panels.filter((p) => p.kind === kind).flatMap((p) => (p.band ?? []).flatMap((b) => [b.limit, -b.limit]));
      const ys = [...points.map((pt) => pt.y), ...limits].filter((y) => Number.isFinite(y));
      if (ys.length === 0) continue;
      // Zero is always on a change axis: it is where "no change" lies.
      yScales[kind] = { min: Math.min(0, minOf(ys)), max: Math.max(0, maxOf(ys)), log: false };
      continue;
    }
    const ys = points
      .flatMap((pt) => [
        pt.y,
        ...(pt.published !== undefined ? [pt.published] : []),
        ...(pt.low !== undefined ? [pt.low] : []),
        ...(pt.high !== undefined ? [pt.high] : []),
      ])
      .filter((y) => Number.isFinite(y) && y > 0);
    if (ys.length === 0) continue;
    yScales[kind] = { min: minOf(ys), max: maxOf(ys), log: spansDecade(ys) };
  }
  const { title, subtitle } = describe(sides);
  return {
    title,
    subtitle,
    panels: panels.filter((p) => p.series.length > 0),
    yScales,
    layouts,
    sides: compared ? sides.map((s) => s.label) : [],
    hasPublished: panels.some((p) => p.series.some((s) => s.points.some((pt) => pt.published !== undefined))),
    notes,
    ...(verdict ? { verdict } : {}),
  };
}

/** The tolerance band of a compared panel: per x, the tightest limit of its points; undefined without limits. */
function bandOf(series: readonly ChartSeries[]): { x: number; limit: number }[] | undefined {
  const byX = new Map<number, number>();
  for (const s of series) for (const p of s.points) if (p.limit !== undefined) byX.set(p.x, Math.min(byX.get(p.x) ?? Number.POSITIVE_INFINITY, p.limit));
  if (byX.size === 0) return undefined;
  return [...byX].sort(([a], [b]) => a - b).map(([x, limit]) => ({ x, limit }));
}
