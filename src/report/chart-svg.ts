import type { Spec } from 'vega';
import type { ChartModel, ChartPanel } from './chart-data.js';
import { visible } from './style.js';

/**
 * Series colours (one per layout, in run order). Exported so tests can find
 * each series' pixels; colour-blind-safe hues first.
 */
export const SERIES_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'] as const;
/** Stroke dash per compared side: the baseline dashed, the current solid. */
const SIDE_DASH = [[6, 4], []];
const PANEL_WIDTH = 340;
const PANEL_HEIGHT = 230;
/** Room between panels for the next panel's y axis, and for an x axis and the next title. */
const GAP_X = 100;
const GAP_Y = 90;
const COLUMNS = 2;
const FONT = 'Helvetica, Arial, "DejaVu Sans", sans-serif';
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

/** One panel as a Vega group: its own x scale and axes, the shared colour scale, lines, points, published markers. */
function panelGroup(panel: ChartPanel, index: number, model: ChartModel): Record<string, unknown> {
  const y = model.yScales[panel.kind];
  const yLog = y?.log ?? false;
  const yDomain = y ? (yLog ? logDomain(y.min, y.max) : [0, y.max * 1.05]) : undefined;
  const xs = panel.series.flatMap((s) => s.points.map((p) => p.x));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  // A single x gets a little room either side, or the scale collapses to a point.
  const xDomain = xMin === xMax ? (panel.xLog ? [xMin / 2, xMax * 2] : [xMin - 1, xMax + 1]) : panel.xLog ? [xMin / 1.15, xMax * 1.15] : [xMin - (xMax - xMin) * 0.05, xMax + (xMax - xMin) * 0.05];
  const tickText = Object.fromEntries(panel.xTicks.map((t) => [String(t.value), t.label]));
  const points = `points${index}`;
  const published = `published${index}`;
  return {
    type: 'group',
    name: `panel${index}`,
    role: 'panel',
    encode: {
      update: {
        x: { value: (index % COLUMNS) * (PANEL_WIDTH + GAP_X) },
        y: { value: Math.floor(index / COLUMNS) * (PANEL_HEIGHT + GAP_Y) },
        width: { value: PANEL_WIDTH },
        height: { value: PANEL_HEIGHT },
      },
    },
    title: { text: panel.title, fontSize: 12, font: FONT, offset: 8 },
    data: [
      { name: points, source: 'points', transform: [{ type: 'filter', expr: `datum.panel === ${index}` }] },
      { name: published, source: points, transform: [{ type: 'filter', expr: 'isValid(datum.published)' }] },
    ],
    scales: [
      { name: 'x', type: panel.xLog ? 'log' : 'linear', domain: xDomain, range: [0, PANEL_WIDTH], zero: false, nice: false },
      { name: 'y', type: yLog ? 'log' : 'linear', domain: yDomain ?? { data: points, field: 'y' }, range: [PANEL_HEIGHT, 0], zero: !yLog, nice: !yLog },
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
        ...(yLog && yDomain ? { values: logTicks(yDomain[0] as number, yDomain[1] as number) } : { tickCount: 6 }),
        encode: { labels: { update: { text: { signal: yLog ? `datum.value >= 1000 ? format(datum.value, ',') : format(datum.value, '~r')` : 'datum.label' } } } },
        labelFont: FONT,
        titleFont: FONT,
      },
    ],
    marks: [
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
        encode: { enter: { x: { scale: 'x', field: 'x' }, y: { scale: 'y', field: 'y' }, fill: { field: 'color' }, size: { value: 30 }, shape: { value: 'circle' } } },
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
    ],
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
    panels: model.panels.map((p) => ({
      ...p,
      title: visible(p.title),
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
  const rows = model.panels.flatMap((panel, index) =>
    panel.series.flatMap((s) =>
      s.points.map((p) => ({
        panel: index,
        series: s.name,
        layout: s.layout,
        color: colorOf(s.layout),
        dash: s.side === null ? [] : (SIDE_DASH[model.sides.indexOf(s.side)] ?? []),
        x: p.x,
        y: p.y,
        published: p.published ?? null,
      })),
    ),
  );
  const legends: Record<string, unknown>[] = [
    { stroke: 'layoutColor', title: 'layout', symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300, orient: 'right', labelFont: FONT, titleFont: FONT, labelLimit: 400 },
  ];
  const scales: Record<string, unknown>[] = [{ name: 'layoutColor', type: 'ordinal', domain: [...model.layouts], range: model.layouts.map(colorOf) }];
  if (model.sides.length > 0) {
    scales.push({ name: 'sideDash', type: 'ordinal', domain: [...model.sides], range: model.sides.map((_, i) => SIDE_DASH[i] ?? []) });
    legends.push({ strokeDash: 'sideDash', title: 'result', symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300, symbolStrokeColor: '#444', orient: 'right', labelFont: FONT, titleFont: FONT, labelLimit: 400 });
  }
  if (model.hasPublished) {
    scales.push({ name: 'publishedShape', type: 'ordinal', domain: [PUBLISHED_LABEL], range: ['diamond'] });
    legends.push({ shape: 'publishedShape', title: 'marker', symbolStrokeColor: '#444', symbolFillColor: 'transparent', symbolSize: 90, orient: 'right', labelFont: FONT, titleFont: FONT });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    background: 'white',
    padding: 16,
    title: { text: model.title, subtitle: [...model.subtitle], anchor: 'start', font: FONT, subtitleFont: FONT, fontSize: 15, subtitleFontSize: 11, offset: 12, limit: 0 },
    data: [{ name: 'points', values: rows }],
    scales,
    legends,
    // Panels are placed by hand rather than with a Vega grid layout, so the legends know the plot's size and sit to its right.
    width: Math.min(COLUMNS, model.panels.length) * (PANEL_WIDTH + GAP_X) - GAP_X,
    height: Math.ceil(model.panels.length / COLUMNS) * (PANEL_HEIGHT + GAP_Y) - GAP_Y,
    marks: model.panels.map((panel, index) => panelGroup(panel, index, model)),
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
