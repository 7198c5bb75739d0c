import { maxOf, minOf } from '../core/arrays.js';
import type { Spec } from 'vega';
import type { ChartModel, ChartPanel } from './chart-data.js';
import { visible } from './style.js';

/**
 * Series colours (one per layout, in run order). Exported so tests can find
 * each series' pixels; colour-blind-safe hues first.
 */
export const SERIES_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'] as const;
/** Stroke dash per compared side (latency bars): the baseline dashed, the current solid. */
const SIDE_DASH = [[6, 4], []];
const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];
/** Panel size in a grid of several, and of a chart with one panel (the hero alone): drawn larger, as a figure for a post. */
const GRID_PANEL = { width: 340, height: 230 };
const SINGLE_PANEL = { width: 600, height: 360 };
/** Room between panels for the next panel's y axis, and for an x axis and the next title. */
const GAP_X = 100;
const GAP_Y = 125;
const COLUMNS = 2;
const FONT = 'Helvetica, Arial, "DejaVu Sans", sans-serif';
/** Pixels between the series of a ranges panel at one x, so their bars stand side by side. */
const DODGE = 9;
/** Marker shape per latency percentile. */
const MARKER_SHAPES: Readonly<Record<string, string>> = { p50: 'circle', p99: 'triangle-up' };
/** The cross on a failed point, and the tolerance band (neutral: inside it is where a change passes). */
export const FAILED_COLOR = '#c0392b';
const BAND_COLOR = '#7f7f7f';

/**
 * A band's corners: from −limit to +limit at each x, stretched to the
 * panel's edges when it is flat (one limit everywhere: a fractional
 * tolerance), so it reads as a band and not a box between two points.
 */
function bandValues(band: NonNullable<ChartPanel['band']>, xDomain: readonly number[]): { x: number; low: number; high: number }[] {
  const limits = band.map((b) => b.limit);
  const flat = band.length < 2 || limits.every((l) => l === limits[0]);
  const corner = (x: number, limit: number) => ({ x, low: -limit, high: limit });
  if (flat) return [corner(xDomain[0] ?? 0, limits[0] ?? 0), corner(xDomain[1] ?? 0, limits[0] ?? 0)];
  return band.map((b) => corner(b.x, b.limit));
}

/** The legend entry for the published figures' markers. */
export const PUBLISHED_LABEL = 'published figure';

/** 1, 2 and 5 per decade inside [min, max]: log-axis labels that stay readable. */
function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min && v <= max) out.push(v);
    }
  }
  return out;
}

/** A log domain widened to whole 1-2-5 steps, so the ends carry a label. */
function logDomain(min: number, max: number): [number, number] {
  const steps = (e: number) => [1, 2, 5].map((m) => m * 10 ** e);
  const lo = Math.floor(Math.log10(min));
  const hi = Math.ceil(Math.log10(max));
  const below = [...steps(lo - 1), ...steps(lo)].filter((v) => v <= min).pop() ?? 10 ** lo;
  const above = [...steps(hi - 1), ...steps(hi)].find((v) => v >= max) ?? 10 ** hi;
  return [below, above];
}

type Size = { readonly width: number; readonly height: number };

type Box = Size & { readonly x: number; readonly y: number };

/**
 * Where each panel goes: a chart of one panel draws it large; otherwise the
 * hero takes a row of its own, as wide as two grid panels (its note is a
 * long line), and the others follow two to a row.
 */
export function panelBoxes(model: ChartModel): Box[] {
  if (model.panels.length === 1) return [{ x: 0, y: 0, ...SINGLE_PANEL }];
  const full = COLUMNS * GRID_PANEL.width + (COLUMNS - 1) * GAP_X;
  const boxes: Box[] = [];
  let y = 0;
  let column = 0;
  for (const panel of model.panels) {
    if (panel.name === 'hero') {
      if (column > 0) y += GRID_PANEL.height + GAP_Y;
      boxes.push({ x: 0, y, width: full, height: SINGLE_PANEL.height });
      y += SINGLE_PANEL.height + GAP_Y;
      column = 0;
      continue;
    }
    boxes.push({ x: column * (GRID_PANEL.width + GAP_X), y, ...GRID_PANEL });
    column += 1;
    if (column === COLUMNS) {
      column = 0;
      y += GRID_PANEL.height + GAP_Y;
    }
  }
  return boxes;
}

/** Where a y value sits on a panel's axis, 0 at the bottom and 1 at the top. */
function yFraction(y: number, domain: readonly [number, number] | undefined, log: boolean): number {
  if (!domain) return 0.5;
  const [lo, hi] = log ? [Math.log10(domain[0]), Math.log10(domain[1])] : domain;
  const v = log ? Math.log10(Math.max(y, Number.MIN_VALUE)) : y;
  return hi === lo ? 0.5 : (v - lo) / (hi - lo);
}

/** The y domain of a panel: a log domain on whole steps, a linear one from zero (a change axis around zero, with room for labels). */
function yDomainOf(panel: ChartPanel, model: ChartModel): [number, number] | undefined {
  const y = model.yScales[panel.kind];
  if (!y) return undefined;
  // Room under the lowest point for its label; every panel of the kind alike, so they stay comparable.
  const labelled = model.panels.some((p) => p.kind === panel.kind && p.labels);
  if (y.log) return logDomain(labelled ? y.min / 1.6 : y.min, y.max);
  if (panel.kind === 'change-by-window' || panel.kind === 'change-by-rate') {
    const span = Math.max(y.max - y.min, 0.5);
    // Both ends padded, zero included: a label below a point at 0% stays above the x axis.
    return [y.min - span * 0.15, y.max + span * 0.15];
  }
  return [0, y.max * (labelled ? 1.12 : 1.05)];
}

/** One panel as a Vega group: its own x scale and axes, the shared colour scale, lines or ranges, points, labels, published markers. */
function panelGroup(panel: ChartPanel, index: number, model: ChartModel, size: Box): Record<string, unknown> {
  const y = model.yScales[panel.kind];
  const yLog = y?.log ?? false;
  const yDomain = yDomainOf(panel, model);
  const xs = panel.series.flatMap((s) => s.points.map((p) => p.x));
  const xMin = minOf(xs);
  const xMax = maxOf(xs);
  // Room either side for a point's label and a ranges panel's side-by-side bars; a single x gets room, or the scale collapses to a point.
  const pad = panel.labels || panel.style === 'ranges' ? 0.12 : 0.05;
  const logPad = panel.labels || panel.style === 'ranges' ? 1.35 : 1.15;
  const xDomain =
    xMin === xMax
      ? panel.xLog
        ? [xMin / 2, xMax * 2]
        : [xMin - Math.max(1, xMin * 0.5), xMax + Math.max(1, xMax * 0.5)]
      : panel.xLog
        ? [xMin / logPad, xMax * logPad]
        : [xMin - (xMax - xMin) * pad, xMax + (xMax - xMin) * pad];
  const tickText = Object.fromEntries(panel.xTicks.map((t) => [String(t.value), t.label]));
  const points = `points${index}`;
  const published = `published${index}`;
  const labelled = `labelled${index}`;
  const isChange = panel.kind === 'change-by-window' || panel.kind === 'change-by-rate';
  const at = { scale: 'x', field: 'x', offset: { field: 'dx' } };
  const lineMarks = [
    {
      type: 'group',
      name: `lines${index}`,
      from: { facet: { name: `series${index}`, data: points, groupby: 'series' } },
      marks: [
        {
          type: 'line',
          role: 'series',
          from: { data: `series${index}` },
          encode: {
            enter: {
              x: { scale: 'x', field: 'x' },
              y: { scale: 'y', field: 'y' },
              stroke: { field: 'color' },
              strokeDash: { field: 'dash' },
              strokeWidth: { value: 2 },
            },
          },
        },
      ],
    },
    {
      type: 'symbol',
      from: { data: points },
      encode: {
        enter: {
          x: { scale: 'x', field: 'x' },
          y: { scale: 'y', field: 'y' },
          fill: { field: 'color' },
          size: { value: panel.labels ? 45 : 30 },
          shape: { value: 'circle' },
        },
      },
    },
    {
      type: 'symbol',
      from: { data: published },
      encode: {
        enter: {
          x: { scale: 'x', field: 'x' },
          y: { scale: 'y', field: 'published' },
          stroke: { field: 'color' },
          strokeWidth: { value: 1.5 },
          fill: { value: 'transparent' },
          size: { value: 90 },
          shape: { value: 'diamond' },
        },
      },
    },
  ];
  const cap = (field: 'low' | 'high') => ({
    type: 'rule',
    from: { data: points },
    encode: {
      enter: {
        x: { scale: 'x', field: 'x', offset: { signal: 'datum.dx - 3' } },
        x2: { scale: 'x', field: 'x', offset: { signal: 'datum.dx + 3' } },
        y: { scale: 'y', field },
        stroke: { field: 'color' },
        strokeWidth: { value: 1.5 },
      },
    },
  });
  const rangeMarks = [
    {
      type: 'rule',
      role: 'range',
      from: { data: points },
      encode: {
        enter: {
          x: at,
          y: { scale: 'y', field: 'low' },
          y2: { scale: 'y', field: 'high' },
          stroke: { field: 'color' },
          strokeDash: { field: 'dash' },
          strokeWidth: { value: 1.5 },
        },
      },
    },
    cap('low'),
    cap('high'),
    {
      type: 'symbol',
      from: { data: points },
      encode: {
        enter: {
          x: at,
          y: { scale: 'y', field: 'y' },
          fill: { signal: "datum.hollow ? 'white' : datum.color" },
          stroke: { field: 'color' },
          strokeWidth: { value: 1.5 },
          size: { value: 40 },
          shape: { field: 'shape' },
        },
      },
    },
  ];
  // Compared: the gate's tolerance as a band behind the lines (growth past its top fails), and a cross on each failed point.
  const bandMarks = panel.band
    ? [
        {
          type: 'area',
          role: 'tolerance-band',
          clip: true,
          from: { data: `band${index}` },
          encode: {
            enter: {
              x: { scale: 'x', field: 'x' },
              y: { scale: 'y', field: 'high' },
              y2: { scale: 'y', field: 'low' },
              fill: { value: BAND_COLOR },
              fillOpacity: { value: 0.12 },
              stroke: { value: BAND_COLOR },
              strokeOpacity: { value: 0.35 },
              strokeDash: { value: [4, 3] },
            },
          },
        },
      ]
    : [];
  const failedMarks = isChange
    ? [
        {
          type: 'symbol',
          role: 'failed',
          from: { data: `failed${index}` },
          encode: {
            enter: {
              x: at,
              y: { scale: 'y', field: 'y' },
              shape: { value: 'cross' },
              angle: { value: 45 },
              size: { value: 160 },
              fill: { value: FAILED_COLOR },
            },
          },
        },
      ]
    : [];
  const labelMarks = panel.labels
    ? [
        {
          type: 'text',
          role: 'value-label',
          from: { data: labelled },
          encode: {
            enter: {
              x: { scale: 'x', field: 'x' },
              y: { scale: 'y', field: 'y' },
              text: { field: 'label' },
              align: { value: 'center' },
              baseline: { signal: "datum.above ? 'bottom' : 'top'" },
              dy: { signal: 'datum.above ? -9 : 9' },
              fill: { field: 'color' },
              font: { value: FONT },
              fontSize: { value: 11 },
              fontWeight: { value: 'bold' },
            },
          },
        },
      ]
    : [];
  const zeroRule = isChange
    ? [
        {
          type: 'rule',
          role: 'zero',
          encode: {
            enter: { x: { value: 0 }, x2: { field: { group: 'width' } }, y: { scale: 'y', value: 0 }, stroke: { value: '#888' }, strokeWidth: { value: 1 } },
          },
        },
      ]
    : [];
  return {
    type: 'group',
    name: `panel${index}`,
    role: 'panel',
    encode: {
      update: {
        x: { value: size.x },
        y: { value: size.y },
        width: { value: size.width },
        height: { value: size.height },
      },
    },
    title: {
      text: panel.title,
      ...(panel.note !== undefined
        ? {
            subtitle: panel.note,
            subtitleFontSize: panel.name === 'hero' ? 13 : 11,
            subtitleColor: '#222',
            subtitleFont: FONT,
            subtitleFontWeight: panel.name === 'hero' ? 'bold' : 'normal',
          }
        : {}),
      fontSize: 12,
      font: FONT,
      offset: 10,
      limit: 0,
      anchor: 'start',
    },
    data: [
      { name: points, source: 'points', transform: [{ type: 'filter', expr: `datum.panel === ${index}` }] },
      { name: published, source: points, transform: [{ type: 'filter', expr: 'isValid(datum.published)' }] },
      { name: labelled, source: points, transform: [{ type: 'filter', expr: 'isValid(datum.label)' }] },
      { name: `failed${index}`, source: points, transform: [{ type: 'filter', expr: 'datum.failed' }] },
      ...(panel.band ? [{ name: `band${index}`, values: bandValues(panel.band, xDomain) }] : []),
    ],
    scales: [
      { name: 'x', type: panel.xLog ? 'log' : 'linear', domain: xDomain, range: [0, size.width], zero: false, nice: false },
      {
        name: 'y',
        type: yLog ? 'log' : 'linear',
        domain: yDomain ?? { data: points, field: 'y' },
        range: [size.height, 0],
        zero: !yLog && !isChange,
        nice: !yLog && !isChange,
      },
    ],
    axes: [
      {
        orient: 'bottom',
        scale: 'x',
        title: panel.xTitle + (panel.xLog ? ' (log scale)' : ''),
        values: panel.xTicks.map((t) => t.value),
        encode: { labels: { update: { text: { signal: `${JSON.stringify(tickText)}[datum.value + ''] || datum.label` } } } },
        labelFont: FONT,
        titleFont: FONT,
      },
      {
        orient: 'left',
        scale: 'y',
        title: panel.yTitle + (yLog ? ' (log scale)' : ''),
        grid: true,
        gridScale: 'x',
        gridColor: '#eee',
        ...(yLog && yDomain ? { values: logTicks(yDomain[0], yDomain[1]) } : { tickCount: 6 }),
        encode: {
          labels: {
            update: {
              text: {
                signal: yLog
                  ? `datum.value >= 1000 ? format(datum.value, ',') : format(datum.value, '~r')`
                  : isChange
                    ? `(datum.value > 0 ? '+' : '') + format(datum.value, '~r') + '%'`
                    : 'datum.label',
              },
            },
          },
        },
        labelFont: FONT,
        titleFont: FONT,
      },
    ],
    marks: [...bandMarks, ...zeroRule, ...(panel.style === 'lines' ? lineMarks : rangeMarks), ...failedMarks, ...labelMarks],
  };
}

/**
 * The model with every text made printable: XML 1.0 forbids most control
 * characters, so a layout or file name holding ESC would make the whole SVG
 * unreadable. Vega escapes `<`, `&` and quotes itself.
 */
function printable(model: ChartModel): ChartModel {
  return {
    ...model,
    title: visible(model.title),
    subtitle: model.subtitle.map(visible),
    layouts: model.layouts.map(visible),
    sides: model.sides.map(visible),
    notes: model.notes.map(visible),
    panels: model.panels.map((p) => ({
      ...p,
      title: visible(p.title),
      ...(p.note !== undefined ? { note: visible(p.note) } : {}),
      series: p.series.map((s) => ({ ...s, name: visible(s.name), layout: visible(s.layout), side: s.side === null ? null : visible(s.side) })),
    })),
  };
}

/**
 * The Vega specification of a chart model: one panel per model panel in a
 * grid, a shared colour per layout, the baseline dashed when two results are
 * compared, the published figures as hollow diamonds, and a title naming the
 * Redis build and the settings. Pure: the same model gives the same spec.
 */
export function chartSpec(raw: ChartModel): Spec {
  const model = printable(raw);
  const colorOf = (layout: string): string => SERIES_COLORS[model.layouts.indexOf(layout) % SERIES_COLORS.length] ?? '#000';
  const boxes = panelBoxes(model);
  const rows = model.panels.flatMap((panel, index) =>
    panel.series.flatMap((s, i) =>
      s.points.map((p) => {
        // A label goes above its point when no other series is higher at that x, else below: two labels at one x do not collide.
        // One too near the bottom of the plot goes above all the same, off the x axis.
        // At a tie the earlier series counts as higher, so two labels of one value are not written over each other.
        const higher = panel.series.some((o, j) => j !== i && o.points.some((q) => q.x === p.x && (q.y > p.y || (q.y === p.y && j < i))));
        const low = yFraction(p.y, yDomainOf(panel, model), model.yScales[panel.kind]?.log ?? false) < 0.1;
        return {
          panel: index,
          series: s.name,
          layout: s.layout,
          color: colorOf(s.layout),
          dash: s.side === null ? [] : (SIDE_DASH[model.sides.indexOf(s.side)] ?? []),
          hollow: s.side !== null && model.sides.indexOf(s.side) === 0,
          shape: MARKER_SHAPES[s.marker ?? ''] ?? 'circle',
          dx: panel.style === 'ranges' ? (i - (panel.series.length - 1) / 2) * DODGE : 0,
          above: !higher || low,
          x: p.x,
          y: p.y,
          published: p.published ?? null,
          low: p.low ?? null,
          high: p.high ?? null,
          label: panel.labels ? (p.label ?? null) : null,
          failed: p.failed === true,
        };
      }),
    ),
  );
  const legends: Record<string, unknown>[] = [
    {
      stroke: 'layoutColor',
      title: 'layout',
      symbolType: 'stroke',
      symbolStrokeWidth: 2,
      symbolSize: 300,
      orient: 'right',
      labelFont: FONT,
      titleFont: FONT,
      labelLimit: 400,
    },
  ];
  const scales: Record<string, unknown>[] = [{ name: 'layoutColor', type: 'ordinal', domain: [...model.layouts], range: model.layouts.map(colorOf) }];
  const series = model.panels.flatMap((p) => p.series);
  // Compared, only latency keeps a series per result (memory panels draw the change): the baseline hollow and its bars dashed.
  if (series.some((s) => s.side !== null)) {
    const base = JSON.stringify(model.sides[0] ?? '');
    scales.push({ name: 'sideShape', type: 'ordinal', domain: [...model.sides], range: model.sides.map(() => 'circle') });
    legends.push({
      shape: 'sideShape',
      title: 'result',
      symbolStrokeColor: '#444',
      symbolSize: 60,
      orient: 'right',
      labelFont: FONT,
      titleFont: FONT,
      labelLimit: 400,
      encode: { symbols: { update: { fill: { signal: `datum.value === ${base} ? 'white' : '#444'` }, strokeWidth: { value: 1.5 } } } },
    });
  }
  const markers = unique(series.flatMap((s) => (s.marker === null ? [] : [s.marker])));
  if (markers.length > 0) {
    scales.push({ name: 'markerShape', type: 'ordinal', domain: markers, range: markers.map((m) => MARKER_SHAPES[m] ?? 'circle') });
    legends.push({
      shape: 'markerShape',
      title: 'latency',
      symbolFillColor: '#444',
      symbolStrokeColor: '#444',
      symbolSize: 60,
      orient: 'right',
      labelFont: FONT,
      titleFont: FONT,
    });
  }
  if (model.hasPublished) {
    scales.push({ name: 'publishedShape', type: 'ordinal', domain: [PUBLISHED_LABEL], range: ['diamond'] });
    legends.push({
      shape: 'publishedShape',
      title: 'marker',
      symbolStrokeColor: '#444',
      symbolFillColor: 'transparent',
      symbolSize: 90,
      orient: 'right',
      labelFont: FONT,
      titleFont: FONT,
    });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    background: 'white',
    padding: 16,
    title: {
      text: model.title,
      subtitle: [...model.subtitle],
      anchor: 'start',
      font: FONT,
      subtitleFont: FONT,
      fontSize: 15,
      subtitleFontSize: 11,
      offset: 12,
      limit: 0,
    },
    data: [{ name: 'points', values: rows }],
    scales,
    legends,
    // Panels are placed by hand rather than with a Vega grid layout, so the legends know the plot's size and sit to its right.
    width: Math.max(...boxes.map((b) => b.x + b.width)),
    height: Math.max(...boxes.map((b) => b.y + b.height)),
    marks: model.panels.map((panel, index) => panelGroup(panel, index, model, boxes[index] ?? { x: 0, y: 0, ...GRID_PANEL })),
  } as unknown as Spec;
}

/** Renders a chart model to a standalone SVG document with Vega, headless (no browser, no canvas). */
export async function renderChartSvg(model: ChartModel): Promise<string> {
  // Loaded on use: Vega takes longer to import than most swc commands take to run.
  const { parse, View } = await import('vega');
  const view = new View(parse(chartSpec(model)), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return `<?xml version="1.0" encoding="UTF-8"?>\n${svg}\n`;
  } finally {
    view.finalize();
  }
}
