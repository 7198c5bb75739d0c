/**
 * The action of `swc bench`, loaded only when a bench runs: flags (and a
 * scenario) to a plan, the checks that refuse before Redis is touched, then
 * a dry run, a sweep, a run across builds, or one guarded run.
 */
import type { Command } from 'commander';
import { durationText, estimatePlan, LONG_RUN_SECONDS } from '../../bench/estimate.js';
import type { BenchPlan } from '../../bench/plan.js';
import { presets } from '../../bench/presets.js';
import { loadScenario } from '../../bench/scenario.js';
import { PRESET_STEADY_LIGHTS } from '../../bench/steady-lights.js';
import { suggestLayouts } from '../../bench/suggest-run.js';
import { loadReport } from '../../compare/load.js';
import { UsageError } from '../../core/errors.js';
import { scriptsDirNotes } from '../../layouts/stoplight/scripts-dir.js';
import { formatWindow, type BenchFormat } from '../../report/bench.js';
import { dryRunJson, renderDryRun } from '../../report/dry-run.js';
import { outputWidth } from '../../report/width.js';
import { plainTarget } from '../../run/cleanup.js';
import { buildsToRun } from '../builds.js';
import { checkChartPath, checkOutputPath } from '../output-files.js';
import { printJson, useColor, wantsCluster } from '../options.js';
import { benchAcrossBuilds } from './builds.js';
import type { BenchFlags } from './flags.js';
import { instructionsOf } from './instructions.js';
import { planFromFlags, withScenario } from './plan.js';
import { runOnce } from './run.js';
import { checkSweep } from './sweep.js';
import { sweepFromFlags } from './sweep-run.js';

/** Runs `swc bench` with the flags commander parsed; returns the exit code (undefined: 0). */
export async function benchAction(given: BenchFlags, cmd: Command): Promise<number | undefined> {
  const typed = (flag: keyof BenchFlags): boolean => cmd.getOptionValueSource(flag) === 'cli';
  if (given.json && typed('format') && given.format !== 'json') {
    throw new UsageError(`--json/--format: --json means --format json; drop one of them (got --format ${given.format})`);
  }
  // --client: packages driven through their own calls, beside the designs (src/commands/bench/clients.ts).
  if (given.client) {
    if (buildsToRun(given)) throw new UsageError('--client/--redis-server: packages run on one server; give one --redis-server');
    const { clientBenchAction } = await import('./clients.js');
    return clientBenchAction({ ...given, client: given.client }, cmd);
  }
  // Several --redis-server: the same bench once per build (src/commands/bench-builds.ts).
  const builds = buildsToRun(given);
  if (builds) {
    if (given.format === 'github')
      throw new UsageError('--format github: annotates a comparison with one baseline; across builds use swc compare --across-builds');
    return benchAcrossBuilds(builds, given, given.json ? 'json' : given.format);
  }
  const throughputFlag = (['connections', 'pipeline', 'ops', 'time', 'rounds', 'percentiles'] as const).find(typed);
  if (!given.throughput && typed('throughput') && throughputFlag) {
    throw new UsageError(`--no-throughput/--${throughputFlag}: --${throughputFlag} sets the throughput phase that --no-throughput skips`);
  }
  const scenario = given.scenario !== undefined ? loadScenario(given.scenario) : undefined;
  let flags = scenario ? withScenario(given, scenario, typed) : given;
  const preset = flags.preset ? presets[flags.preset]?.() : undefined;
  // --suggest: every layout unless --layout says which; those that cannot be built here are named, not run.
  const suggested = flags.suggest ? suggestLayouts(flags.layout, flags.scripts) : undefined;
  if (suggested) flags = { ...flags, layout: suggested.layouts };
  let plan = planFromFlags(flags, preset);
  // A Stoplight tree's folders that are not benched are named, not left out silently.
  // Under --layout too: a generation chosen on a default (no caller beside the folder) says so.
  if (flags.scripts !== undefined) for (const note of scriptsDirNotes(flags.scripts, flags.layout)) process.stderr.write(`swc bench: ${note}\n`);
  // A preset cell without --lights fills as many lights as make its skiplists' random levels average out.
  if (preset && !typed('lights') && scenario?.lights === undefined) plan = { ...plan, steadyLights: PRESET_STEADY_LIGHTS };
  // Refused before any server starts or any note is printed (a URL, REDIS_URL: exit 2; no valgrind: exit 3).
  const counting = instructionsOf(flags);
  // A server named only by REDIS_URL may be one exported for lights (a shared one): no full-speed phase there unasked.
  const fromEnvOnly = flags.redisUrl === undefined && (flags.redisUrls?.length ?? 0) === 0 && Boolean(process.env.REDIS_URL);
  if (fromEnvOnly && plan.throughput && plan.throughput.maxOpsPerSecond === undefined) {
    process.stderr.write(
      `swc bench: the server comes from REDIS_URL alone (${plainTarget(process.env.REDIS_URL as string)}): memory only; throughput phases need --redis-url or a load cap --max-ops <n/s>\n`,
    );
    const { throughput: _skipped, ...memoryOnly } = plan;
    plan = { ...memoryOnly, throughputSkipped: 'REDIS_URL alone: --redis-url or --max-ops <n/s> to measure it' };
  }
  const chosen = flags.json ? 'json' : flags.format;
  // github is a comparison's format: annotations for the baseline file, a summary for the job's page.
  const github = chosen === 'github';
  if (github && flags.baseline === undefined) throw new UsageError('--format github: annotates a comparison; give --baseline <file> (or run swc compare)');
  if (github && (flags.chart || flags.suggest || flags.sweep.length > 0))
    throw new UsageError('--format github: prints only the comparison; drop --chart, --suggest and --sweep');
  const format: BenchFormat = chosen === 'github' ? 'table' : chosen;
  const combinations = flags.sweep.length > 0 ? checkSweep(flags) : undefined;
  if (flags.suggest) {
    if (!plan.accuracy) throw new UsageError('--suggest/--no-accuracy: --suggest ranks layouts by their measured accuracy, which --no-accuracy skips');
    if (format === 'csv') throw new UsageError('--suggest: prints its ranking as table, markdown or --json, not csv');
    if (flags.baseline !== undefined) throw new UsageError('--suggest/--baseline: give one of them (a ranking, or a comparison with a saved result)');
    if (combinations) throw new UsageError('--suggest/--sweep: give one of them (a ranking on one server, or a table per setting)');
  }
  // Only swc's own servers cost a start: a sweep starts one per combination, no --redis-url (nor REDIS_URL) one.
  const estimate = estimatePlan(plan, {
    runs: combinations ? combinations.length : 1,
    privateServer: combinations !== undefined || (flags.redisUrl === undefined && !process.env.REDIS_URL),
    // --suggest runs each accuracy phase in line (its probe gets the machine to itself), and a cluster has no second server for them.
    inLine: flags.suggest === true || wantsCluster(flags),
    ...(counting ? { instructions: counting.plan } : {}),
  });
  // A long run says so before anything else, so Ctrl-C costs nothing.
  if (!flags.dryRun && estimate.totalSeconds > LONG_RUN_SECONDS) {
    process.stderr.write(`swc bench: estimated ${durationText(estimate.totalSeconds)} (over a minute); --dry-run shows the cells and phases\n`);
  }
  if (preset) {
    const missing = plan.windows.flatMap((w) =>
      plan.rates.filter((r) => !preset.published.some((p) => p.windowSeconds === w && p.rate === r)).map((r) => `${formatWindow(w)} at ${r}/s`),
    );
    if (missing.length > 0) process.stderr.write(`swc bench: no published figure for ${missing.join(', ')}; those cells show ours only\n`);
  }
  if (flags.baseline !== undefined && format === 'csv') throw new UsageError('--baseline: prints the comparison as table, markdown or --json, not csv');
  if (flags.chart && (format === 'json' || format === 'csv'))
    throw new UsageError(`--chart: draws after a table or markdown, not ${format} (use --chart-out, or swc chart on the saved result)`);
  if (flags.chartOut !== undefined) checkChartPath('--chart-out', flags.chartOut);
  if (flags.chartPanels !== undefined && !flags.chart && flags.chartOut === undefined)
    throw new UsageError('--chart-panels: selects the panels of --chart or --chart-out; give one of them');
  if (flags.output !== undefined) checkOutputPath('--output', flags.output);
  // Read the baseline before Redis is touched, so a bad file costs no run.
  const baseline = flags.baseline !== undefined ? { label: flags.baseline, report: loadReport(flags.baseline) } : undefined;
  if (flags.dryRun) {
    if (format === 'json') printJson(dryRunJson(estimate));
    else process.stdout.write(renderDryRun(estimate, format === 'markdown' || format === 'csv' ? format : 'table', useColor(), outputWidth(flags.wide)));
    return undefined;
  }
  // What the run was asked, echoed into its report (after a cluster's substitutions, when there are any).
  const optionsOf = (plan: BenchPlan) => ({
    layouts: plan.layouts,
    windows: plan.windows,
    rates: plan.rates,
    failureRate: plan.failureRate,
    lights: plan.lights,
    durationSeconds: plan.durationSeconds ?? null,
    seed: plan.seed,
    preset: preset?.name ?? null,
    throughput: plan.throughput ?? false,
    realtime: plan.realtime === true,
    accuracy: plan.accuracy ?? false,
    ...(scenario ? { scenario: scenario.file } : {}),
    ...(plan.scriptsDir !== undefined ? { scripts: plan.scriptsDir } : {}),
    ...(suggested ? { suggest: true } : {}),
  });
  const options = optionsOf(plan);
  if (combinations && wantsCluster(flags)) {
    throw new UsageError('--sweep: runs on private single servers it starts itself; drop --cluster / --cluster-shards');
  }
  if (combinations) return sweepFromFlags(flags, combinations, plan, options, format);
  return runOnce({ flags, plan, baseline, suggested, format, github, counting, optionsOf });
}
