import { basename } from 'node:path';
import { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { ChartSide } from '../report/chart-data.js';
import { DEFAULT_PANELS, type PanelName } from '../report/chart-panel-names.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';
import { CHART_PANELS_HELP, parseChartPanels } from './chart-panels.js';
import { action } from './lifecycle.js';
import { addJsonOption, printJson } from './options.js';
import { checkChartPath } from './output-files.js';

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
      const [{ loadReport }, { terminalChart, writeChart }] = await Promise.all([import('../compare/load.js'), import('./chart-output.js')]);
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
