/** `swc bench`, output: the format, progress, charts, the saved result and --dry-run. */
import { Option, type Command } from 'commander';
import { benchFormats } from '../../report/bench-formats.js';
import { CHART_PANELS_HELP, parseChartPanels } from '../chart-panels.js';

/** --format, --no-progress, --chart, --chart-out, --chart-panels, --wide, -q, --output, --dry-run. */
export function addOutputOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--format <format>', 'output format (github: with --baseline, GitHub Actions annotations and $GITHUB_STEP_SUMMARY)')
        .choices([...benchFormats, 'github'])
        .default('table'),
    )
    .option('--no-progress', 'no progress on stderr')
    .option(
      '--chart',
      'after the table, a terminal chart (memory per light against window; --chart-panels for more); printed even when stdout is not a terminal, never without this flag',
    )
    .option('--chart-out <file>', 'also write the chart as a standalone SVG (.svg) or PNG (.png); with --baseline: the change from the baseline')
    .option('--chart-panels <list>', CHART_PANELS_HELP, (v) => parseChartPanels('--chart-panels', v))
    .option('--wide', 'tables with every column (encodings and long ratio names inline); wider than 120 columns')
    .option('-q, --quiet', "only the headline, a line per window and rate: each layout's bytes per light and the ratios (--suggest: its pick)")
    .option('--output <file>', 'also save the full result as JSON to this file (with --baseline too, whatever is printed)')
    .option('--dry-run', 'print the cells, their phases and the estimated time, then stop: nothing is sent to Redis and no server is started');
}
