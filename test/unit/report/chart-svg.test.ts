import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { chartModel, type ChartSide } from '../../../src/report/chart-data.js';
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

const svgOf = (sides: ChartSide[]): Promise<string> => renderChartSvg(chartModel(sides));

describe('SVG chart', () => {
  it('a blog-preset result: panels, one line per layout per panel, published markers, legend, title; drawn to pixels', async () => {
    const report = result([60, 180, 300, 600], [10, 100], { published: true });
    const svg = await svgOf([{ label: 'run', report }]);
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<svg');
    // Standalone: nothing fetched when it is opened (no linked images, fonts or styles).
    expect(svg).not.toMatch(/(?:href|src)="(?!#)|@import|url\((?!#)/);

    // 2 panels by window (one per rate) + 4 by rate (one per window), each with a line per layout.
    expect(occurrences(svg, 'role-panel')).toBe(6);
    expect(occurrences(svg, 'class="mark-line role-series"')).toBe(6 * LAYOUTS.length);
    expect(texts(svg, 'legend-label')).toEqual([...LAYOUTS, PUBLISHED_LABEL]);
    expect(texts(svg, 'legend-title')).toEqual(['layout', 'marker']);
    const title = texts(svg, 'title-text');
    expect(title).toContain('swc bench on Redis 7.0.15 (jemalloc-5.3.0)');
    expect(title).toContain('memory per light by window at 10/s');
    expect(title).toContain('memory per light by rate, 10 min window');
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
    const withFigures = await svgOf([{ label: 'run', report: result([60, 600], [10], { published: true }) }]);
    const without = await svgOf([{ label: 'run', report: result([60, 600], [10]) }]);
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

  it('two results compared: each layout per result, the baseline dashed, a legend for each', async () => {
    const svg = await svgOf([
      { label: 'base.json', report: result([60, 600], [10]) },
      { label: 'now.json', report: result([60, 600], [10], { scale: 1.5 }) },
    ]);
    expect(occurrences(svg, 'class="mark-line role-series"')).toBe(2 * LAYOUTS.length);
    expect(texts(svg, 'legend-label')).toEqual([...LAYOUTS, 'base.json', 'now.json']);
    expect(texts(svg, 'title-text')).toContain('base.json vs now.json: swc bench on Redis 7.0.15 (jemalloc-5.3.0)');
    // Lines of the baseline (and its legend symbol) are dashed; the current run's are not.
    expect(occurrences(svg, 'stroke-dasharray="6,4"')).toBe(LAYOUTS.length + 1);
    const picture = rasterise(svg);
    for (const color of SERIES_COLORS.slice(0, LAYOUTS.length)) expect(count(picture, near(color))).toBeGreaterThan(100);
  });

  it('latency panels when throughput ran', async () => {
    const svg = await svgOf([{ label: 'run', report: result([60], [10, 100], { throughput: true }) }]);
    const titles = texts(svg, 'title-text');
    expect(titles).toContain('request latency (a read, then a write), 1 min window at 10/s');
    expect(titles).toContain('request latency (a read, then a write), 1 min window at 100/s');
    expect(texts(svg, 'axis-label')).toEqual(expect.arrayContaining(['p50', 'p99', 'p99.9']));
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
