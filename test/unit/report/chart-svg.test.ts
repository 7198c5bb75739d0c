import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { chartModel, type ChartSide, type PanelName } from '../../../src/report/chart-data.js';
import { PUBLISHED_LABEL, renderChartSvg, SERIES_COLORS } from '../../../src/report/chart-svg.js';
import { LAYOUTS, result } from './chart-fixtures.js';

interface Picture {
  width: number;
  height: number;
  /** RGBA, row by row. */
  pixels: Uint8Array;
}

/** Rasterises an SVG with the system's fonts, as a viewer would. */
function rasterise(svg: string): Picture {
  const image = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' } }).render();
  return { width: image.width, height: image.height, pixels: image.pixels };
}

/** Pixels within `tolerance` per channel of a colour, inside an optional row band. */
function count(picture: Picture, match: (r: number, g: number, b: number) => boolean, rows: [number, number] = [0, picture.height]): number {
  let n = 0;
  for (let y = rows[0]; y < Math.min(rows[1], picture.height); y++) {
    for (let x = 0; x < picture.width; x++) {
      const i = (y * picture.width + x) * 4;
      if (match(picture.pixels[i] ?? 0, picture.pixels[i + 1] ?? 0, picture.pixels[i + 2] ?? 0)) n++;
    }
  }
  return n;
}

const near = (hex: string, tolerance = 24) => {
  const [r0, g0, b0] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  return (r: number, g: number, b: number): boolean => Math.abs(r - r0) <= tolerance && Math.abs(g - g0) <= tolerance && Math.abs(b - b0) <= tolerance;
};
const dark = (r: number, g: number, b: number): boolean => r < 90 && g < 90 && b < 90;

/** The texts of the SVG's text nodes carrying a Vega role (lines of a multi-line text joined by a space). */
function texts(svg: string, role: string): string[] {
  return [...svg.matchAll(new RegExp(`class="mark-text role-${role}"[^>]*>((?:<text[^>]*>.*?</text>)+)`, 'g'))].flatMap((m) =>
    [...(m[1] ?? '').matchAll(/<text[^>]*>(.*?)<\/text>/g)].map((t) =>
      (t[1] ?? '')
        .replace(/<\/tspan><tspan[^>]*>/g, ' ')
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    ),
  );
}

const occurrences = (svg: string, needle: string): number => svg.split(needle).length - 1;

const svgOf = (sides: ChartSide[], panels?: PanelName[]): Promise<string> => renderChartSvg(chartModel(sides, panels));

/** The y (pixels, in its panel) of every point symbol, and of the zero line of a change panel. */
function pointYs(svg: string): number[] {
  const marks = svg
    .split('class="mark-symbol role-mark"')
    .slice(1)
    .map((m) => m.slice(0, m.indexOf('</g>')));
  return marks.flatMap((m) => [...m.matchAll(/<path transform="translate\([^,]+,([^)]+)\)"/g)].map((t) => Number(t[1])));
}
const zeroY = (svg: string): number => Number(/class="mark-rule role-zero"[^>]*>\s*<line transform="translate\(0,([^)]+)\)"/.exec(svg)?.[1]);

describe('SVG chart', () => {
  it('by default the hero alone: memory against window at the highest rate, each value written, and the ratio', async () => {
    const report = result([60, 180, 300, 600], [10, 100], { layouts: ['grows', 'windowed'] });
    const svg = await svgOf([{ label: 'run', report }]);
    expect(occurrences(svg, 'role-panel')).toBe(1);
    expect(occurrences(svg, 'class="mark-line role-series"')).toBe(2);
    expect(texts(svg, 'title-text')).toContain('memory per light by window at 100/s');
    // grows at 10 min and 100/s: 120 B × 60,000 events + 700 B = 7,200,700 B; windowed: 280 B × 600 s = 168,000 B: 42.9 times less.
    expect(texts(svg, 'title-subtitle')).toContain('windowed uses 43× less than grows at 10 min @ 100/s');
    expect(texts(svg, 'value-label')).toEqual(['704 KB', '2.1 MB', '3.4 MB', '6.9 MB', '16.4 KB', '49.2 KB', '82.0 KB', '164 KB']);
    // The larger layout's labels above its points, the smaller's below (they never share a row of text).
    const labels = svg.split('class="mark-text role-value-label"')[1] ?? '';
    expect(occurrences(labels.slice(0, labels.indexOf('</g>')), 'translate(')).toBe(8);
    // The hero is drawn larger than a grid panel, and renders.
    const picture = rasterise(svg);
    expect(picture.width).toBeGreaterThan(800);
    expect(count(picture, near(SERIES_COLORS[0]))).toBeGreaterThan(300);
  });

  it('a blog-preset result with every panel: panels, one line per layout per panel, published markers, legend, title; drawn to pixels', async () => {
    const report = result([60, 180, 300, 600], [10, 100], { published: true });
    const svg = await svgOf([{ label: 'run', report }], ['hero', 'window', 'rate', 'latency']);
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<svg');
    // Standalone: nothing fetched when it is opened (no linked images, fonts or styles).
    expect(svg).not.toMatch(/(?:href|src)="(?!#)|@import|url\((?!#)/);

    // The hero (100/s) + 1 panel by window (10/s, the hero has 100/s) + 4 by rate (one per window), each with a line per layout; no latency (no throughput).
    expect(occurrences(svg, 'role-panel')).toBe(6);
    expect(occurrences(svg, 'class="mark-line role-series"')).toBe(6 * LAYOUTS.length);
    expect(texts(svg, 'legend-label')).toEqual([...LAYOUTS, PUBLISHED_LABEL]);
    expect(texts(svg, 'legend-title')).toEqual(['layout', 'marker']);
    const title = texts(svg, 'title-text');
    expect(title).toContain('swc bench on Redis 7.0.15 (jemalloc-5.3.0)');
    expect(title).toContain('memory per light by window at 10/s');
    expect(title).toContain('memory per light by window at 100/s');
    expect(title).toContain('memory per light by rate, 10 min window');
    expect(texts(svg, 'title-subtitle')).toContain('flat uses 1758× less than grows at 10 min @ 100/s');
    // Values are written on the hero only: 4 windows × 3 layouts.
    expect(texts(svg, 'value-label')).toHaveLength(12);
    expect(texts(svg, 'title-subtitle').join(' ')).toContain('hash-max-listpack-entries 128');
    expect(texts(svg, 'title-subtitle').join(' ')).toContain('preset blog');
    const axisTitles = texts(svg, 'axis-title');
    expect(axisTitles).toContain('KB per light (log scale)');
    expect(axisTitles).toContain('window (log scale)');
    expect(axisTitles).toContain('requests per second per light (log scale)');
    expect(texts(svg, 'axis-label')).toEqual(expect.arrayContaining(['1 min', '3 min', '10 min', '10/s', '100/s', '1,000']));

    const picture = rasterise(svg);
    expect(picture.width).toBeGreaterThan(600);
    expect(picture.height).toBeGreaterThan(600);
    const total = picture.width * picture.height;
    const white = count(picture, (r, g, b) => r > 245 && g > 245 && b > 245);
    expect(white).toBeLessThan(total); // not blank
    expect(white).toBeGreaterThan(total / 2); // a white background, not a black box
    // Every layout's colour is drawn, and no fourth series colour is.
    for (const color of SERIES_COLORS.slice(0, LAYOUTS.length)) expect(count(picture, near(color))).toBeGreaterThan(300);
    expect(count(picture, near(SERIES_COLORS[LAYOUTS.length] as string, 10))).toBe(0);
    // The title's text is drawn: dark pixels in the top band, where no line or axis is.
    expect(count(picture, dark, [0, 22])).toBeGreaterThan(150);
  });

  it('published figures only where a cell has one, as hollow markers', async () => {
    const withFigures = await svgOf([{ label: 'run', report: result([60, 600], [10], { published: true }) }], ['window']);
    const without = await svgOf([{ label: 'run', report: result([60, 600], [10]) }], ['window']);
    expect(texts(without, 'legend-label')).toEqual([...LAYOUTS]);
    expect(texts(withFigures, 'legend-label')).toEqual([...LAYOUTS, PUBLISHED_LABEL]);
    // Two of the three layouts carry figures at two windows: four diamonds, stroked in their layout's colour.
    const diamonds = [...withFigures.matchAll(/<path[^>]*stroke="(#[0-9a-f]{6})"[^>]*stroke-width="1.5"[^>]*>/g)].map((m) => m[1]);
    expect(diamonds).toHaveLength(4);
    expect(new Set(diamonds)).toEqual(new Set(SERIES_COLORS.slice(0, 2)));
  });

  it('linear axes when the values stay within ten times', async () => {
    const svg = await svgOf([{ label: 'run', report: result([60, 120], [10], { layouts: ['windowed', 'flat'] }) }]);
    expect(texts(svg, 'axis-title')).toEqual(['window', 'KB per light']);
  });

  it('two results compared: the change of each cell from the baseline, written on it, so +2.2% stands far off zero', async () => {
    const layouts = ['windowed', 'flat'] as const;
    const svg = await svgOf([
      { label: 'base.json', report: result([60, 600], [10], { layouts: [...layouts] }) },
      { label: 'now.json', report: result([60, 600], [10], { layouts: [...layouts], scale: 1.022 }) },
    ]);
    // One line per layout (not one per result lying on top of the other).
    expect(occurrences(svg, 'class="mark-line role-series"')).toBe(2);
    expect(occurrences(svg, 'stroke-dasharray="6,4"')).toBe(0);
    expect(texts(svg, 'title-text')).toContain('base.json vs now.json: swc bench on Redis 7.0.15 (jemalloc-5.3.0)');
    expect(texts(svg, 'title-text')).toContain('memory per light, change from baseline, by window at 10/s');
    // Every cell grew by the same 2.2%: which one is named the largest comes down to rounding.
    expect(texts(svg, 'title-subtitle').join('\n')).toMatch(/^largest change: (windowed|flat) \+2\.2% at (1|10) min @ 10\/s$/m);
    expect(texts(svg, 'value-label')).toEqual(['+2.2%', '+2.2%', '+2.2%', '+2.2%']);
    expect(texts(svg, 'axis-title')).toContain('bytes per light, % change from baseline');
    expect(texts(svg, 'axis-label')).toEqual(expect.arrayContaining(['0%', '+1%', '+2%']));
    // The points are most of the plot's height (360 px) above the zero line.
    const zero = zeroY(svg);
    for (const y of pointYs(svg)) expect(zero - y).toBeGreaterThan(200);
    const picture = rasterise(svg);
    for (const color of SERIES_COLORS.slice(0, 2)) expect(count(picture, near(color))).toBeGreaterThan(100);
  });

  it('a change of zero lies on the zero line; a fall below it', async () => {
    const base = result([60, 600], [10], { layouts: ['flat'] });
    const svg = await svgOf([
      { label: 'base.json', report: base },
      {
        label: 'now.json',
        report: { ...base, results: base.results.map((c, i) => ({ ...c, memory: { ...c.memory, bytesPerLight: i === 0 ? 4096 : 4000 } })) },
      },
    ]);
    expect(texts(svg, 'value-label')).toEqual(['0%', '-2.3%']);
    const [unchanged, fell] = pointYs(svg);
    expect(unchanged).toBeCloseTo(zeroY(svg), 0);
    expect(fell).toBeGreaterThan(zeroY(svg) + 100);
  });

  it('latency: per rate against window, each point the median with a bar over the rounds; p50 and p99 told apart by shape', async () => {
    const svg = await svgOf([{ label: 'run', report: result([60, 600], [10, 100], { throughput: true, rounds: true }) }], ['latency']);
    const titles = texts(svg, 'title-text');
    expect(titles).toContain('request latency (a read, then a write) by window at 10/s');
    expect(titles).toContain('request latency (a read, then a write) by window at 100/s');
    expect(texts(svg, 'title-subtitle')).toContain('median of the rounds; the bar spans the fastest to the slowest round');
    // No line joins the points: a bar per layout, percentile and window (3 × 2 × 2) in each of the 2 panels.
    expect(occurrences(svg, 'class="mark-line role-series"')).toBe(0);
    const bars = svg
      .split('class="mark-rule role-range"')
      .slice(1)
      .map((m) => occurrences(m.slice(0, m.indexOf('</g>')), '<line'));
    expect(bars).toEqual([12, 12]);
    expect(texts(svg, 'legend-title')).toEqual(['layout', 'latency']);
    expect(texts(svg, 'legend-label')).toEqual([...LAYOUTS, 'p50', 'p99']);
    expect(texts(svg, 'axis-label')).toEqual(expect.arrayContaining(['1 min', '10 min']));
    expect(texts(svg, 'axis-label')).not.toContain('p99.9');
  });

  it('latency from a single round is not drawn, and the model says why', async () => {
    const model = chartModel([{ label: 'run', report: result([60], [10], { throughput: true }) }], ['hero', 'latency']);
    expect(model.panels.map((p) => p.name)).toEqual(['hero']);
    expect(model.notes).toEqual([
      'latency: not drawn, no cell was measured over 2 rounds or more (swc bench --rounds 2 or more): one run of a percentile is noise',
    ]);
    const none = chartModel([{ label: 'run', report: result([60], [10]) }], ['latency']);
    expect(none.panels).toEqual([]);
    expect(none.notes[0]).toMatch(/no throughput figures/);
  });
});

describe('SVG chart with hostile names', () => {
  it('a layout name holding ESC, <, & and quotes still gives a well-formed SVG that renders, with the name shown escaped', async () => {
    const report = result([60, 600], [10], { layouts: ['flat'] });
    const name = 'evil\x1b[2J <b>&"x"';
    const svg = await svgOf([{ label: 'run', report: { ...report, results: report.results.map((r) => ({ ...r, layout: name })) } }]);
    expect(svg).not.toContain('\x1b');
    expect(svg).not.toContain('<b>');
    expect(texts(svg, 'legend-label')).toEqual(['evil\\x1b[2J <b>&"x"']);
    const picture = rasterise(svg);
    expect(count(picture, near(SERIES_COLORS[0]))).toBeGreaterThan(100);
  });
});
