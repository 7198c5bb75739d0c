import { maxOf, minOf } from '../core/arrays.js';
import asciichart from 'asciichart';
import type { ChartModel, ChartPanel, ChartSeries } from './chart-data.js';
import { visible } from './style.js';

/** Options of {@link renderChartTerminal}. */
export interface TerminalChartOptions {
  /** Columns available (the terminal's width); the charts never draw wider. */
  readonly width: number;
  /** ANSI colour per series; off gives plain text, told apart by the labels at each line's end. */
  readonly color: boolean;
  /** Rows of each panel's plot area. */
  readonly height?: number;
}

/** asciichart's colours in the order series get them; the same order as the SVG palette's hues. */
const COLORS = [
  asciichart.blue,
  asciichart.red,
  asciichart.green,
  asciichart.magenta,
  asciichart.cyan,
  asciichart.yellow,
  asciichart.lightblue,
  asciichart.lightred,
];
const RESET = asciichart.reset;
/** Columns of the y labels, the axis included. */
const LABEL_WIDTH = 9;
const MIN_PLOT_WIDTH = 16;
const DEFAULT_HEIGHT = 10;

/** `1234.5` → `1,235`, `12.34` → `12.3`, `0.1234` → `0.12`, `2500000` → `2.50M`: at most 7 characters below a billion. */
function number(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (v >= 1000) return Math.round(v).toLocaleString('en-US');
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

/**
 * A series' y at every column, linearly interpolated between its points (in
 * log space on a log axis); outside its first and last point it holds their value.
 */
function resample(series: ChartSeries, columns: number, x: (v: number) => number, from: number, to: number, y: (v: number) => number): number[] {
  const pts = series.points.map((p) => ({ x: x(p.x), y: y(p.y) }));
  const first = pts[0];
  const last = pts.at(-1);
  if (!first || !last) return [];
  return Array.from({ length: columns }, (_, c) => {
    const at = columns === 1 ? from : from + ((to - from) * c) / (columns - 1);
    if (at <= first.x) return first.y;
    if (at >= last.x) return last.y;
    const i = pts.findIndex((p) => p.x >= at);
    const r = pts[i] ?? last;
    const l = pts[i - 1] ?? first;
    return l.y + ((r.y - l.y) * (at - l.x)) / (r.x - l.x);
  });
}

/** The x values every series of a panel has: a line can only be drawn where all of them are, asciichart has no gaps. */
function commonXs(panel: ChartPanel): number[] {
  const [first, ...rest] = panel.series;
  if (!first) return [];
  return first.points.map((p) => p.x).filter((x) => rest.every((s) => s.points.some((p) => p.x === x)));
}

function renderPanel(panel: ChartPanel, model: ChartModel, options: TerminalChartOptions): string {
  const paint = (text: string, index: number): string => (options.color ? `${COLORS[index % COLORS.length] ?? ''}${text}${RESET}` : text);
  const colorOf = (s: ChartSeries): number => model.layouts.indexOf(s.layout);
  const scale = model.yScales[panel.kind];
  const logY = scale?.log ?? false;
  const xs = commonXs(panel);
  const dropped = panel.series.flatMap((s) =>
    s.points.filter((p) => !xs.includes(p.x)).map((p) => `${s.name} at ${panel.xTicks.find((t) => t.value === p.x)?.label ?? p.x}`),
  );
  const header = `${panel.title} (${panel.yTitle}${logY ? ', log scale' : ''})`;
  const note = panel.note !== undefined ? wrap(visible(panel.note), options.width) : [];
  // The panel's note speaks of the SVG's bars; here the range is written out.
  if (panel.style === 'ranges')
    return rangePanel(panel, wrap(`${panel.title} (${panel.yTitle}): median of the rounds (fastest–slowest round)`, options.width), paint, colorOf);
  // Bars are drawn to a linear scale whatever the values span: their lengths are compared, not read off an axis.
  if (xs.length < 2) return barPanel(panel, [...wrap(`${panel.title} (${panel.yTitle})`, options.width), ...note].join('\n'), options, paint, colorOf);

  const series = panel.series.map((s) => ({ ...s, points: s.points.filter((p) => xs.includes(p.x)) }));
  const tx = (v: number): number => (panel.xLog ? Math.log10(v) : v);
  const ty = (v: number): number => (logY ? Math.log10(v) : v);
  const from = tx(minOf(xs));
  const to = tx(maxOf(xs));
  // Each line ends with its name (and, on a labelled panel, its last value), so it can be told apart without colour.
  const ends = series.map((s) => ` ◂ ${visible(s.name)}${panel.labels && s.points.at(-1)?.label !== undefined ? ` ${s.points.at(-1)?.label ?? ''}` : ''}`);
  const endWidth = Math.max(...ends.map((e) => e.length));
  const columns = Math.max(MIN_PLOT_WIDTH, options.width - LABEL_WIDTH - endWidth - 1);
  const height = options.height ?? DEFAULT_HEIGHT;
  const data = series.map((s) => resample(s, columns, tx, from, to, ty));
  const all = data.flat();
  // A linear axis starts at zero, as the SVG's does, so line heights compare as the values do.
  const min = logY ? (scale ? ty(scale.min) : minOf(all)) : Math.min(0, minOf(all));
  const max = scale ? ty(scale.max) : maxOf(all);
  const plot = asciichart.plot(data, {
    height,
    min,
    max,
    // asciichart puts the whole label in the first cell and the axis in cell offset − 1: offset 2 keeps the label flush with the axis.
    offset: 2,
    format: (v: number) => `${number(logY ? 10 ** v : v).padStart(LABEL_WIDTH - 2)} `,
    ...(options.color ? { colors: series.map((s) => COLORS[colorOf(s) % COLORS.length] ?? asciichart.default) } : {}),
  });
  const rows = plot.split('\n');
  // asciichart's own mapping of a value to a row, so each name lands on its line's last point.
  const range = max - min;
  const ratio = range !== 0 ? height / range : 1;
  const top = Math.round(max * ratio);
  // A name whose row is taken goes to the nearest free row, so two names never share a line (and its width).
  const labels = new Map<number, string>();
  series.forEach((s, i) => {
    const wanted = top - Math.round((data[i]?.[columns - 1] ?? min) * ratio);
    const free = Array.from({ length: 2 * rows.length }, (_, k) => wanted + (k % 2 === 0 ? k / 2 : -(k + 1) / 2)).find(
      (r) => r >= 0 && r < rows.length && !labels.has(r),
    );
    if (free !== undefined) labels.set(free, paint(ends[i] ?? '', colorOf(s)));
  });
  const body = rows.map((line, r) => line + (labels.get(r) ?? ''));
  // The x axis: a tick under each measured x, its label centred below when it fits.
  const axis = [...(' '.repeat(LABEL_WIDTH - 1) + '└' + '─'.repeat(columns - 1))];
  const tickRow = [...' '.repeat(LABEL_WIDTH + columns + 12)];
  let free = 0;
  for (const x of xs) {
    const col = LABEL_WIDTH - 1 + Math.round(((tx(x) - from) / (to - from || 1)) * (columns - 1));
    axis[col] = '┬';
    const label = panel.xTicks.find((t) => t.value === x)?.label ?? String(x);
    const start = Math.max(free, col - Math.floor(label.length / 2));
    if (start + label.length > tickRow.length) continue;
    for (let i = 0; i < label.length; i++) tickRow[start + i] = label[i] ?? ' ';
    free = start + label.length + 1;
  }
  const xTitle = `${' '.repeat(LABEL_WIDTH)}${panel.xTitle}${panel.xLog ? ' (log scale)' : ''}`;
  return [
    ...wrap(header, options.width),
    ...note,
    ...body,
    axis.join(''),
    tickRow.join('').trimEnd(),
    xTitle,
    ...(dropped.length > 0 ? [`(not drawn: ${dropped.join(', ')} — not every series has that point)`] : []),
  ].join('\n');
}

/** A panel with one x value: a bar per series, scaled to the widest. */
function barPanel(
  panel: ChartPanel,
  header: string,
  options: TerminalChartOptions,
  paint: (t: string, i: number) => string,
  colorOf: (s: ChartSeries) => number,
): string {
  const rows = panel.series.flatMap((s) => s.points.map((p) => ({ s, p })));
  const xLabel = (x: number): string => panel.xTicks.find((t) => t.value === x)?.label ?? String(x);
  const names = rows.map(({ s, p }) => `${visible(s.name)} ${xLabel(p.x)}`);
  const nameWidth = Math.max(...names.map((n) => n.length));
  const values = rows.map(({ p }) => (panel.labels && p.label !== undefined ? p.label : number(p.y)));
  const valueWidth = Math.max(...values.map((v) => v.length));
  const barWidth = Math.max(4, options.width - nameWidth - valueWidth - 3);
  // A change can be negative: bars are as long as the value is far from zero, the value says which way.
  const max = Math.max(...rows.map(({ p }) => Math.abs(p.y)));
  return [
    header,
    ...rows.map(({ s, p }, i) => {
      const length = max > 0 ? Math.max(1, Math.round((Math.abs(p.y) / max) * barWidth)) : 1;
      return `${(names[i] ?? '').padEnd(nameWidth)} ${paint('█'.repeat(length), colorOf(s))} ${values[i] ?? ''}`;
    }),
  ].join('\n');
}

/** A latency panel as text: per x, each series' median and its range over the rounds (asciichart draws no error bars). */
function rangePanel(panel: ChartPanel, header: readonly string[], paint: (t: string, i: number) => string, colorOf: (s: ChartSeries) => number): string {
  const xLabel = (x: number): string => panel.xTicks.find((t) => t.value === x)?.label ?? String(x);
  const xs = [...new Set(panel.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const nameWidth = Math.max(...panel.series.map((s) => visible(s.name).length));
  const xWidth = Math.max(...xs.map((x) => xLabel(x).length));
  const lines = xs.flatMap((x) =>
    panel.series.flatMap((s) =>
      s.points
        .filter((p) => p.x === x)
        .map(
          (p) =>
            `${xLabel(x).padEnd(xWidth)}  ${paint(visible(s.name).padEnd(nameWidth), colorOf(s))}  ${number(p.y)} ms  (${number(p.low ?? p.y)}–${number(p.high ?? p.y)})`,
        ),
    ),
  );
  return [...header, ...lines].join('\n');
}

/** Breaks a line between words so it fits `width` columns (a single longer word stays whole). */
function wrap(line: string, width: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > width) {
      out.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') out.push(current);
  return out;
}

/**
 * The charts of a result as terminal text: one asciichart panel per
 * {@link ChartModel} panel, at most `width` columns wide. Lines with one
 * measured x (a single window, say) become bars.
 */
export function renderChartTerminal(model: ChartModel, options: TerminalChartOptions): string {
  if (model.panels.length === 0) return model.notes.map((n) => `${visible(n)}\n`).join('');
  const legend = model.layouts.map((l, i) => (options.color ? `${COLORS[i % COLORS.length] ?? ''}──${RESET} ${visible(l)}` : `── ${visible(l)}`)).join('   ');
  const sides = model.sides.length > 0 ? `\n(${model.sides.map(visible).join(' against ')}: memory as the change of each cell from the first)` : '';
  const head = [model.title, ...model.subtitle].flatMap((line) => wrap(visible(line), options.width));
  const notes = model.notes.flatMap((n) => wrap(visible(n), options.width));
  return `${head.join('\n')}\n${legend}${sides}\n\n${model.panels.map((p) => renderPanel(p, model, options)).join('\n\n')}\n${notes.length > 0 ? `\n${notes.join('\n')}\n` : ''}`;
}
