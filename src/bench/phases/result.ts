import { performance } from 'node:perf_hooks';
import { SCHEMA_VERSION } from '../../core/schema-version.js';
import { SWC_VERSION } from '../../core/version.js';
import { layoutLabel } from '../../layouts/index.js';
import { scriptsGenerations } from '../../layouts/stoplight/scripts-dir.js';
import { scriptCommandDelta, type ScriptCommandStats } from '../../measure/commandstats.js';
import { encodingHints } from '../../measure/encoding-advice.js';
import type { BenchReport, CellCommands, CellResult, ThroughputResult } from '../../measure/types.js';
import type { BenchPlan } from '../plan.js';
import { publishedKb } from '../presets.js';
import { serverWhere } from '../../run/where.js';
import type { Target } from '../../redis/target.js';
import { commandsSkippedReason } from './commands.js';
import type { CellAccuracy, Filled, RunContext } from './context.js';
import { readScriptStats } from './on-shards.js';

/** How a cluster run names its lights (said in the result). */
export const LIGHT_SPREAD =
  'light i of a cell goes to primary i mod n (primaries in slot order): named <window>-<rate>-l<j> with the lowest unused j whose keys hash to a slot of that primary';

/** The script counters when the measuring started, and when (performance.now()). */
export interface MeasuringStart {
  readonly before: ScriptCommandStats | null;
  readonly wallStarted: number;
}

/** A cell's result: its memory, and what its later phases measured. */
export function cellResultOf(plan: BenchPlan, f: Filled, throughput?: ThroughputResult, accuracy?: CellAccuracy, commands?: CellCommands): CellResult {
  const { cell, memory, events, realtime, shards } = f;
  const kb = publishedKb(plan.preset, cell.layout, cell.windowSeconds, cell.rate);
  return {
    layout: cell.layout,
    windowSeconds: cell.windowSeconds,
    rate: cell.rate,
    durationSeconds: cell.durationSeconds,
    // What the window holds at the end: a run shorter than the window fills only part of it.
    eventsInWindow: Math.round(cell.rate * Math.min(realtime?.durationSeconds ?? cell.durationSeconds, cell.windowSeconds)),
    events,
    memory,
    ...(throughput ? { throughput } : {}),
    ...(realtime ? { realtime } : {}),
    ...(accuracy ? { accuracy: accuracy.accuracy, ...(accuracy.serverCost ? { serverCost: accuracy.serverCost } : {}) } : {}),
    ...(commands ? { commands } : {}),
    ...(kb !== undefined ? { published: { kb, bytes: kb * 1024, diff: memory.bytesPerLight / (kb * 1024) - 1 } } : {}),
    ...(shards ? { shards } : {}),
  };
}

/** The layouts' labels by name, when any has one. */
function labelsOf(plan: BenchPlan): Record<string, string> | undefined {
  const labelled = [...new Set(plan.layouts)].flatMap((name) => {
    const label = layoutLabel(name);
    return label === undefined ? [] : [[name, label] as const];
  });
  return labelled.length > 0 ? Object.fromEntries(labelled) : undefined;
}

/** The phases this run did not measure, each with why in a few words (a flag, or what the server allows). */
export function notMeasured(plan: BenchPlan, target: Target): string[] {
  const commands =
    plan.commandsPerCall === false
      ? '--no-commands'
      : plan.realtime
        ? 'not with --realtime'
        : target.cluster
          ? 'a cluster: INFO commandstats is per node'
          : target.private
            ? undefined
            : "a shared server: other clients' commands would count";
  const throughput = plan.realtime ? 'the paced traffic is the measurement' : (plan.throughputSkipped ?? '--no-throughput');
  return [
    ...(plan.throughput ? [] : [`throughput (${throughput})`]),
    ...(commands !== undefined ? [`commands per call (${commands})`] : []),
    ...(plan.accuracy ? [] : ['accuracy (--no-accuracy)']),
  ];
}

/** The report of `results`; `scripts` where the measuring started (null: no script time, no measuring time reported). */
export async function reportOf(ctx: RunContext, results: CellResult[], scripts: MeasuringStart | null): Promise<BenchReport> {
  const { target, plan, info, run } = ctx;
  const measuringSeconds = scripts ? (performance.now() - scripts.wallStarted) / 1000 : undefined;
  const labels = labelsOf(plan);
  const generations = plan.scriptsDir !== undefined ? scriptsGenerations(plan.scriptsDir, plan.layouts) : undefined;
  const delta = scripts ? scriptCommandDelta(scripts.before, await readScriptStats(target)) : null;
  // The accuracy phases' scripts ran on the lane's server, at the same time as the run's own: reported apart, never added.
  const onLane = ctx.lane && scripts ? await ctx.lane.scriptStats() : undefined;
  const commandsSkipped = commandsSkippedReason(target, plan);
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    redis: {
      version: info.version,
      memAllocator: info.memAllocator,
      mode: info.mode,
      private: target.private,
      where: serverWhere(target),
      notMeasured: notMeasured(plan, target),
      config: info.config,
      // Which build measured (a non-Redis server only: Redis reports stay as they were).
      ...(info.server ? { server: info.server.name, serverVersion: info.server.version } : {}),
    },
    options: run.options ?? {},
    results,
    startedAt: new Date(ctx.started).toISOString(),
    elapsedSeconds: (Date.now() - ctx.started) / 1000,
    ...(measuringSeconds !== undefined ? { measuringSeconds } : {}),
    serverScriptSeconds: delta ? delta.usec / 1e6 : null,
    ...(onLane !== undefined ? { accuracyServerScriptSeconds: onLane ? onLane.usec / 1e6 : null } : {}),
    encodingHints: encodingHints(results, info.config),
    ...(target.cluster
      ? {
          cluster: {
            shards: target.shards.length,
            nodes: target.shards.map((s) => s.node),
            private: target.private,
            lightSpread: run.lightSpread ?? LIGHT_SPREAD,
            findings: run.findings ?? [],
          },
        }
      : {}),
    ...(labels ? { layoutLabels: labels } : {}),
    ...(generations && Object.keys(generations).length > 0 ? { generations } : {}),
    ...(commandsSkipped !== undefined ? { commandsSkipped } : {}),
  };
}
