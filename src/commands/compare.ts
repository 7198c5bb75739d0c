import { appendFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { parseNumber } from '../bench/values.js';
import { DEFAULT_COMPARE_OPTIONS, type Verdict } from '../compare/diff.js';
import { DEFAULT_INSTRUCTIONS_TOLERANCE } from '../compare/instructions.js';
import { parseMemoryTolerance, type MemoryTolerance } from '../compare/memory-detail.js';
import { compareOptionsFrom, type CompareFlags } from '../compare/options.js';
import { EnvironmentError, ExitCode, UsageError } from '../core/errors.js';
import { checkOutputTarget } from '../core/json-file.js';
import { renderCompare, renderStepSummary, type CompareSide } from '../report/compare.js';
import { compareFormats, type CompareFormat } from '../report/compare-formats.js';
import { acrossBuildsDocument, verdictDocument } from '../report/compare-json.js';
import { outputWidth } from '../report/width.js';
import { shown, shownDeep } from '../safety/text.js';
import { refuseSymlink, writeFileSafely } from '../safety/write-file.js';
import { action, printError } from './lifecycle.js';
import { parser, printJson, useColor } from './options.js';

// `swc bench --baseline` gives its verdict with the helpers here too.
export { compareOptionsFrom, type CompareFlags } from '../compare/options.js';

/**
 * With `--format github` inside GitHub Actions: the verdict as Markdown
 * appended to $GITHUB_STEP_SUMMARY (the job's summary page). Outside Actions
 * the variable is unset and nothing is written; a file that cannot be
 * written is a warning, never a failed gate.
 */
function writeStepSummary(verdict: Verdict, baseline: CompareSide, current: CompareSide): void {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    appendFileSync(file, renderStepSummary(verdict, baseline, current));
  } catch (err) {
    printError(`swc: warning: cannot write the step summary to ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Checks before a run that `--output` can be written: a path whose folder exists and that is not a folder itself. */
export function checkOutputPath(flag: string, file: string): string {
  const folder = dirname(resolve(file));
  let ok = false;
  try {
    ok = statSync(folder).isDirectory();
  } catch {
    // said below
  }
  if (!ok) throw new UsageError(`${flag}: folder ${folder} does not exist`);
  try {
    if (statSync(file).isDirectory()) throw new UsageError(`${flag}: ${file} is a folder; give a file name`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
  }
  checkOutputTarget(flag, file);
  refuseSymlink(flag, file);
  return file;
}

/** Writes a result as JSON to `file` whole (a temporary file renamed over it), so a reader never sees half of one. */
export function writeJsonFile(flag: string, file: string, value: unknown): void {
  // Again at write time: the path may have become a FIFO or a device since the check.
  checkOutputTarget(flag, file);
  try {
    writeFileSafely(flag, file, `${JSON.stringify(value, null, 2)}\n`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new EnvironmentError(`${flag}: cannot write ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  printError(`swc: result saved to ${file}`);
}

/** `1`, `1%` and `0.5%` are percentages; returned as a fraction. */
function percentage(flag: string, max: number) {
  return parser((value: string) => parseNumber(flag, value.trim().replace(/%$/, ''), { min: 0, max }) / 100);
}

const pct = (fraction: number): string => `${+(fraction * 100).toFixed(4)}%`;

/** Adds the tolerance flags and `--absolute`. */
export function addCompareOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--memory-tolerance <percent|bytes>',
        'fail when bytes per light grow by more than this: a percentage (1 and 1% both mean one percent) or bytes (64B, 1KB = 1024 B)',
      )
        .argParser(
          parser((value: string): MemoryTolerance => {
            const parsed = parseMemoryTolerance(value);
            if (typeof parsed === 'string') throw new UsageError(parsed);
            return parsed;
          }),
        )
        .default({ fraction: DEFAULT_COMPARE_OPTIONS.memoryTolerance } satisfies MemoryTolerance, pct(DEFAULT_COMPARE_OPTIONS.memoryTolerance)),
    )
    .addOption(
      new Option('--throughput-tolerance <percent>', "fail when a layout's ops/s ratio to the reference layout falls by more than this many percent")
        .argParser(percentage('--throughput-tolerance', 100))
        .default(DEFAULT_COMPARE_OPTIONS.throughputTolerance, pct(DEFAULT_COMPARE_OPTIONS.throughputTolerance)),
    )
    .addOption(
      new Option(
        '--server-tolerance <percent>',
        "fail when the server's time per call rises by more than this many percent: its CPU time per call (INFO cpu, each layout's per-round ratio to the cell's first layout) when both results have it, else µs per call from INFO commandstats (each run's fastest round)",
      )
        .argParser(percentage('--server-tolerance', 1000))
        .default(DEFAULT_COMPARE_OPTIONS.serverTolerance, pct(DEFAULT_COMPARE_OPTIONS.serverTolerance ?? 0)),
    )
    .addOption(
      new Option(
        '--instructions-tolerance <percent>',
        "when both results counted instructions (swc bench --instructions): fail when a layout's instructions per call, or its ratio to the reference layout's, rise by more than this many percent",
      )
        .argParser(percentage('--instructions-tolerance', 1000))
        .default(DEFAULT_INSTRUCTIONS_TOLERANCE, pct(DEFAULT_INSTRUCTIONS_TOLERANCE)),
    )
    .addOption(
      new Option(
        '--commands-tolerance <n>',
        'fail when an operation runs more than this many more commands per call than the baseline (INFO commandstats; default 0: exact; for layouts whose count varies with eviction)',
      )
        .argParser(parser((value: string) => parseNumber('--commands-tolerance', value.trim(), { min: 0, max: 1000 })))
        .default(0),
    )
    .option('--absolute', 'also fail when absolute ops/s fall by more than the throughput tolerance (noisy across machines)');
}

/**
 * Prints a verdict (warnings for incomparable runs on stderr, the comparison
 * on stdout) and returns the exit code: 0 ok, 1 regression.
 */
export function printVerdict(
  verdict: Verdict,
  baseline: CompareSide,
  current: CompareSide,
  output: { json: boolean; format: CompareFormat; wide?: boolean },
): number {
  for (const m of verdict.mismatches) {
    // Field values come from the files: escaped and cut, never raw on the terminal (src/safety/text.ts).
    process.stderr.write(
      `swc: not comparable: ${shown(String(m.field))} differs (baseline ${shown(String(m.baseline))}, current ${shown(String(m.current))}); regenerate the baseline with this build and these settings\n`,
    );
  }
  if (output.json) {
    printJson(verdictDocument(verdict, baseline, current));
  } else {
    // Every human format (table, markdown, github) renders escaped copies: names, labels and fields from a file carry no control character.
    if (output.format === 'github') writeStepSummary(shownDeep(verdict), shownDeep(baseline), shownDeep(current));
    process.stdout.write(
      renderCompare(
        shownDeep(verdict),
        shownDeep(baseline),
        shownDeep(current),
        output.format,
        useColor(),
        output.format === 'table' ? outputWidth(output.wide) : Number.POSITIVE_INFINITY,
      ),
    );
  }
  return verdict.ok ? ExitCode.ok : ExitCode.finding;
}

interface CompareCommandFlags extends CompareFlags {
  json?: boolean;
  acrossBuilds?: boolean;
  wide?: boolean;
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
    .option('--wide', 'the table with every column, whatever the terminal width');
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
      const [{ loadReport }, { compareReports }, { differentBuilds, roleChanges }, { renderRoleChanges }] = await Promise.all([
        import('../compare/load.js'),
        import('../compare/diff.js'),
        import('../compare/builds.js'),
        import('../report/across-builds.js'),
      ]);
      const baseline: CompareSide = { label: baselineFile, report: loadReport(baselineFile) };
      const current: CompareSide = { label: currentFile, report: loadReport(currentFile) };
      const builds = differentBuilds(baseline.report, current.report);
      if (!builds) {
        const verdict = compareReports(baseline.report, current.report, compareOptionsFrom(flags));
        return printVerdict(verdict, baseline, current, { json: Boolean(flags.json), format: flags.format, wide: Boolean(flags.wide) });
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
