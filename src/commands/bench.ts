import { Command, Option } from 'commander';
import cliProgress from 'cli-progress';
import type { Redis } from 'ioredis';
import { estimatePeakBytes } from '../bench/footprint.js';
import { CleanupIncompleteError, countNamespace, createNamespace, purgeNamespace, type Namespace } from '../bench/namespace.js';
import { cellsOf, plannedEvents, type BenchPlan } from '../bench/plan.js';
import { presets, type Preset } from '../bench/presets.js';
import { PRESET_STEADY_LIGHTS } from '../bench/steady-lights.js';
import { reportBuild, serverBuild } from '../compare/builds.js';
import { serverInfo } from '../redis/info.js';
import { shown } from '../safety/text.js';
import { RunClock } from '../bench/progress.js';
import { IncompleteBenchError, layoutsAcrossSlots, runBench, type BenchProgress } from '../bench/run.js';
import { keepIncomplete, printIncomplete } from './bench-incomplete.js';
import { suggest, type Unmeasured } from '../bench/suggest.js';
import { runBenchPerLayout, suggestLayouts } from '../bench/suggest-run.js';
import { renderSuggestions, SUGGEST_RULE_TEXT } from '../report/suggest.js';
import { loadScenario, type Scenario } from '../bench/scenario.js';
import { compareReports } from '../compare/diff.js';
import { loadReport } from '../compare/load.js';
import { checkCellEvents, checkInFlight, LIMITS, parseChoice, parseDuration, parseList, parseNumber } from '../bench/values.js';
import { ExitCode, SwcError, UsageError } from '../core/errors.js';
import { preflight, refusalOf } from '../redis/preflight.js';
import type { BenchReport, CellResult } from '../measure/types.js';
import { accuracyEvents } from '../measure/accuracy.js';
import { createLayout, defaultLayoutNames, layoutNames, resolveLayoutName, type LayoutName } from '../layouts/index.js';
import { classifyScriptsDir, scriptsDirLayouts, scriptsDirNotes } from '../layouts/stoplight/scripts-dir.js';
import { benchFormats, formatWindow, renderBench, type BenchFormat } from '../report/bench.js';
import { kb } from '../report/style.js';
import { addCompareOptions, checkOutputPath, compareOptionsFrom, printVerdict, writeJsonFile, type CompareFlags } from './compare.js';
import { confineOrRefuse, guardUntrustedScripts, TRUST_SCRIPTS_HELP, usersServer } from '../safety/probe.js';
import { deniedAsFinding } from '../safety/acl.js';
import { redactUrl } from '../redis/connect.js';
import { withStableKeyNames } from '../bench/stable-keys.js';
import { CHART_PANELS_HELP, checkChartPath, parseChartPanels, terminalChart, writeChart } from './chart.js';
import type { PanelName } from '../report/chart-data.js';
import { action, onShutdown } from './lifecycle.js';
import { parseSweep, MAX_SWEEP_COMBINATIONS, SWEEP_SETTINGS, type SweepAxis } from '../bench/sweep.js';
import { renderSweep } from '../report/sweep.js';
import { outputWidth, proseWidth, wrapText } from '../report/width.js';
import { durationText, estimatePlan, LONG_RUN_SECONDS } from '../bench/estimate.js';
import { dryRunJson, renderDryRun } from '../report/dry-run.js';
import { checkSweep, runSweep } from './bench-sweep.js';
import {
  addClusterOptions,
  addJsonOption,
  addRedisOptions,
  parser,
  printJson,
  sessionFromFlags,
  turnWaitMs,
  waitForRunsOption,
  useColor,
  wantsCluster,
  type ClusterFlags,
  type RedisFlags,
} from './options.js';
import { checkClusterFlags, openClusterTarget } from './bench-cluster.js';
import { addInstructionOptions, countForReport, instructionsOf, type InstructionFlags } from './bench-instructions.js';
import { addBuildsOption, buildsToRun, type BuildsFlags } from './builds.js';
import { benchAcrossBuilds } from './bench-builds.js';

interface BenchFlags extends RedisFlags, CompareFlags, ClusterFlags, InstructionFlags, BuildsFlags {
  trustScripts?: boolean;
  /** `--wait-for-runs`, seconds. */
  waitForRuns?: number;
  /** `--max-ops`: a load cap for every phase (fill, accuracy, throughput). */
  maxOps?: number;
  rate?: number[];
  window?: number[];
  layout?: LayoutName[];
  failureRate: number;
  lights: number;
  duration?: number;
  preset?: string;
  seed: number;
  throughput: boolean;
  connections: number;
  pipeline: number;
  ops?: number;
  time?: number;
  rounds: number;
  appView: boolean;
  format: BenchFormat | 'github';
  json?: boolean;
  progress: boolean;
  scenario?: string;
  baseline?: string;
  realtime?: boolean;
  accuracy?: boolean;
  commands?: boolean;
  threshold?: number;
  suggest?: boolean;
  scripts?: string;
  chart?: boolean;
  chartOut?: string;
  chartPanels?: PanelName[];
  output?: string;
  wide?: boolean;
  dryRun?: boolean;
  percentiles?: number[];
  allowEviction?: boolean;
  sweep: SweepAxis[];
}

const DEFAULT_RATES = [100];
/** Seconds per throughput phase when neither --ops nor --time is given. */
const DEFAULT_PHASE_SECONDS = 1;
/** Rounds per throughput phase: enough for a median and a spread, few enough to keep rounds long. */
const DEFAULT_ROUNDS = 5;
/** tinybench time per layout and cell for the application's view. */
const APP_VIEW_MS = 250;
const DEFAULT_WINDOWS = [300];
/** The failure ratio at which Stoplight's error-rate strategy opens a light, as commonly configured. */
const DEFAULT_THRESHOLD = 0.5;
/** Real seconds per cell under --realtime: short, because one window (often minutes) per cell is a surprise. */
const DEFAULT_REALTIME_SECONDS = 10;

const rateList = parser((v) => parseList('--rate', v, (p) => parseNumber('--rate', p, LIMITS.rate)));
const windowList = parser((v) => parseList('--window', v, (p) => parseDuration('--window', p, LIMITS.window)));
// `all` stands for every registered layout, in registration order.
const layoutList = parser((v) => [...new Set(parseList('--layout', v, (p) => (p === 'all' ? [...layoutNames] : [resolveLayoutName(p)])).flat())]);

/** The checks only real traffic needs: it takes real time and one client must keep up. */
function checkRealtime(flags: BenchFlags, plan: BenchPlan, seconds: number): void {
  if (flags.ops !== undefined || flags.time !== undefined) {
    throw new UsageError('--ops/--time: --realtime has no throughput phase (the paced traffic is the measurement)');
  }
  if (seconds > LIMITS.realtimeSeconds) {
    throw new UsageError(`--duration: with --realtime at most ${LIMITS.realtimeSeconds} s of real time per cell, got ${seconds} s`);
  }
  for (const r of plan.rates) {
    const perSecond = r * plan.lights;
    if (perSecond > LIMITS.realtimeEventsPerSecond) {
      throw new UsageError(
        `--rate/--lights: with --realtime at most ${LIMITS.realtimeEventsPerSecond.toLocaleString('en-US')} events/s per cell, got ${perSecond.toLocaleString('en-US')} (rate ${r} × ${plan.lights} lights)`,
      );
    }
    if (Math.round(r * seconds) < 1) throw new UsageError(`--rate/--duration: rate ${r} for ${seconds} s sends no event`);
  }
}

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

/** Turns validated flags into a plan; flags given on the command line override the preset. */
export function planFromFlags(flags: BenchFlags, preset: Preset | undefined): BenchPlan {
  const realtime = flags.realtime === true;
  const duration = flags.duration ?? (realtime ? DEFAULT_REALTIME_SECONDS : undefined);
  let plan: BenchPlan = {
    // A Stoplight tree holds one version's scripts: by default, bench the layouts it has.
    layouts: flags.layout ?? (flags.scripts !== undefined ? scriptsDirLayouts(flags.scripts) : defaultLayoutNames),
    windows: flags.window ?? preset?.windows ?? DEFAULT_WINDOWS,
    rates: flags.rate ?? preset?.rates ?? DEFAULT_RATES,
    failureRate: flags.failureRate,
    lights: flags.lights,
    ...(duration !== undefined ? { durationSeconds: duration } : {}),
    seed: flags.seed,
    ...(flags.scripts !== undefined ? { scriptsDir: flags.scripts } : {}),
    ...(flags.maxOps !== undefined ? { maxOpsPerSecond: flags.maxOps } : {}),
    ...(preset ? { preset } : {}),
    ...(realtime ? { realtime } : {}),
    ...(flags.throughput && !realtime
      ? {
          throughput: {
            connections: flags.connections,
            pipeline: flags.pipeline,
            seconds: flags.time ?? DEFAULT_PHASE_SECONDS,
            ...(flags.ops !== undefined ? { ops: flags.ops } : {}),
            rounds: flags.rounds ?? DEFAULT_ROUNDS,
            ...(flags.appView !== false ? { appViewMs: APP_VIEW_MS } : {}),
            ...(flags.maxOps !== undefined ? { maxOpsPerSecond: flags.maxOps } : {}),
            ...(flags.percentiles ? { percentiles: flags.percentiles } : {}),
          },
        }
      : {}),
  };
  // Accuracy is measured unless --no-accuracy (or a scenario's "accuracy": false) turns it off.
  if (flags.accuracy === false && flags.threshold !== undefined) {
    throw new UsageError('--no-accuracy/--threshold: --threshold sets the accuracy measurement that --no-accuracy skips');
  }
  if (flags.accuracy !== false) plan = { ...plan, accuracy: { threshold: flags.threshold ?? DEFAULT_THRESHOLD } };
  if (flags.commands === false) plan = { ...plan, commandsPerCall: false };
  if (flags.ops !== undefined && flags.time !== undefined) {
    throw new UsageError('--ops/--time: give one of them, not both (ops per phase, or seconds per phase)');
  }
  if (realtime) checkRealtime(flags, plan, duration ?? DEFAULT_REALTIME_SECONDS);
  // Build each layout once with the run's scripts folder: a missing script or
  // include, or an unknown calling convention, fails here, before Redis.
  for (const name of plan.layouts) createLayout(name, plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {});
  if (plan.throughput) checkInFlight(plan.throughput.connections, plan.throughput.pipeline);
  if (plan.throughput?.ops !== undefined && plan.throughput.ops < (plan.throughput.rounds ?? 1)) {
    throw new UsageError(
      `--ops/--rounds: ${plan.throughput.ops} ops per phase cannot be split over ${plan.throughput.rounds} rounds; give at least one op per round`,
    );
  }
  for (const w of plan.windows) {
    for (const r of plan.rates) {
      const flagsNamed = plan.durationSeconds === undefined ? '--rate/--window' : '--rate/--duration';
      checkCellEvents(r, plan.durationSeconds ?? w, flags.scenario !== undefined ? `${flags.scenario}: rates/windows/duration or ${flagsNamed}` : flagsNamed);
      const events = r * (plan.durationSeconds ?? w) * plan.lights;
      if (events > LIMITS.eventsPerCell) {
        throw new UsageError(
          `--rate/--duration/--lights: ${Math.round(events).toLocaleString('en-US')} events in one cell (rate ${r} × ${plan.durationSeconds ?? w} s × ${plan.lights} lights); at most ${LIMITS.eventsPerCell.toLocaleString('en-US')}`,
        );
      }
    }
  }
  // After the cells' own checks, so a cell too large names --rate/--window first.
  if (plan.accuracy) {
    for (const w of plan.windows) {
      for (const r of plan.rates) {
        const events = accuracyEvents(w, r);
        if (events > LIMITS.eventsPerCell) {
          throw new UsageError(
            `--accuracy: ${events.toLocaleString('en-US')} events to measure accuracy at ${r}/s over 1.25 windows of ${w} s; at most ${LIMITS.eventsPerCell.toLocaleString('en-US')} (--no-accuracy skips it)`,
          );
        }
      }
    }
  }
  return plan;
}

/**
 * Fills every flag not given on the command line (absent, or holding
 * commander's default) from the scenario, so flags override the file.
 */
export function withScenario(flags: BenchFlags, scenario: Scenario, given: (flag: keyof BenchFlags) => boolean): BenchFlags {
  const pick = <K extends keyof BenchFlags>(flag: K, value: BenchFlags[K] | undefined): BenchFlags[K] =>
    given(flag) || value === undefined ? flags[flag] : value;
  return {
    ...flags,
    layout: pick('layout', scenario.layouts && [...scenario.layouts]),
    window: pick('window', scenario.windows && [...scenario.windows]),
    rate: pick('rate', scenario.rates && [...scenario.rates]),
    failureRate: pick('failureRate', scenario.failureRate),
    lights: pick('lights', scenario.lights),
    duration: pick('duration', scenario.duration),
    seed: pick('seed', scenario.seed),
    preset: pick('preset', scenario.preset),
    throughput: pick('throughput', scenario.throughput === undefined ? undefined : scenario.throughput !== false),
    accuracy: pick('accuracy', scenario.accuracy),
    threshold: pick('threshold', scenario.threshold),
    ...(scenario.throughput
      ? {
          connections: pick('connections', scenario.throughput.connections),
          pipeline: pick('pipeline', scenario.throughput.pipeline),
          ops: pick('ops', scenario.throughput.ops),
          time: pick('time', scenario.throughput.seconds),
          rounds: pick('rounds', scenario.throughput.rounds),
        }
      : {}),
  };
}

const etaText = (seconds: number | null): string =>
  seconds === null ? '…' : seconds < 60 ? `${Math.ceil(seconds)} s` : `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;

const PHASES = ['write', 'read', 'request'] as const;

/**
 * Progress on stderr: a bar on a TTY that follows time (fill and throughput
 * phases weighed by how long they take) with an estimate of the time left,
 * one line per cell and phase otherwise. `stop` clears the bar; call it
 * before printing results, or the bar's cursor handling lands on the table.
 */
function progressReporter(enabled: boolean, plan: BenchPlan): { hooks: BenchProgress; stop: () => void } {
  if (!enabled) return { hooks: {}, stop: () => undefined };
  const realtime = plan.realtime === true;
  const clock = new RunClock(plannedEvents(plan), plan.windows.length * plan.rates.length, plan.layouts.length, plan.throughput);
  const STEPS = 1000;
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: 'swc bench [{bar}] {percentage}% | {left} left | {cell}', hideCursor: true, stream: process.stderr, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(STEPS, 0, { cell: '', left: '…' });
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      bar.stop();
    };
    onShutdown(async () => stop());
    const show = (payload: Record<string, string> = {}): void =>
      bar.update(Math.round(clock.fraction() * STEPS), { ...payload, left: etaText(clock.etaSeconds()) });
    const where = (cell: { layout: string; windowSeconds: number; rate: number }): string =>
      `${cell.layout} ${formatWindow(cell.windowSeconds)} @ ${cell.rate}/s`;
    const hooks: BenchProgress = {
      onCellStart: (cell) => {
        clock.cellStart();
        show({ cell: `${where(cell)}: filling` });
      },
      onEvents: (written: number) => {
        clock.events(written);
        show();
      },
      onThroughput: (group, p) => {
        clock.round(PHASES.indexOf(p.phase), p.round, p.target, p.fraction);
        const cell = group[p.target] ?? group[0];
        show(cell ? { cell: `${where(cell)}: ${p.phase} round ${p.round + 1}` } : {});
      },
      onCellDone: () => {
        clock.cellDone();
        show();
      },
    };
    return { hooks, stop };
  }
  let at = '';
  // Progress lines off a TTY fit COLUMNS when it is set (a log keeps them whole otherwise).
  const width = proseWidth({ stream: process.stderr });
  const say = (line: string): void => void process.stderr.write(`${wrapText(line, width, 4)}\n`);
  const hooks: BenchProgress = {
    onCellStart: (cell, i: number, n: number) => {
      clock.cellStart();
      at = `${i + 1}/${n}`;
      // Real traffic takes real time: say when each cell's starts.
      if (realtime) {
        say(`swc bench: [${at}] ${cell.layout} window ${formatWindow(cell.windowSeconds)} at ${cell.rate}/s: real traffic for ${cell.durationSeconds} s`);
      }
    },
    // One line per phase: a log (or a test) sees where a long run is.
    onEvents: (written: number) => clock.events(written),
    onThroughput: (_group, p) => clock.round(PHASES.indexOf(p.phase), p.round, p.target, p.fraction),
    onPhase: (cell, phase: string, group) =>
      say(
        `swc bench: [${at}] ${group.map((c) => c.layout).join(', ')} window ${formatWindow(cell.windowSeconds)} at ${cell.rate}/s: ${phase} throughput phase` +
          (group.length > 1 ? ' (layouts alternating round by round)' : '') +
          `; about ${etaText(clock.etaSeconds())} left`,
      ),
    onCellDone: (r: CellResult, i: number, n: number) => {
      clock.cellDone();
      say(
        `swc bench: [${i + 1}/${n}] ${r.layout} window ${formatWindow(r.windowSeconds)} at ${r.rate}/s: ` +
          `${kb(r.memory.bytesPerLight)} KB per light` +
          (r.throughput ? `, request ${Math.round(r.throughput.request.opsPerSec).toLocaleString('en-US')} ops/s` : '') +
          (r.realtime
            ? `, sent ${r.realtime.achievedRate.toFixed(1)}/s per light (asked ${r.realtime.requestedRate}), write p99 ${r.realtime.write.p99Ms.toFixed(2)} ms`
            : ''),
      );
    },
  };
  return { hooks, stop: () => undefined };
}

/** `--percentiles 50,90,99,99.9`: up to 8 distinct numbers above 0 and below 100, in the order given. */
export function parsePercentiles(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const part of parts) {
    const n = Number(part);
    if (part === '' || !Number.isFinite(n) || n <= 0 || n >= 100) {
      throw new UsageError(`--percentiles: each must be a number above 0 and below 100 (e.g. 50,90,99,99.9), got "${value}"`);
    }
    if (!out.includes(n)) out.push(n);
  }
  if (out.length > 8) throw new UsageError(`--percentiles: at most 8, got ${out.length}`);
  return out;
}

/** How long the clean-up after a signal may take: the signal handler exits at 8 s whatever happens. */
const SIGNAL_CLEANUP_BOUND_MS = 4000;
/** How long the clean-up after a finished or failed run may wait out BUSY or a pause. */
const CLEANUP_BOUND_MS = 10_000;
/** How long a stopping run may take to notice the stop before the clean-up starts anyway. */
const STOP_WAIT_MS = 1500;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The command that removes a run's leftovers, naming host, port, database
 * and namespace, never a password (a URL with credentials gets a note instead).
 */
export function cleanHint(url: string, namespace: Namespace): string {
  const parsed = new URL(url);
  const credentials = parsed.username || parsed.password ? ' (add your user and password to the URL)' : '';
  return `swc clean --redis-url ${plainTarget(url)} --namespace ${namespace.prefix} --yes${credentials}`;
}

/** `redis://host:port/db` of a URL: where a run writes, without credentials. */
function plainTarget(url: string): string {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '') || '0';
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}/${db}`;
}

/**
 * Removes the run's keys within `boundMs` on a connection of
 * its own (the run's may be stuck behind a paused write) and says on stderr
 * what was removed, or what was left and the command that removes it.
 */
export async function cleanUp(
  connectAnother: () => Promise<Redis>,
  current: Redis,
  url: string,
  namespace: Namespace,
  boundMs: number,
  node?: string,
): Promise<void> {
  const on = node !== undefined ? ` on node ${node}` : '';
  const opened: Redis[] = [];
  const deadline = Date.now() + boundMs;
  const open = async (): Promise<Redis> => {
    for (;;) {
      try {
        const redis = await connectAnother();
        opened.push(redis);
        return redis;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // A long script of another client answers even PING with BUSY: wait it out, within the bound.
        if (/BUSY/.test(message) && Date.now() < deadline) {
          await sleep(100);
          continue;
        }
        // No new connection (maxclients, say): the run's own may still work.
        if (current.status === 'ready') return current;
        throw err;
      }
    }
  };
  try {
    const removed = await Promise.race([
      open().then((redis) => purgeNamespace(redis, namespace, 5, Math.max(0, deadline - Date.now()))),
      sleep(boundMs + 500).then(() => {
        throw new CleanupIncompleteError(
          null,
          `Redis did not finish the deletes within ${(boundMs + 500) / 1000} s (writes paused with CLIENT PAUSE, or a long script running)`,
        );
      }),
    ]);
    if (removed > 0) process.stderr.write(`swc bench: removed ${removed} key(s) of this run under ${namespace.pattern}${on}\n`);
  } catch (err) {
    const reason = err instanceof CleanupIncompleteError ? err.reason : err instanceof Error ? err.message : String(err);
    // SCAN is a read: it answers while writes are paused.
    const left = await Promise.race([open().then((redis) => countNamespace(redis, namespace)), sleep(1000).then(() => null)]).catch(() => null);
    if (left === 0) return;
    process.stderr.write(
      `swc bench: could not remove ${left === null ? 'some' : left} key(s) of this run under ${namespace.pattern}${on}: ${reason}; ` +
        `when Redis answers again, remove them with: ${cleanHint(url, namespace)}\n`,
    );
  } finally {
    for (const redis of opened) redis.disconnect();
  }
}

/** Above this shortfall a realtime cell measured this client's limits more than the layout's. */
const SHORTFALL_WARNING = 0.05;

/** Says on stderr which realtime cells could not keep pace, so a slow client is not read as a slow layout. */
function warnShortfall(report: BenchReport): void {
  for (const r of report.results) {
    if (!r.realtime || r.realtime.shortfallFraction <= SHORTFALL_WARNING) continue;
    process.stderr.write(
      `swc bench: warning: ${r.layout} window ${formatWindow(r.windowSeconds)} at ${r.rate}/s fell behind: ` +
        `sent ${r.realtime.achievedRate.toFixed(1)}/s per light (${(r.realtime.shortfallFraction * 100).toFixed(1)}% short); ` +
        `this client, not the layout, set the pace\n`,
    );
  }
}

/** `swc bench`: drive synthetic traffic through each layout, measure memory per light. */
export function benchCommand(): Command {
  const command = new Command('bench')
    .description(
      'drive synthetic traffic through each layout with an injected clock (or real traffic with --realtime); measure memory per light, throughput and latency',
    )
    .option('--rate <list>', `requests per second per light, comma-separated (default ${DEFAULT_RATES.join(',')})`, rateList)
    .option('--window <list>', `window sizes, comma-separated: 300, 90s, 5m, 1h (default ${DEFAULT_WINDOWS.join(',')} s)`, windowList)
    .addOption(
      new Option(
        '--layout <list>',
        `layouts, comma-separated: ${layoutNames.join(', ')}, a manifest file, or all (default ${defaultLayoutNames.join(',')})`,
      ).argParser(layoutList),
    )
    .option(
      '--failure-rate <0..1>',
      'share of failures (seeded Bernoulli per event)',
      parser((v) => parseNumber('--failure-rate', v, LIMITS.failureRate)),
      0.5,
    )
    .option(
      '--lights <n>',
      'lights per cell; memory is reported per light',
      parser((v) => parseNumber('--lights', v, LIMITS.lights)),
      1,
    )
    .option(
      '--duration <time>',
      `traffic time per cell: simulated (default one window), or real with --realtime (default ${DEFAULT_REALTIME_SECONDS} s, at most 1 h)`,
      parser((v) => parseDuration('--duration', v, LIMITS.duration)),
    )
    .option('--realtime', "real traffic paced at --rate on the server's clock for --duration real seconds per cell; no throughput phase")
    .option(
      '--preset <name>',
      `a named matrix: ${Object.keys(presets).join(', ')} (with published figures)`,
      parser((v) => parseChoice('--preset', v, Object.keys(presets))),
    )
    .option(
      '--seed <n>',
      'seed for outcomes and event ids (same seed, same bytes)',
      parser((v) => parseNumber('--seed', v, LIMITS.seed)),
      1,
    )
    .option('--no-throughput', 'memory only: skip the throughput and latency phases')
    .option('--no-commands', 'skip the commands-per-call phase (INFO commandstats over a few calls of each operation)')
    .option('--accuracy', "measure each layout's failure ratio against the exact window (the default; kept for old scripts)")
    .option(
      '--no-accuracy',
      'skip the accuracy phase: by default each layout also runs 1.25 windows of traffic with an incident on a light of its own, its reads compared with the exact window, and a short probe of its server µs per write and read',
    )
    .option(
      '--threshold <0..1>',
      `accuracy: the failure ratio at which a light opens; reads deciding differently from the exact window are counted (default ${DEFAULT_THRESHOLD})`,
      parser((v) => parseNumber('--threshold', v, LIMITS.failureRate)),
    )
    .option(
      '--suggest',
      `rank every layout (or those of --layout) for each window and rate by memory per light, server µs per request and accuracy, and say which to pick in a paragraph; rule: ${SUGGEST_RULE_TEXT}; layouts run one at a time, so one whose script fails is named and the others still ranked`,
    )
    .option(
      '--connections <n>',
      'throughput: concurrent connections',
      parser((v) => parseNumber('--connections', v, LIMITS.connections)),
      4,
    )
    .option(
      '--pipeline <n>',
      'throughput: operations per pipelined batch on each connection',
      parser((v) => parseNumber('--pipeline', v, LIMITS.pipeline)),
      1,
    )
    .option(
      '--ops <n>',
      'throughput: operations per phase (instead of --time)',
      parser((v) => parseNumber('--ops', v, LIMITS.ops)),
    )
    .option(
      '--max-ops <n/s>',
      'a load cap for every phase (fill, accuracy, throughput): at most n calls per second over every connection (needed for throughput on a server named only by REDIS_URL)',
      parser((v) => parseNumber('--max-ops', v, { min: 1, max: 10_000_000, integer: true })),
    )
    .option(
      '--time <seconds>',
      `throughput: seconds per phase per layout, split over the rounds (default ${DEFAULT_PHASE_SECONDS})`,
      parser((v) => parseDuration('--time', v, LIMITS.time)),
    )
    .option(
      '--rounds <n>',
      'throughput: rounds per phase, the layouts alternating (A B A B …); figures are medians with min and max',
      parser((v) => parseNumber('--rounds', v, LIMITS.rounds)),
      DEFAULT_ROUNDS,
    )
    .option(
      '--no-app-view',
      `throughput: skip the application's view (one request at a time through ioredis, timed with tinybench, ${APP_VIEW_MS} ms per layout and cell)`,
    )
    .addOption(
      new Option('--format <format>', 'output format (github: with --baseline, GitHub Actions annotations and $GITHUB_STEP_SUMMARY)')
        .choices([...benchFormats, 'github'])
        .default('table'),
    )
    .option('--no-progress', 'no progress on stderr')
    .option(
      '--scripts <dir>',
      "run the layouts' scripts from this folder: a Stoplight source tree or installed gem (its own scripts, through swc's manifest of that version's calling convention), or an edited copy of swc's lua/ folder; a manifest layout reads its scripts here instead of its scriptsRoot",
      parser((v) => {
        classifyScriptsDir(v);
        return v;
      }),
    )
    .option('--allow-eviction', 'run even when the run may not fit under maxmemory (a cell during which Redis evicts still fails)')
    .option('--scenario <file>', 'run a scenario file (JSON; see docs/ci.md, "Scenario files"); flags given here override its fields')
    .option('--baseline <file>', 'compare this run with a saved result (swc bench --json) and exit 1 on a regression, as swc compare does')
    .option(
      '--chart',
      'after the table, a terminal chart (memory per light against window; --chart-panels for more); printed even when stdout is not a terminal, never without this flag',
    )
    .option('--chart-out <file>', 'also write the chart as a standalone SVG (.svg) or PNG (.png); with --baseline: the change from the baseline')
    .option('--chart-panels <list>', CHART_PANELS_HELP, (v) => parseChartPanels('--chart-panels', v))
    .option('--wide', 'tables with every column (encodings and long ratio names inline); wider than 120 columns')
    .option('--trust-scripts', TRUST_SCRIPTS_HELP)
    .addOption(waitForRunsOption())
    .option('--output <file>', 'also save the full result as JSON to this file (with --baseline too, whatever is printed)')
    .option(
      '--percentiles <list>',
      'latency percentiles of the throughput tables and JSON (percentilesMs), as memtier takes them, e.g. 50,90,99,99.9 (default: 50,99,99.9)',
      parser(parsePercentiles),
    )
    .option('--dry-run', 'print the cells, their phases and the estimated time, then stop: nothing is sent to Redis and no server is started')
    .option(
      '--sweep <setting=v1,v2,…>',
      `encoding what-if, repeatable: run the matrix on a fresh private server per value (and once on the defaults), then compare; settings: ${SWEEP_SETTINGS.join(', ')}; several flags run every combination (at most ${MAX_SWEEP_COMBINATIONS})`,
      (value: string, previous: SweepAxis[]) => [...previous, parser(parseSweep)(value)],
      [] as SweepAxis[],
    );
  addInstructionOptions(command);
  addCompareOptions(command);
  addJsonOption(command);
  addRedisOptions(command, { privateServer: true });
  addClusterOptions(command);
  addBuildsOption(command);
  command.addHelpText(
    'after',
    `
By default time is injected: a 10-minute window fills in well under a second.
Memory is MEMORY USAGE <key> SAMPLES 0 summed over each light's keys. On a server swc did
not start, every key goes under swc-bench:<run id>: and is deleted at the end,
also on Ctrl-C (swc clean removes what a killed run left). Before writing there,
swc refuses (exit 3) when the run could make Redis evict or refuse writes
(maxmemory; --allow-eviction runs anyway), when the server is a replica or lacks
replicas for min-replicas-to-write, or when the user lacks a permission; a cell
during which Redis evicted, restarted or was paused fails instead of reporting.

Throughput: each phase (write, read, request) runs --rounds rounds with the
layouts of a window and rate alternating (A B A B …); figures are medians with
their spread, marked noisy above 25%, and ratios are medians of per-round
ratios. "Engine capacity" is --connections × --pipeline calls in flight (the
server's capacity); "Application's view" is one request at a time through
ioredis, timed with tinybench (what one application thread waits).

With --realtime, nothing is injected: each cell sends every light's events
at --rate per second, evenly spaced on a monotonic clock, for --duration
real seconds (default ${DEFAULT_REALTIME_SECONDS} s, not one window: a 10-minute window would
be a 10-minute wait per cell), and the scripts take the time from Redis TIME.
Cells run one after another, so layouts never compete for the machine.
A client that falls behind keeps sending as fast as it can and reports the
shortfall; it never drops events. Reported per cell: achieved rate per
light, how late events left (p99, max), write latency (p50/p99/p99.9),
then memory per light as usual. The throughput phase is skipped: the paced
traffic is the measurement. Limits: --duration at most 1 h, rate × lights
at most ${LIMITS.realtimeEventsPerSecond.toLocaleString('en-US')} events/s per cell.

Redis Cluster (--cluster with --redis-url seeds, or --cluster-shards <n> for a
private cluster): light i of a cell goes to primary i mod n (names picked so
their slot is on it), each primary fills its own lights at once, memory per
light sums used_memory over the primaries and reads MEMORY USAGE on the owner,
and throughput keeps --connections sockets on every primary, all busy at once.
A layout whose scripts take keys in several hash slots is not run: it is a
cluster-safety finding (the CROSSSLOT error Redis gave one real call) in the
results, with its hash-tagged variant run in its place where there is one
(stoplight-v5 → stoplight-v5-tagged, which Stoplight never shipped). Findings
do not change the exit code; a run where no layout can run exits 3, as does a
node that dies or a slot that moves during the run. Not with --realtime.

Exit codes: 0 ok, 1 regression against --baseline, 2 bad usage or input
(nothing sent to Redis), 3 runtime failure (Redis unreachable, script error),
130/143 interrupted (the run's keys are removed first).

Examples:
  swc bench --rate 100 --window 300
  swc bench --preset blog
  # which layout to pick, and why:
  swc bench --suggest --window 5m --rate 100 --no-throughput
  swc bench --rate 10,100 --window 1m,10m --format markdown
  swc bench --redis-url redis://127.0.0.1:6379 --json > result.json
  swc bench --scenario fixtures/scenarios/small.json \\
    --baseline fixtures/baselines/small.json
  swc bench --realtime --rate 100 --window 1m --duration 30s
  swc bench --layout all --window 5m --rate 10 --no-throughput \\
    --sweep hash-max-listpack-value=64,128,256
  swc bench --cluster-shards 3 --lights 30 --window 60 --rate 10
  swc bench --cluster \\
    --redis-url redis://10.0.0.1:7000 --redis-url redis://10.0.0.2:7000
  # a layout of your own (docs/manifests.md, "Your own layout"):
  swc bench --layout ./my-window.json,stoplight-v6
  # Stoplight's own scripts, from the installed gem:
  swc bench --scripts "$(bundle show stoplight)"`,
  );
  return command.action(
    action(async (given: BenchFlags, cmd: Command) => {
      const typed = (flag: keyof BenchFlags): boolean => cmd.getOptionValueSource(flag) === 'cli';
      if (given.json && typed('format') && given.format !== 'json') {
        throw new UsageError(`--json/--format: --json means --format json; drop one of them (got --format ${given.format})`);
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
      if (flags.scripts !== undefined && flags.layout === undefined)
        for (const note of scriptsDirNotes(flags.scripts)) process.stderr.write(`swc bench: ${note}\n`);
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
        plan = memoryOnly;
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
      if (combinations) {
        // One fresh private server per combination (src/commands/bench-sweep.ts); each runs the same plan.
        const sweep = await runSweep({
          axes: flags.sweep,
          combinations,
          serverArgs: flags.redisServerArg,
          progress: flags.progress,
          run: async (session, signal) => {
            const namespace = createNamespace();
            const progress = progressReporter(flags.progress, plan);
            progress.hooks.onWarning = (message: string) => process.stderr.write(`swc bench: warning: ${message}\n`);
            try {
              return withStableKeyNames(
                await runBench({ signal, session, plan, namespace, progress: progress.hooks, options, turnWaitMs: turnWaitMs(flags.waitForRuns) }),
                namespace.prefix,
              );
            } finally {
              progress.stop();
            }
          },
        });
        if (flags.output !== undefined) writeJsonFile('--output', flags.output, sweep);
        for (const run of sweep.sweep) warnShortfall(run.report);
        if (format === 'json') printJson(sweep);
        else process.stdout.write(renderSweep(sweep, format, useColor(), { wide: Boolean(flags.wide), width: outputWidth(flags.wide) }));
        return undefined;
      }
      // Scripts swc did not write are probed on a private server before they may reach the user's (src/safety/probe.ts).
      const usersUrl = usersServer(flags);
      const untrusted = await guardUntrustedScripts({
        layouts: plan.layouts,
        layoutOptions: plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {},
        privateServer: usersUrl === undefined,
        trust: flags.trustScripts === true,
        target: usersUrl === undefined ? '' : redactUrl(usersUrl),
        command: 'swc bench',
      });
      if (wantsCluster(flags)) checkClusterFlags(flags);
      const cluster = wantsCluster(flags) ? await openClusterTarget(flags) : undefined;
      const session = cluster ? cluster.set.shards[0]?.session : await sessionFromFlags(flags);
      if (!session) throw new SwcError('the cluster has no primary', ExitCode.runtime);
      // A baseline of another build: refused before any cell runs (a verdict would blame the layout for the build).
      if (baseline) await refuseOtherBuild(baseline, session.redis, flags.output);
      const namespace = createNamespace();
      const stop = new AbortController();
      let running: Promise<BenchReport> | undefined;
      let finished = false;
      // On every way out, Ctrl-C included: stop writing first, then delete the
      // run's keys (only under its namespace), then the session closes.
      onShutdown(async () => {
        stop.abort();
        // A run stuck behind a paused write does not notice the stop; clean up anyway.
        // Still running here means a signal stopped it: the handler's 8 s bound applies.
        const bound = running && !finished ? SIGNAL_CLEANUP_BOUND_MS : CLEANUP_BOUND_MS;
        if (running) await Promise.race([running.catch(() => undefined), sleep(STOP_WAIT_MS)]);
        if (cluster) return cluster.cleanUp(namespace, bound, cleanUp);
        if (session.server) return;
        await cleanUp(() => session.connectAnother(), session.redis, session.url, namespace, bound);
      });
      const clustered = cluster ? await cluster.prepare(plan, namespace, flags.allowEviction === true) : undefined;
      if (clustered) plan = clustered.plan;
      if (!session.server && !cluster) {
        // Always shown (--no-progress too): the run id is what finds leftovers.
        process.stderr.write(
          `${wrapText(`swc bench: run ${namespace.prefix}: writing only under ${namespace.pattern} on ${plainTarget(session.url)}; removed at the end`, proseWidth({ stream: process.stderr }), 4)}\n`,
        );
        const report = await preflight(session.redis, { prefix: namespace.prefix, peakBytes: estimatePeakBytes(plan).bytes });
        const spanning = report.cluster ? layoutsAcrossSlots(plan, namespace.prefix) : [];
        if (suggested && spanning.length > 0 && spanning.length < plan.layouts.length) {
          // --suggest ranks the others and names these.
          for (const s of spanning)
            suggested.skipped.push({ layout: s.layout, status: 'skipped', reason: `its scripts take keys in ${s.slots.length} hash slots (cluster mode)` });
          plan = { ...plan, layouts: plan.layouts.filter((l) => !spanning.some((s) => s.layout === l)) };
        } else if (spanning.length > 0) {
          throw new SwcError(
            `refusing to write to this server: it runs in cluster mode, and ${spanning.map((s) => `${s.layout}'s scripts take keys in ${s.slots.length} hash slots`).join(', ')} ` +
              `(Redis would answer CROSSSLOT); leave ${spanning.length > 1 ? 'those layouts' : 'it'} out with --layout`,
            ExitCode.runtime,
          );
        }
        const refusal = refusalOf(report, flags.allowEviction === true);
        if (refusal) throw new SwcError(`refusing to write to this server: ${refusal}`, ExitCode.runtime);
        for (const finding of report.findings) {
          const note = finding.advisory ? 'note' : 'warning (--allow-eviction)';
          process.stderr.write(`swc bench: ${note}: ${finding.detail}\n`);
        }
      }
      if (plan.realtime && flags.progress) {
        const cells = cellsOf(plan).length;
        process.stderr.write(`swc bench: realtime: ${cells} cell(s) × ${plan.durationSeconds ?? 0} s of real traffic, one after another\n`);
      }
      // After the probe, on the user's server: the scripts run as the run's temporary ACL user (src/safety/acl.ts).
      const runUser = untrusted
        ? await confineOrRefuse(untrusted, cluster ? cluster.set.shards.map((s) => s.session.redis) : session.redis, namespace, (c) => void onShutdown(c))
        : null;
      const progress = progressReporter(flags.progress, plan);
      progress.hooks.onWarning = (message: string) => process.stderr.write(`swc bench: warning: ${message}\n`);
      progress.hooks.onWait = (others) =>
        process.stderr.write(
          `swc bench: another swc run is writing to this ${cluster ? 'cluster' : 'server'} (${others.join(', ')}); waiting for it to end (at most ${turnWaitMs(flags.waitForRuns) / 1000} s)\n`,
        );
      const benchRun = {
        signal: stop.signal,
        turnWaitMs: turnWaitMs(flags.waitForRuns),
        ...(cluster ? { shards: cluster.set, findings: clustered?.findings ?? [] } : { session }),
        plan,
        namespace,
        progress: progress.hooks,
        options: optionsOf(plan),
      };
      const unmeasured: Unmeasured[] = [...(suggested?.skipped ?? [])];
      running = suggested
        ? runBenchPerLayout(benchRun).then(({ report: joined, failed }) => {
            unmeasured.push(...failed);
            return joined;
          })
        : runBench(benchRun);
      void running.then(
        () => (finished = true),
        () => (finished = true),
      );
      const outcome = await deniedAsFinding(running, session.redis, runUser).catch(keepIncomplete);
      if (outcome instanceof IncompleteBenchError) {
        progress.stop();
        return printIncomplete(outcome, namespace.prefix, format, { wide: Boolean(flags.wide), output: flags.output, scriptsDir: plan.scriptsDir });
      }
      let measured = withStableKeyNames(outcome, namespace.prefix);
      if (counting) measured = await countForReport(counting, session, plan, measured, { progress: flags.progress, signal: stop.signal });
      const suggestions = suggested ? suggest(measured, { layouts: [...suggested.layouts], unmeasured }) : undefined;
      // --suggest: the JSON gains `suggestion` (the first window and rate) and `suggestions` (all of them).
      const report = suggestions ? { ...measured, suggestion: suggestions[0], suggestions } : measured;
      progress.stop();
      if (flags.output !== undefined) writeJsonFile('--output', flags.output, report);
      warnShortfall(report);
      let code: number | undefined;
      if (baseline) {
        const verdict = compareReports(baseline.report, report, compareOptionsFrom(flags));
        code = printVerdict(
          verdict,
          baseline,
          { label: 'this run', report },
          { json: format === 'json', format: github ? 'github' : format === 'markdown' ? 'markdown' : 'table', wide: Boolean(flags.wide) },
        );
      } else if (format === 'json') printJson(report);
      else process.stdout.write(renderBench(report, format, useColor(), { wide: Boolean(flags.wide), width: outputWidth(flags.wide) }));
      if (suggestions && format !== 'json' && format !== 'csv')
        process.stdout.write(`\n${renderSuggestions(suggestions, format, useColor(), outputWidth(flags.wide))}`);
      const charted = [...(baseline ? [baseline] : []), { label: 'this run', report }];
      if (flags.chart) {
        const text = terminalChart(charted, flags.chartPanels);
        process.stdout.write(format === 'markdown' ? `\n\`\`\`text\n${text}\`\`\`\n` : `\n${text}`);
      }
      if (flags.chartOut !== undefined) await writeChart('--chart-out', flags.chartOut, charted, 'swc bench', flags.chartPanels);
      return code;
    }),
  );
}
