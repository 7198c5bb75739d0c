/**
 * `swc bench` on one server or one cluster: the guarded bench
 * (src/bench/guarded-bench.ts), then the table, JSON, verdict and charts.
 */
import type { Redis } from 'ioredis';
import { guardedBench } from '../../bench/guarded-bench.js';
import { createNamespace } from '../../run/namespace.js';
import { cellsOf, type BenchPlan } from '../../bench/plan.js';
import { IncompleteBenchError, type BenchProgress } from '../../bench/run.js';
import { withStableKeyNames } from '../../bench/stable-keys.js';
import { suggest, type Unmeasured } from '../../bench/suggest.js';
import { reportBuild, serverBuild } from '../../compare/builds.js';
import { compareReports } from '../../compare/diff.js';
import { RedisUnavailableError, UsageError } from '../../core/errors.js';
import type { LayoutName } from '../../layouts/index.js';
import type { BenchReport } from '../../measure/types.js';
import type { Session } from '../../redis/connect.js';
import { serverInfo } from '../../redis/info.js';
import { CommandCap } from '../../redis/command-cap.js';
import { clusterTarget, singleTarget, type Shard, type Target } from '../../redis/target.js';
import { renderBench, renderQuietBench, type BenchFormat } from '../../report/bench.js';
import { renderSuggestionHeadlines, renderSuggestions } from '../../report/suggest.js';
import { outputWidth } from '../../report/width.js';
import { shown } from '../../safety/text.js';
import { terminalChart, writeChart } from '../chart-output.js';
import { compareOptionsFrom } from '../../compare/options.js';
import { writeJsonFile } from '../output-files.js';
import { printVerdict } from '../verdict.js';
import { onSecondSignal, onShutdown } from '../lifecycle.js';
import { writeAbove } from '../status-line.js';
import { clusterSessionFromFlags, printJson, sessionFromFlags, turnWaitMs, useColor, wantsCluster } from '../options.js';
import { checkClusterFlags } from './cluster.js';
import type { BenchFlags } from './flags.js';
import { keepIncomplete, printIncomplete } from './incomplete.js';
import { countForReport, type instructionsOf } from './instructions.js';
import { sayOnStderr, warnShortfall } from './notes.js';
import { progressReporter } from './progress.js';

/**
 * `--baseline` from another server build (version, allocator, or Valkey
 * against Redis): exit 2 naming both builds, pointing at
 * `swc compare --across-builds`, which reports what the build changed.
 */
async function refuseOtherBuild(baseline: { label: string; report: BenchReport }, redis: Redis, output: string | undefined): Promise<void> {
  const info = await serverInfo(redis);
  const here = serverBuild({
    version: info.version,
    memAllocator: info.memAllocator,
    ...(info.server ? { server: info.server.name, serverVersion: info.server.version } : {}),
  });
  const there = reportBuild(baseline.report);
  if (here === there) return;
  const saved = output ?? 'run.json';
  throw new UsageError(
    `--baseline: ${shown(baseline.label)} was measured on ${shown(there)}, this server is ${here}; a regression verdict across builds would blame the layout for what the build changed. ` +
      `Save this run (--output ${shown(saved)}) and run swc compare --across-builds ${shown(baseline.label)} ${shown(saved)}, or take a baseline on this build`,
  );
}

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
  let session: Session | undefined;
  let progress: { hooks: BenchProgress; stop: () => void } | undefined;
  const outcome = await guardedBench({
    // A cluster's session, or the one server's; each closes on every way out.
    open: async () => {
      // --max-ops counts from the connection's first command: the handshake, the checks and the turn-taking too.
      const cap = plan.maxOpsPerSecond !== undefined ? new CommandCap(plan.maxOpsPerSecond) : undefined;
      const target = wantsCluster(flags)
        ? clusterTarget(await clusterSessionFromFlags(flags, cap))
        : singleTarget(await sessionFromFlags(flags, undefined, cap ? { cap } : {}));
      session = target.shards[0]?.session;
      if (!session) throw new RedisUnavailableError('the cluster has no primary');
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
    ...(baseline ? { opened: (target: Target) => refuseOtherBuild(baseline, (target.shards[0] as Shard).session.redis, flags.output) } : {}),
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
  if (counting && session) measured = await countForReport(counting, session, plan, measured, { progress: flags.progress, signal: stop.signal });
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
