/** `swc bench`'s flags (and a scenario's fields) to a plan, refused with exit 2 before Redis is touched. */
import type { BenchPlan } from '../../bench/plan.js';
import type { Preset } from '../../bench/presets.js';
import type { Scenario } from '../../bench/scenario.js';
import { checkCellEvents, checkInFlight, LIMITS } from '../../run/values.js';
import { UsageError } from '../../core/errors.js';
import { createLayout, defaultLayoutNames } from '../../layouts/index.js';
import { scriptsDirLayouts } from '../../layouts/stoplight/scripts-dir.js';
import { accuracyEvents } from '../../measure/accuracy.js';
import {
  APP_VIEW_MS,
  DEFAULT_PHASE_SECONDS,
  DEFAULT_RATES,
  DEFAULT_REALTIME_SECONDS,
  DEFAULT_ROUNDS,
  DEFAULT_THRESHOLD,
  DEFAULT_WINDOWS,
  type BenchFlags,
} from './flags.js';

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
 * `--max-ops` caps what a run sends to a server it shares; refused where the
 * cap would change what is measured or where swc runs on servers of its own only.
 */
function checkMaxOps(flags: BenchFlags): void {
  if (flags.maxOps === undefined) return;
  if (flags.realtime === true)
    throw new UsageError("--max-ops/--realtime: real traffic is paced at each cell's rate, which a cap would change; give one of them");
  const counting = flags.instructions === true ? '--instructions' : flags.profile === true ? '--profile' : undefined;
  if (counting) throw new UsageError(`--max-ops/${counting}: ${counting} runs on swc's private servers only, which need no cap; give one of them`);
  if (flags.sweep.length > 0) throw new UsageError("--max-ops/--sweep: a sweep runs on swc's private servers only, which need no cap; give one of them");
}

/** Turns validated flags into a plan; flags given on the command line override the preset. */
export function planFromFlags(flags: BenchFlags, preset: Preset | undefined): BenchPlan {
  const realtime = flags.realtime === true;
  checkMaxOps(flags);
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
