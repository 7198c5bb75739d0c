/**
 * A chart's SVG as PNG, for pages and posts that take no SVG. Rasterised
 * with resvg (Rust, through @resvg/resvg-js): no browser, no canvas, and
 * the system's fonts, which the SVG names by family.
 */

/** Pixels per SVG unit: a 2× image stays sharp on a high-density screen. */
export const PNG_SCALE = 2;

/** Renders an SVG document to PNG bytes at {@link PNG_SCALE}. */
export async function renderChartPng(svg: string): Promise<Buffer> {
  // Loaded on use: a native module that only PNG output needs.
  const { Resvg } = await import('@resvg/resvg-js');
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: PNG_SCALE },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
    background: 'white',
  }).render();
  return image.asPng();
}
