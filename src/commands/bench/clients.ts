/**
 * `swc bench --client`: the flags to a client plan and a designs plan, the
 * guarded run (src/bench/client-run.ts), then the packages' tables, the
 * comparison lines, the designs' tables, and `--suggest`'s ranking of both.
 */
import type { Command } from 'commander';
import { compareWithDesigns, suggestWithClients } from '../../bench/client-suggest.js';
import { realTimeSeconds, runClientBench } from '../../bench/client-run.js';
import type { ClientPlan } from '../../bench/client-bench.js';
import { createNamespace } from '../../run/namespace.js';
import { suggestLayouts } from '../../bench/suggest-run.js';
import { CLIENT_NAMES } from '../../clients/names.js';
import { clientNamed } from '../../clients/registry.js';
import type { ClientAdapter } from '../../clients/types.js';
import { UsageError } from '../../core/errors.js';
import { comparisonLine, renderClientBench } from '../../report/clients.js';
import { renderSuggestionHeadlines, renderSuggestions } from '../../report/suggest.js';
import { outputWidth } from '../../report/width.js';
import { onSecondSignal, onShutdown } from '../lifecycle.js';
import { writeJsonFile } from '../output-files.js';
import { printJson, targetFromFlags, useColor, wantsCluster } from '../options.js';
import type { BenchFlags } from './flags.js';
import { sayOnStderr } from './notes.js';
import { planFromFlags } from './plan.js';

/** A package's window when --window is not given: short, since most packages' windows pass in real time. */
export const CLIENT_DEFAULT_WINDOW_SECONDS = 1;
/** The memory phase's traffic over the limit: this many times it per window. */
export const CLIENT_OVER_LIMIT_MULTIPLE = 4;
/** Seconds per throughput round when --time is not given. */
export const CLIENT_ROUND_SECONDS = 0.5;
/** Decisions one run may send per package (they go one at a time). */
const MAX_CLIENT_DECISIONS = 200_000;

/** The flags `--client` cannot take, each with why. */
function refuseOthers(flags: BenchFlags, typed: (flag: keyof BenchFlags) => boolean): void {
  const refused: [keyof BenchFlags, string, string][] = [
    ['sweep', '--sweep', 'a sweep reruns layouts on fresh servers'],
    ['baseline', '--baseline', 'a baseline compares layouts with a saved run'],
    ['realtime', '--realtime', 'each package keeps its own clock (real time where its window is a TTL)'],
    ['scripts', '--scripts', "a package runs its own scripts, never swc's"],
    ['scenario', '--scenario', 'give the window, rate and limit as flags'],
    ['preset', '--preset', 'give the window, rate and limit as flags'],
    ['chart', '--chart', 'no chart of packages yet'],
    ['chartOut', '--chart-out', 'no chart of packages yet'],
    ['dryRun', '--dry-run', 'a package run has no dry run yet'],
    ['instructions', '--instructions', "instructions are counted for swc's layouts only"],
    ['profile', '--profile', "instructions are counted for swc's layouts only"],
    ['duration', '--duration', 'each traffic lasts a set number of windows'],
    ['maxOps', '--max-ops', 'a package sends its own commands; its decisions go one at a time, and throughput rounds are skipped with --no-throughput'],
  ];
  for (const [flag, name, why] of refused) if (typed(flag)) throw new UsageError(`--client/${name}: not together (${why})`);
  if (wantsCluster(flags)) throw new UsageError('--client/--cluster: packages run on a single server');
  if ((flags.window?.length ?? 0) > 1) throw new UsageError('--client/--window: one window with --client (got a list)');
  if ((flags.rate?.length ?? 0) > 1) throw new UsageError('--client/--rate: one rate with --client (got a list)');
  if (flags.format === 'csv' && flags.suggest) throw new UsageError('--suggest: prints its ranking as table, markdown or --json, not csv');
}

/** Runs `swc bench --client …`; returns the exit code. */
export async function clientBenchAction(flags: BenchFlags & { client: string[]; limit?: number }, cmd: Command): Promise<number | undefined> {
  const typed = (flag: keyof BenchFlags): boolean => cmd.getOptionValueSource(flag) === 'cli';
  refuseOthers(flags, typed);
  const adapters = flags.client.map((name) => clientNamed(name)).filter((a): a is ClientAdapter => a !== undefined);
  const windowSeconds = flags.window?.[0] ?? CLIENT_DEFAULT_WINDOW_SECONDS;
  const rate = flags.rate?.[0] ?? 100;
  const limit = flags.limit ?? Math.max(1, Math.ceil(rate * windowSeconds));
  let plan: ClientPlan = {
    windowSeconds,
    rate,
    limit,
    clients: flags.lights,
    multiple: CLIENT_OVER_LIMIT_MULTIPLE,
    commands: flags.commands !== false,
    ...(flags.throughput ? { throughput: { rounds: flags.rounds, seconds: flags.time ?? CLIENT_ROUND_SECONDS } } : {}),
  };
  // A server named only by REDIS_URL may be a shared one exported for lights: no full-speed rounds there unasked (as for layouts).
  const fromEnvOnly = flags.redisUrl === undefined && Boolean(process.env.REDIS_URL);
  if (fromEnvOnly && plan.throughput) {
    process.stderr.write('swc bench: the server comes from REDIS_URL alone: no throughput rounds for the packages; --redis-url to measure them\n');
    const { throughput: _skipped, ...rest } = plan;
    plan = rest;
  }
  const decisions = plan.clients * (rate * windowSeconds + plan.multiple * limit) + limit * 9;
  if (decisions > MAX_CLIENT_DECISIONS) {
    throw new UsageError(
      `--client: ${Math.round(decisions).toLocaleString('en-US')} decisions per package (--lights × (--rate × --window + ${plan.multiple} × --limit)); at most ${MAX_CLIENT_DECISIONS.toLocaleString('en-US')}: lower one of them`,
    );
  }
  // Every registered design (or --layout's) at the same window and rate: memory only, unless --suggest ranks them (then accuracy too).
  const designLayouts = suggestLayouts(flags.layout, undefined);
  const suggested = flags.suggest ? designLayouts : undefined;
  const designs = planFromFlags(
    { ...flags, window: [windowSeconds], rate: [rate], throughput: false, realtime: false, accuracy: flags.suggest === true, layout: designLayouts.layouts },
    undefined,
  );
  const format = flags.json ? 'json' : flags.format === 'github' ? 'table' : flags.format;
  const realTime = adapters.filter((a) => a.clock.kind === 'real-time');
  if (realTime.length > 0) {
    process.stderr.write(
      `swc bench: ${realTime.map((a) => a.packageName).join(', ')}: window timed by a key's TTL on the server, so real time: about ${Math.ceil(realTimeSeconds(plan))} s each (window ${windowSeconds} s)\n`,
    );
  }
  const stop = new AbortController();
  onShutdown(async () => stop.abort());
  const usersUrl = flags.redisUrl ?? (process.env.REDIS_URL || undefined);
  const report = await runClientBench({
    adapters,
    plan,
    designs,
    requireFrom: process.cwd(),
    open: () => targetFromFlags(flags),
    ...(usersUrl !== undefined ? { usersUrl } : {}),
    namespace: createNamespace(),
    // Every package asked for (--client all): one that cannot be loaded here is named, and the others run.
    skipUnavailable: flags.client.length === CLIENT_NAMES.length,
    allowEviction: flags.allowEviction === true,
    signal: stop.signal,
    say: sayOnStderr,
    onSignal: onShutdown,
    onSecondSignal,
    starting: (adapter) => {
      if (flags.progress) process.stderr.write(`swc bench: ${adapter.packageName}: ${adapter.clock.kind === 'injected' ? 'injected clock' : 'real time'}\n`);
    },
  });
  const comparisons = compareWithDesigns(report);
  const suggestions = suggested ? suggestWithClients(report, { layouts: suggested.layouts, unmeasured: suggested.skipped }) : undefined;
  const document = { ...report, clientComparisons: comparisons, ...(suggestions ? { suggestion: suggestions[0], suggestions } : {}) };
  if (flags.output !== undefined) writeJsonFile('--output', flags.output, document);
  if (format === 'json') {
    printJson(document);
    return undefined;
  }
  const width = outputWidth(flags.wide);
  if (suggestions && format !== 'csv') {
    process.stdout.write(renderSuggestionHeadlines(suggestions));
    if (flags.quiet) return undefined;
    process.stdout.write(`\n${renderSuggestions(suggestions, format, useColor(), width)}\n`);
  }
  // -q: the headline only, a line per package against the designs.
  if (flags.quiet && format !== 'csv') {
    process.stdout.write(
      `${report.clients
        .map((c) =>
          comparisonLine(
            c,
            comparisons.find((x) => x.client === c.client),
          ),
        )
        .join('\n')}\n`,
    );
    return undefined;
  }
  process.stdout.write(renderClientBench(report, comparisons, format, useColor(), { wide: Boolean(flags.wide), width }));
  return undefined;
}
