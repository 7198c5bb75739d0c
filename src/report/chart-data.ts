import type { BenchReport, CellResult } from '../measure/types.js';
import { formatWindow } from '../core/format.js';

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

/** One measured value: x in the panel's x unit (seconds, req/s, percentile position), y in its y unit (KB, ms). */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  /** The published figure for the same cell, in the panel's y unit (blog preset only). */
  readonly published?: number;
}

/** One line: a layout (and, when comparing, one result's side). */
export interface ChartSeries {
  /** Legend text: the layout, with the side's label when two results are compared. */
  readonly name: string;
  readonly layout: string;
  /** The side's label when two results are compared, else null. */
  readonly side: string | null;
  /** Sorted by x. */
  readonly points: readonly ChartPoint[];
}

/** Which quantity a panel shows; panels of one kind share their y range. */
export type PanelKind = 'memory-by-window' | 'memory-by-rate' | 'latency';

/** One plot: its axes' titles and ticks, and a line per series. */
export interface ChartPanel {
  readonly kind: PanelKind;
  readonly title: string;
  readonly xTitle: string;
  readonly yTitle: string;
  /** The x values worth a label, with their labels (`1 min`, `100/s`, `p99`). */
  readonly xTicks: readonly { readonly value: number; readonly label: string }[];
  /** Plot x on a log scale (its values span ten times or more). */
  readonly xLog: boolean;
  readonly series: readonly ChartSeries[];
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
}

/** A span of ten times or more is drawn on a log scale: a linear one would flatten the small values to a line on the axis. */
export const LOG_SPAN = 10;

const KB = 1024;

/** The percentiles a result holds, placed at log10(1 / (1 − p)) so p50, p99 and p99.9 are spread as latency plots usually show them. */
const PERCENTILES = [
  { field: 'p50Ms', label: 'p50', x: Math.log10(1 / 0.5) },
  { field: 'p99Ms', label: 'p99', x: Math.log10(1 / 0.01) },
  { field: 'p999Ms', label: 'p99.9', x: Math.log10(1 / 0.001) },
] as const;

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];
const sortedUnique = (values: Iterable<number>): number[] => unique(values).sort((a, b) => a - b);

function spansDecade(values: readonly number[]): boolean {
  const positive = values.filter((v) => v > 0);
  if (positive.length < 2) return false;
  return Math.max(...positive) / Math.min(...positive) >= LOG_SPAN;
}

const rateLabel = (rate: number): string => `${rate}/s`;

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
      out.push({ name: compared ? `${layout} (${side.label})` : layout, layout, side: compared ? side.label : null, points: drawn });
    }
  }
  return out;
}

const memoryPoint = (cell: CellResult, x: number): ChartPoint[] => [
  {
    x,
    y: cell.memory.bytesPerLight / KB,
    ...(cell.published ? { published: cell.published.bytes / KB } : {}),
  },
];

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
    subtitle: [settings.join(', '), config, 'memory: MEMORY USAGE … SAMPLES 0 summed over a light\'s keys; 1 KB = 1024 bytes'].filter((s) => s.length > 0),
  };
}

/**
 * The panels of one result, or of two compared (baseline first):
 * memory per light against window, one panel per rate (when there are two
 * windows or more); against rate, one panel per window (two rates or more);
 * and, when throughput ran, request latency by percentile, one panel per
 * cell. A single cell gets one memory panel against window with one point
 * per series.
 */
export function chartModel(sides: readonly ChartSide[]): ChartModel {
  const cells: SidedCell[] = sides.flatMap((side) => side.report.results.map((cell) => ({ side, cell })));
  const layouts = unique(cells.map((c) => c.cell.layout));
  const windows = sortedUnique(cells.map((c) => c.cell.windowSeconds));
  const rates = sortedUnique(cells.map((c) => c.cell.rate));
  const panels: ChartPanel[] = [];
  const memoryTitle = 'KB per light';
  const windowTicks = windows.map((w) => ({ value: w, label: formatWindow(w) }));
  const rateTicks = rates.map((r) => ({ value: r, label: rateLabel(r) }));

  if (windows.length > 1 || rates.length === 1) {
    for (const rate of rates) {
      const at = cells.filter((c) => c.cell.rate === rate);
      panels.push({
        kind: 'memory-by-window',
        title: `memory per light by window at ${rateLabel(rate)}`,
        xTitle: 'window',
        yTitle: memoryTitle,
        xTicks: windowTicks,
        xLog: spansDecade(windows),
        series: seriesOf(at, sides, layouts, (cell) => memoryPoint(cell, cell.windowSeconds)),
      });
    }
  }
  if (rates.length > 1) {
    for (const windowSeconds of windows) {
      const at = cells.filter((c) => c.cell.windowSeconds === windowSeconds);
      panels.push({
        kind: 'memory-by-rate',
        title: `memory per light by rate, ${formatWindow(windowSeconds)} window`,
        xTitle: 'requests per second per light',
        yTitle: memoryTitle,
        xTicks: rateTicks,
        xLog: spansDecade(rates),
        series: seriesOf(at, sides, layouts, (cell) => memoryPoint(cell, cell.rate)),
      });
    }
  }
  for (const windowSeconds of windows) {
    for (const rate of rates) {
      const at = cells.filter((c) => c.cell.windowSeconds === windowSeconds && c.cell.rate === rate && c.cell.throughput);
      if (at.length === 0) continue;
      const latency = seriesOf(at, sides, layouts, (cell) => {
        const request = cell.throughput?.request;
        return request ? PERCENTILES.map((p) => ({ x: p.x, y: request[p.field] })) : [];
      });
      panels.push({
        kind: 'latency',
        title: `request latency (a read, then a write), ${formatWindow(windowSeconds)} window at ${rateLabel(rate)}`,
        xTitle: 'percentile',
        yTitle: 'latency, ms',
        xTicks: PERCENTILES.map((p) => ({ value: p.x, label: p.label })),
        xLog: false,
        series: latency,
      });
    }
  }

  const yScales: Partial<Record<PanelKind, { min: number; max: number; log: boolean }>> = {};
  for (const kind of unique(panels.map((p) => p.kind))) {
    const ys = panels
      .filter((p) => p.kind === kind)
      .flatMap((p) => p.series.flatMap((s) => s.points.flatMap((pt) => (pt.published !== undefined ? [pt.y, pt.published] : [pt.y]))))
      .filter((y) => Number.isFinite(y) && y > 0);
    if (ys.length === 0) continue;
    yScales[kind] = { min: Math.min(...ys), max: Math.max(...ys), log: spansDecade(ys) };
  }
  const { title, subtitle } = describe(sides);
  return {
    title,
    subtitle,
    panels: panels.filter((p) => p.series.length > 0),
    yScales,
    layouts,
    sides: sides.length > 1 ? sides.map((s) => s.label) : [],
    hasPublished: cells.some((c) => c.cell.published !== undefined),
  };
}
