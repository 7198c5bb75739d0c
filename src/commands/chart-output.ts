/** Charts of results written to a file (SVG or PNG) or drawn for the terminal (`swc chart`, `swc bench --chart`, `--chart-out`). */
import type { Verdict } from '../compare/diff.js';
import { UsageError } from '../core/errors.js';
import { checkOutputTarget } from '../core/json-file.js';
import { chartModel, DEFAULT_PANELS, type ChartSide, type PanelName } from '../report/chart-data.js';
import { renderChartTerminal } from '../report/chart-terminal.js';
import { shownDeep } from '../safety/text.js';
import { writeFileSafely } from '../safety/write-file.js';
import { useColor } from './options.js';

/** Terminal columns when stdout is not a terminal and COLUMNS is unset. */
const DEFAULT_COLUMNS = 80;
const MIN_COLUMNS = 40;

/** The width terminal charts may use: the terminal's, else `COLUMNS`, else 80. */
export function chartWidth(): number {
  const env = Number(process.env.COLUMNS);
  const columns = process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : Number.isInteger(env) && env > 0 ? env : DEFAULT_COLUMNS;
  return Math.max(MIN_COLUMNS, columns);
}

/** A chart file written: where, in which format, how many bytes; and the asked panels that could not be drawn. */
export interface WrittenChart {
  readonly path: string;
  readonly format: 'svg' | 'png';
  readonly bytes: number;
  readonly notes: readonly string[];
}

/**
 * The verdict a chart of two results headlines: the caller's own when it has
 * one (`bench --baseline`, with the user's tolerances), so the chart says
 * what the gate said; else compare's at its default tolerances (`swc chart a b`).
 */
async function gateOf(sides: readonly ChartSide[], verdict: Verdict | undefined): Promise<Verdict | undefined> {
  const [baseline, current] = sides;
  if (!baseline || !current) return undefined;
  if (verdict) return verdict;
  // The comparison loads only when two results are drawn.
  const { compareReports } = await import('../compare/diff.js');
  return compareReports(baseline.report, current.report);
}

/**
 * Renders results to an SVG or PNG file (by the name's ending); says where
 * on stderr, with a line per asked panel that could not be drawn.
 */
export async function writeChart(
  flag: string,
  file: string,
  sides: readonly ChartSide[],
  prefix: string,
  panels: readonly PanelName[] = DEFAULT_PANELS,
  verdict?: Verdict,
): Promise<WrittenChart> {
  // The SVG renderer (vega) and the PNG one (resvg) load only when a chart file is written.
  const [{ renderChartSvg }, { renderChartPng }] = await Promise.all([import('../report/chart-svg.js'), import('../report/chart-png.js')]);
  const model = chartModel(sides, panels, await gateOf(sides, verdict));
  const svg = await renderChartSvg(model);
  const png = /\.png$/i.test(file);
  let bytes: string | Buffer = svg;
  if (png) {
    try {
      bytes = await renderChartPng(svg);
    } catch (err) {
      throw new UsageError(`${flag}: cannot draw PNG on this machine (@resvg/resvg-js: ${(err as Error).message.split('\n')[0] ?? ''}); write .svg instead`);
    }
  }
  checkOutputTarget(flag, file);
  try {
    writeFileSafely(flag, file, bytes);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${flag}: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  for (const note of model.notes) process.stderr.write(`${prefix}: ${shownDeep(note)}\n`);
  process.stderr.write(`${prefix}: chart written to ${file}\n`);
  return { path: file, format: png ? 'png' : 'svg', bytes: Buffer.byteLength(bytes), notes: model.notes.map((n) => shownDeep(n)) };
}

/** Terminal charts of results, as text for stdout (colour and width from the terminal); `verdict` as for {@link writeChart}. */
export async function terminalChart(sides: readonly ChartSide[], panels: readonly PanelName[] = DEFAULT_PANELS, verdict?: Verdict): Promise<string> {
  // Labels come from the files: escaped and cut before they reach the terminal (src/safety/text.ts).
  return renderChartTerminal(chartModel(shownDeep(sides), panels, await gateOf(sides, verdict)), { width: chartWidth(), color: useColor() });
}
