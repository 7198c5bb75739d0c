import { Command, Option } from 'commander';
import type { CompareFlags } from '../compare/options.js';
import { ExitCode, UsageError } from '../core/errors.js';
import type { CompareSide } from '../report/compare.js';
import { compareFormats, type CompareFormat } from '../report/compare-formats.js';
import { shown, shownDeep } from '../safety/text.js';
import { addCompareOptions } from './compare-options.js';
import { action } from './lifecycle.js';
import { printJson, useColor } from './options.js';

interface CompareCommandFlags extends CompareFlags {
  json?: boolean;
  acrossBuilds?: boolean;
  wide?: boolean;
  quiet?: boolean;
  format: CompareFormat;
}

/** `swc compare`: a baseline result against a current one, for CI. */
export function compareCommand(): Command {
  const command = new Command('compare')
    .description('compare two `swc bench --json` results cell by cell; exit 1 on a regression')
    .argument('<baseline>', 'the reference result (JSON of swc bench --json)')
    .argument('<current>', 'the result to check')
    .addOption(new Option('--format <format>', 'output format (github: Actions annotations)').choices(compareFormats).default('table'))
    .option('--json', 'print the verdict as JSON on stdout')
    .option(
      '--across-builds',
      'the two results come from different server builds (e.g. Redis 7.0 and Valkey 8): report per key role what changed (encoding, elements, bytes) instead of refusing',
    )
    .option('--wide', 'the table with every column, whatever the terminal width')
    .option('-q, --quiet', 'only the answer: the verdict line and the first failures');
  addCompareOptions(command);
  command.addHelpText(
    'after',
    `
Cells are matched by layout, window and rate. Memory: bytes per light (MEMORY
USAGE) gates; the used_memory delta is shown only. Throughput: each layout's
ops/s divided by the cell's first layout's, measured in the same run, per
operation, and the server's µs per call (INFO commandstats, each run's
fastest round: a busy machine only adds time to a round); absolute ops/s
gate only with --absolute. With rounds (swc bench --rounds) in both results,
a change counts only when it passes the tolerance and no round of one run
overlaps the other's: noise moves some rounds, a real change moves all.
Improvements beyond the tolerance are listed too; they never fail.
Instructions per call (both results from swc bench --instructions) gate at
--instructions-tolerance for each layout and op, and as each layout's count
over the reference layout's; results without counts compare as before.

Fails (exit 1) on: a figure beyond its tolerance; a cell or figure of the
baseline missing from the current run; a different encoding setting, seed,
failure rate, lights or duration (the bytes are not comparable: regenerate
the baseline). Cells only in the current run are listed. Results of two
server builds (another version, allocator, or Valkey) are refused (exit 2)
unless --across-builds, which reports per key role what the build changed.
Figures better than their tolerance are listed as improvements (they pass).
--format github prints GitHub Actions annotations (::error per regression,
::notice per improvement and for the verdict) on stdout.

Exit codes: 0 ok, 1 regression, 2 unreadable or invalid file or flag.

Examples:
  swc compare fixtures/baselines/small.json current.json
  swc compare base.json current.json --memory-tolerance 0.5% --format github`,
  );
  return command.action(
    action(async (baselineFile: string, currentFile: string, flags: CompareCommandFlags) => {
      const [
        { loadReport },
        { compareReports },
        { compareOptionsFrom },
        { differentBuilds, roleChanges },
        { renderRoleChanges },
        { acrossBuildsDocument },
        { printVerdict },
      ] = await Promise.all([
        import('../compare/load.js'),
        import('../compare/diff.js'),
        import('../compare/options.js'),
        import('../compare/builds.js'),
        import('../report/across-builds.js'),
        import('../report/compare-json.js'),
        import('./verdict.js'),
      ]);
      const baseline: CompareSide = { label: baselineFile, report: loadReport(baselineFile) };
      const current: CompareSide = { label: currentFile, report: loadReport(currentFile) };
      const builds = differentBuilds(baseline.report, current.report);
      if (!builds) {
        const verdict = compareReports(baseline.report, current.report, compareOptionsFrom(flags));
        return printVerdict(verdict, baseline, current, {
          json: Boolean(flags.json),
          format: flags.format,
          wide: Boolean(flags.wide),
          quiet: Boolean(flags.quiet),
        });
      }
      // Two builds differ by the build (encodings, allocator, per-node overhead), not by a layout change: a regression
      // verdict would blame the layout. Refused, or with --across-builds what the build changed per key role.
      if (!flags.acrossBuilds) {
        throw new UsageError(
          `compare: ${shown(baseline.label)} was measured on ${shown(builds.baseline)}, ${shown(current.label)} on ${shown(builds.current)}; pass --across-builds to see what the build changes per key role (no regression verdict across builds)`,
        );
      }
      const changes = roleChanges(baseline.report, current.report);
      if (flags.json) printJson(acrossBuildsDocument(baseline, current, builds, changes));
      // Labels and builds come from the files: escaped, as every human format of compare.
      else process.stdout.write(renderRoleChanges(shownDeep(changes), shownDeep(builds), flags.format === 'markdown' ? 'markdown' : 'table', useColor()));
      return ExitCode.ok;
    }),
  );
}
