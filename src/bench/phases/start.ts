import { performance } from 'node:perf_hooks';
import { AccuracyLane } from '../accuracy.js';
import { waitForTurn } from '../../run/namespace.js';
import type { Readings, RunContext } from './context.js';
import { everyNode } from './disturbance.js';
import { readCounters, readScriptStats } from './on-shards.js';
import type { MeasuringStart } from './result.js';

/** The warning for shards whose INFO is not allowed (a disturbance there goes unnoticed); undefined when every shard allows it. */
function infoWarning(ctx: RunContext, readings: Readings): string | undefined {
  if (readings.every((r) => r === null)) return 'INFO is not allowed: evictions, pauses and restarts during the run cannot be noticed';
  if (!readings.some((r) => r === null)) return undefined;
  const nodes = ctx.target.shards
    .filter((_, i) => readings[i] === null)
    .map((s) => s.node)
    .join(', ');
  return `INFO is not allowed on ${nodes}: evictions, pauses and restarts there cannot be noticed`;
}

/**
 * Waits for the run's turn on the server, then takes the readings the run
 * is measured against: the INFO counters a disturbance is looked for in, and
 * the script counters and wall clock the run's script time is taken over.
 * Opens the accuracy lane on the way (before the clock: a server's start-up
 * is not the run's work).
 */
export async function startMeasuring(ctx: RunContext): Promise<MeasuringStart> {
  const { run, progress, target } = ctx;
  // Runs on one server take turns: another run's writes would land in this one's figures.
  await waitForTurn(everyNode(ctx), ctx.heartbeat, {
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.turnWaitMs !== undefined ? { timeoutMs: run.turnWaitMs } : {}),
    ...(progress?.onWait ? { onWait: (others: readonly string[]) => progress.onWait?.(others) } : {}),
  });
  ctx.last = await readCounters(target);
  // Started before the clock: a server's start-up is not the run's work.
  ctx.lane =
    target.cluster || run.accuracyInLine
      ? undefined
      : await AccuracyLane.open(
          ctx.session.server,
          ctx.plan,
          (message) => progress?.onWarning?.(message),
          () => run.halt?.(),
        );
  // The run's own server's script time over the run, beside the run's wall time: how much of the wall that server's scripts take.
  const before = await readScriptStats(target);
  const wallStarted = performance.now();
  const warning = infoWarning(ctx, ctx.last);
  if (warning !== undefined) progress?.onWarning?.(warning);
  return { before, wallStarted };
}
