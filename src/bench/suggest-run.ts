import { singleTarget } from '../redis/target.js';
import { redisOf } from './shards.js';
import { ScriptError, UsageError } from '../core/errors.js';
import { createLayout, layoutNames, type LayoutName } from '../layouts/index.js';
import type { BenchReport } from '../measure/types.js';
import { purgeNamespace } from '../run/namespace.js';
import { cellsOf, plannedEvents } from './plan.js';
import { runBench, type BenchProgress, type BenchRun } from './run.js';
import type { Unmeasured } from './suggest.js';

/**
 * The layouts `--suggest` runs: the ones asked for, or every registered
 * layout; a layout that cannot be built (its scripts are not in the
 * `--scripts` folder, say) is left out and named as skipped, unless it was
 * asked for by name (then the usual error stands).
 */
export function suggestLayouts(asked: readonly LayoutName[] | undefined, scriptsDir: string | undefined): { layouts: LayoutName[]; skipped: Unmeasured[] } {
  if (asked) return { layouts: [...asked], skipped: [] };
  const layouts: LayoutName[] = [];
  const skipped: Unmeasured[] = [];
  for (const name of layoutNames) {
    try {
      createLayout(name, scriptsDir !== undefined ? { scriptsDir } : {});
      layouts.push(name);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      skipped.push({ layout: name, status: 'skipped', reason: err.message });
    }
  }
  return { layouts, skipped };
}

/**
 * Runs the plan one layout at a time, so a layout whose script fails (a
 * ScriptError: the layout's fault, not the server's) is named as failed and
 * the others are still ranked; its keys are removed before the next layout
 * runs. Any other error (Redis gone, a disturbed cell, Ctrl-C) ends the run
 * as a plain bench run would. The reports are joined into one.
 */
export async function runBenchPerLayout(run: BenchRun): Promise<{ report: BenchReport; failed: Unmeasured[] }> {
  const reports: BenchReport[] = [];
  const failed: Unmeasured[] = [];
  // Progress counts across the layouts' runs, as one run would.
  const totalCells = cellsOf(run.plan).length;
  const totalEvents = plannedEvents(run.plan);
  let cellsBefore = 0;
  let eventsBefore = 0;
  const hooks = run.progress;
  for (const layout of run.plan.layouts) {
    const plan = { ...run.plan, layouts: [layout] };
    const progress: BenchProgress | undefined = hooks && {
      ...hooks,
      onCellStart: (cell, i) => hooks.onCellStart?.(cell, cellsBefore + i, totalCells),
      onEvents: (written) => hooks.onEvents?.(eventsBefore + written, totalEvents),
      onCellDone: (result, i) => hooks.onCellDone?.(result, cellsBefore + i, totalCells),
    };
    try {
      // Accuracy in line: the ranking weighs each layout's server µs, and a probe beside a fill is timed on a busier machine.
      reports.push(await runBench({ ...run, plan, accuracyInLine: true, ...(progress ? { progress } : {}) }));
    } catch (err) {
      if (!(err instanceof ScriptError)) throw err;
      failed.push({ layout, status: 'failed', reason: err.message });
      // What the failed layout wrote goes, on every primary of a cluster.
      const target = run.shards ?? (run.session ? singleTarget(run.session) : undefined);
      for (const redis of target ? redisOf(target) : []) await purgeNamespace(redis, run.namespace);
    }
    cellsBefore += cellsOf(plan).length;
    eventsBefore += plannedEvents(plan);
  }
  const first = reports[0];
  if (!first) throw new ScriptError(`every layout failed: ${failed.map((f) => `${f.layout} (${f.reason})`).join('; ')}`);
  const seconds = reports.map((r) => r.serverScriptSeconds);
  return {
    report: {
      ...first,
      options: run.options ?? first.options,
      results: reports.flatMap((r) => r.results),
      elapsedSeconds: reports.reduce((sum, r) => sum + r.elapsedSeconds, 0),
      measuringSeconds: reports.reduce((sum, r) => sum + (r.measuringSeconds ?? 0), 0),
      serverScriptSeconds: seconds.some((s) => s === null || s === undefined) ? null : seconds.reduce<number>((sum, s) => sum + (s ?? 0), 0),
    },
    failed,
  };
}
