/**
 * `swc bench` on one server or one cluster: the guarded bench
 * (src/bench/guarded-bench.ts), then the table, JSON, verdict and charts.
 */
import { guardedBench } from '../../bench/guarded-bench.js';
import { createNamespace } from '../../run/namespace.js';
import { cellsOf, type BenchPlan } from '../../bench/plan.js';
import { IncompleteBenchError, type BenchProgress } from '../../bench/run.js';
import { withStableKeyNames } from '../../bench/stable-keys.js';
import { suggest, type Unmeasured } from '../../bench/suggest.js';
import { compareReports } from '../../compare/diff.js';
import { RedisUnavailableError } from '../../core/errors.js';
import type { LayoutName } from '../../layouts/index.js';
import type { BenchReport } from '../../measure/types.js';
import type { Target } from '../../run/open.js';
import { refuseOtherBuild } from '../../bench/baseline.js';
import { renderBench, renderQuietBench, type BenchFormat } from '../../report/bench.js';
import { renderSuggestionHeadlines, renderSuggestions } from '../../report/suggest.js';
import { outputWidth } from '../../report/width.js';
import { terminalChart, writeChart } from '../chart-output.js';
import { compareOptionsFrom } from '../../compare/options.js';
import { writeJsonFile } from '../output-files.js';
import { printVerdict } from '../verdict.js';
import { onSecondSignal, onShutdown } from '../lifecycle.js';
import { writeAbove } from '../status-line.js';
import { printJson, targetFromFlags, turnWaitMs, useColor, wantsCluster } from '../options.js';
import { checkClusterFlags } from './cluster.js';
import type { BenchFlags } from './flags.js';
import { keepIncomplete, printIncomplete } from './incomplete.js';
import { countForReport, type instructionsOf } from './instructions.js';
import { sayOnStderr, warnShortfall } from './notes.js';
import { progressReporter } from './progress.js';

/** What the action decided before the run. */
export interface OnceInput {
  readonly flags: BenchFlags;
  readonly plan: BenchPlan;
  readonly baseline: { label: string; report: BenchReport } | undefined;
  readonly suggested: { layouts: LayoutName[]; skipped: Unmeasured[] } | undefined;
  readonly format: BenchFormat;
  readonly github: boolean;
  readonly counting: ReturnType<typeof instructionsOf>;
  readonly optionsOf: (plan: BenchPlan) => Record<string, unknown>;
}

/** Runs the bench once under every guard and prints it; returns the exit code of a verdict, if any. */
export async function runOnce(input: OnceInput): Promise<number | undefined> {
  const { flags, baseline, suggested, format, github, counting, optionsOf } = input;
  let plan = input.plan;
  if (wantsCluster(flags)) checkClusterFlags(flags);
  const namespace = createNamespace();
  // Ctrl-C also stops the instruction count after the run.
  const stop = new AbortController();
  onShutdown(async () => stop.abort());
  const usersUrl = flags.redisUrl ?? (process.env.REDIS_URL || undefined);
  let opened: Target | undefined;
  let progress: { hooks: BenchProgress; stop: () => void } | undefined;
  const outcome = await guardedBench({
    // A cluster's session, or the one server's; each closes on every way out.
    open: async () => {
      // --max-ops counts from the connection's first command: the handshake, the checks and the turn-taking too.
      const target = await targetFromFlags(flags, undefined, plan.maxOpsPerSecond !== undefined ? { maxOpsPerSecond: plan.maxOpsPerSecond } : {});
      if (!target.shards[0]) throw new RedisUnavailableError('the cluster has no primary');
      opened = target;
      return target;
    },
    ...(usersUrl !== undefined ? { usersUrl } : {}),
    signal: stop.signal,
    plan,
    namespace,
    trustScripts: flags.trustScripts === true,
    unconfinedScripts: flags.unconfinedScripts === true,
    allowEviction: flags.allowEviction === true,
    // --suggest ranks the layouts that can run here and names the others.
    setAsideCrossSlot: suggested !== undefined,
    perLayout: suggested !== undefined,
    // A baseline of another build: refused before any cell runs (a verdict would blame the layout for the build).
    ...(baseline ? { opened: (target: Target) => refuseOtherBuild(baseline, target, flags.output) } : {}),
    options: optionsOf,
    turnWaitMs: turnWaitMs(flags.waitForRuns),
    starting: (ran) => {
      plan = ran;
      if (plan.realtime && flags.progress) {
        const cells = cellsOf(plan).length;
        process.stderr.write(`swc bench: realtime: ${cells} cell(s) × ${plan.durationSeconds ?? 0} s of real traffic, one after another\n`);
      }
    },
    progress: (ran, target) => {
      // -q off a terminal: no line per phase either (a terminal's bar clears itself).
      progress = progressReporter(flags.progress && !(flags.quiet === true && !process.stderr.isTTY), ran);
      progress.hooks.onWarning = (message: string) => writeAbove(`swc bench: warning: ${message}`);
      progress.hooks.onWait = (others) =>
        writeAbove(
          `swc bench: another swc run is writing to this ${target.cluster ? 'cluster' : 'server'} (${others.join(', ')}); waiting for it to end (at most ${turnWaitMs(flags.waitForRuns) / 1000} s)\n`,
        );
      return progress.hooks;
    },
    say: sayOnStderr,
    onSignal: onShutdown,
    onSecondSignal,
  }).catch(keepIncomplete);
  progress?.stop();
  if (outcome instanceof IncompleteBenchError) {
    return printIncomplete(outcome, namespace.prefix, format, { wide: Boolean(flags.wide), output: flags.output, scriptsDir: plan.scriptsDir });
  }
  const unmeasured: Unmeasured[] = [
    ...(suggested?.skipped ?? []),
    ...outcome.setAside.map((s) => ({
      layout: s.layout,
      status: 'skipped' as const,
      reason: `its scripts take keys in ${s.slots.length} hash slots (cluster mode)`,
    })),
    ...outcome.failed,
  ];
  let measured = withStableKeyNames(outcome.report, namespace.prefix);
  if (counting && opened) measured = await countForReport(counting, opened, plan, measured, { progress: flags.progress, signal: stop.signal });
  const suggestions = suggested ? suggest(measured, { layouts: [...suggested.layouts], unmeasured }) : undefined;
  // --suggest: the JSON gains `suggestion` (the first window and rate) and `suggestions` (all of them).
  const report = suggestions ? { ...measured, suggestion: suggestions[0], suggestions } : measured;
  if (flags.output !== undefined) writeJsonFile('--output', flags.output, report);
  warnShortfall(report);
  let code: number | undefined;
  // The gate's verdict, with the user's tolerances: printed, and headlined by the charts below.
  const verdict = baseline ? compareReports(baseline.report, report, compareOptionsFrom(flags)) : undefined;
  if (baseline && verdict) {
    code = printVerdict(
      verdict,
      baseline,
      { label: 'this run', report },
      {
        json: format === 'json',
        format: github ? 'github' : format === 'markdown' ? 'markdown' : 'table',
        wide: Boolean(flags.wide),
        quiet: flags.quiet === true,
      },
    );
  } else if (format === 'json') printJson(report);
  else if (suggestions && format !== 'csv') {
    // The answer first (which layout, per window and rate), then the rankings and the tables behind them.
    process.stdout.write(renderSuggestionHeadlines(suggestions));
    if (!flags.quiet) {
      process.stdout.write(`\n${renderSuggestions(suggestions, format, useColor(), outputWidth(flags.wide))}`);
      process.stdout.write(`\n${renderBench(report, format, useColor(), { wide: Boolean(flags.wide), width: outputWidth(flags.wide) })}`);
    }
  } else if (flags.quiet && format !== 'csv') process.stdout.write(renderQuietBench(report, format));
  else process.stdout.write(renderBench(report, format, useColor(), { wide: Boolean(flags.wide), width: outputWidth(flags.wide) }));
  const charted = [...(baseline ? [baseline] : []), { label: 'this run', report }];
  if (flags.chart) {
    const text = await terminalChart(charted, flags.chartPanels, verdict);
    process.stdout.write(format === 'markdown' ? `\n\`\`\`text\n${text}\`\`\`\n` : `\n${text}`);
  }
  if (flags.chartOut !== undefined) await writeChart('--chart-out', flags.chartOut, charted, 'swc bench', flags.chartPanels, verdict);
  return code;
}
