import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { loadReport } from '../compare/load.js';
import { UsageError } from '../errors.js';
import { chartModel, type ChartSide } from '../report/chart-data.js';
import { renderChartSvg } from '../report/chart-svg.js';
import { renderChartTerminal } from '../report/chart-terminal.js';
import { action } from './lifecycle.js';
import { useColor } from './options.js';
import { checkOutputTarget } from '../json-file.js';
import { refuseSymlink, writeFileSafely } from '../safety/write-file.js';
import { shownDeep } from '../safety/text.js';

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
 * Checks an SVG output path before any work is done (a run is not lost to a
 * typo): the name ends in .svg, so a result file cannot be overwritten by
 * mistake, and its folder exists.
 */
export function checkSvgPath(flag: string, file: string): string {
  if (!/\.svg$/i.test(file)) throw new UsageError(`${flag}: expected a file name ending in .svg, got "${file}"`);
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

/** Renders results to an SVG file; says where on stderr. */
export async function writeChartSvg(flag: string, file: string, sides: readonly ChartSide[], prefix: string): Promise<void> {
  const svg = await renderChartSvg(chartModel(sides));
  checkOutputTarget(flag, file);
  try {
    writeFileSafely(flag, file, svg);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${flag}: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  process.stderr.write(`${prefix}: chart written to ${file}\n`);
}

/** Terminal charts of results, as text for stdout (colour and width from the terminal). */
export function terminalChart(sides: readonly ChartSide[]): string {
  // Labels come from the files: escaped and cut before they reach the terminal (src/safety/text.ts).
  return renderChartTerminal(chartModel(shownDeep(sides)), { width: chartWidth(), color: useColor() });
}

interface ChartFlags {
  out?: string;
}

/** `swc chart`: charts of a saved result, or of two compared. */
export function chartCommand(): Command {
  const command = new Command('chart')
    .description('chart a saved `swc bench --json` result (or a baseline and a current one) in the terminal, or as SVG with --out')
    .argument('<result>', 'a result (JSON of swc bench --json); with a second file, the baseline')
    .argument('[current]', 'a second result, drawn against the first (the first dashed)')
    .option('--out <file.svg>', 'write a standalone SVG instead of printing terminal charts');
  command.addHelpText(
    'after',
    `
Panels: memory per light against window (one per rate), against rate (one per
window, when there are several rates), and request latency by percentile (one
per cell, when throughput ran). One colour per layout; published figures
(preset blog) as hollow diamonds in the SVG; a log scale where values span ten
times or more. Terminal charts follow the terminal's width (COLUMNS when not
a terminal) and use colour only on a terminal without NO_COLOR.
Exit codes: 0 ok, 2 unreadable or invalid file, or bad flag.

Examples:
  swc chart result.json
  swc chart result.json --out docs/blog.svg
  swc chart baseline.json current.json --out compare.svg`,
  );
  return command.action(
    action(async (first: string, second: string | undefined, flags: ChartFlags) => {
      if (flags.out !== undefined) checkSvgPath('--out', flags.out);
      const files = second === undefined ? [first] : [first, second];
      // Legends name each file by its base name, unless both share one.
      const short = new Set(files.map((f) => basename(f))).size === files.length;
      const sides: ChartSide[] = files.map((file) => ({ label: short ? basename(file) : file, report: loadReport(file) }));
      if (flags.out !== undefined) return writeChartSvg('--out', flags.out, sides, 'swc chart');
      process.stdout.write(terminalChart(sides));
    }),
  );
}
