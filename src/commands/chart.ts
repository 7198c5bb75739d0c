import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { Command } from 'commander';
import type { Verdict } from '../compare/diff.js';
import { UsageError } from '../core/errors.js';
import { chartModel, DEFAULT_PANELS, type ChartSide, type PanelName } from '../report/chart-data.js';
import { renderChartTerminal } from '../report/chart-terminal.js';
import { action } from './lifecycle.js';
import { addJsonOption, printJson, useColor } from './options.js';
import { checkOutputTarget } from '../core/json-file.js';
import { refuseSymlink, writeFileSafely } from '../safety/write-file.js';
import { shownDeep } from '../safety/text.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';

/** Terminal columns when stdout is not a terminal and COLUMNS is unset. */
const DEFAULT_COLUMNS = 80;
const MIN_COLUMNS = 40;

/** The width terminal charts may use: the terminal's, else `COLUMNS`, else 80. */
export function chartWidth(): number {
  const env = Number(process.env.COLUMNS);
  const columns = process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : Number.isInteger(env) && env > 0 ? env : DEFAULT_COLUMNS;
  return Math.max(MIN_COLUMNS, columns);
}

/**
 * Checks a chart's output path before any work is done (a run is not lost to
 * a typo): the name ends in .svg or .png, so a result file cannot be
 * overwritten by mistake, and its folder exists.
 */
export function checkChartPath(flag: string, file: string): string {
  if (!/\.(svg|png)$/i.test(file)) throw new UsageError(`${flag}: expected a file name ending in .svg or .png, got "${file}"`);
  const folder = dirname(resolve(file));
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // reported below
  }
  if (!isFolder) throw new UsageError(`${flag}: folder ${folder} does not exist`);
  checkOutputTarget(flag, file);
  refuseSymlink(flag, file);
  return file;
}

// The flag's parser and help live apart so bench's definition reads them without the renderers.
export { CHART_PANELS_HELP, parseChartPanels } from './chart-panels.js';
import { CHART_PANELS_HELP, parseChartPanels } from './chart-panels.js';

/** A chart file written: where, in which format, how many bytes; and the asked panels that could not be drawn. */
export interface WrittenChart {
  readonly path: string;
  readonly format: 'svg' | 'png';
  readonly bytes: number;
  readonly notes: readonly string[];
}

/** Two results: the gate's verdict at compare's default tolerances, which the chart headlines. */
async function gateOf(sides: readonly ChartSide[]): Promise<Verdict | undefined> {
  const [baseline, current] = sides;
  if (!baseline || !current) return undefined;
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
): Promise<WrittenChart> {
  // The SVG renderer (vega) and the PNG one (resvg) load only when a chart file is written.
  const [{ renderChartSvg }, { renderChartPng }] = await Promise.all([import('../report/chart-svg.js'), import('../report/chart-png.js')]);
  const model = chartModel(sides, panels, await gateOf(sides));
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

/** Terminal charts of results, as text for stdout (colour and width from the terminal). */
export async function terminalChart(sides: readonly ChartSide[], panels: readonly PanelName[] = DEFAULT_PANELS): Promise<string> {
  // Labels come from the files: escaped and cut before they reach the terminal (src/safety/text.ts).
  return renderChartTerminal(chartModel(shownDeep(sides), panels, await gateOf(sides)), { width: chartWidth(), color: useColor() });
}

interface ChartFlags {
  out?: string;
  json?: boolean;
  chartPanels?: PanelName[];
}

/** `swc chart`: charts of a saved result, or of two compared. */
export function chartCommand(): Command {
  const command = new Command('chart')
    .description('chart a saved `swc bench --json` result (or a baseline and a current one) in the terminal, or as SVG or PNG with --out')
    .argument('<result>', 'a result (JSON of swc bench --json); with a second file, the baseline')
    .argument('[current]', 'a second result, drawn as the change of each cell from the first')
    .option('--out <file>', 'write the chart to a file instead of printing terminal charts: standalone SVG (.svg) or PNG (.png, drawn at 2×)')
    .option('--chart-panels <list>', CHART_PANELS_HELP, (v) => parseChartPanels('--chart-panels', v));
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
By default one panel, the hero: memory per light against window at the
highest rate, each point's value written beside it and the ratio of the
smallest layout to the largest written on it. --chart-panels picks others.
Two results: memory panels draw each cell's percent change from the first.
Latency is drawn only from two rounds or more, as the median with a bar from
the fastest to the slowest round. One colour per layout; published figures
(preset blog) as hollow diamonds; a log scale where values span ten times or
more. Terminal charts follow the terminal's width (COLUMNS when not a
terminal) and use colour only on a terminal without NO_COLOR.
--json (with --out): what was written, { schemaVersion, swcVersion, inputs,
panels, files: [ { path, format, bytes } ], notes } (docs/bench.md, "Charts").
Exit codes: 0 ok, 2 unreadable or invalid file, or bad flag.

Examples:
  swc chart result.json
  swc chart result.json --out docs/blog.svg
  swc chart result.json --out blog.png --chart-panels hero,rate,latency --json
  swc chart baseline.json current.json --out change.svg`,
  );
  return command.action(
    action(async (first: string, second: string | undefined, flags: ChartFlags) => {
      if (flags.json && flags.out === undefined) throw new UsageError('--json: prints what --out wrote; give --out <file.svg|file.png>');
      if (flags.out !== undefined) checkChartPath('--out', flags.out);
      const panels = flags.chartPanels ?? DEFAULT_PANELS;
      const { loadReport } = await import('../compare/load.js');
      const files = second === undefined ? [first] : [first, second];
      // Legends name each file by its base name, unless both share one.
      const short = new Set(files.map((f) => basename(f))).size === files.length;
      const sides: ChartSide[] = files.map((file) => ({ label: short ? basename(file) : file, report: loadReport(file) }));
      if (flags.out !== undefined) {
        const written = await writeChart('--out', flags.out, sides, 'swc chart', panels);
        if (flags.json) {
          const { notes, ...file } = written;
          printJson({ schemaVersion: SCHEMA_VERSION, swcVersion: SWC_VERSION, inputs: files, panels, files: [file], notes });
        }
        return;
      }
      process.stdout.write(await terminalChart(sides, panels));
    }),
  );
}
