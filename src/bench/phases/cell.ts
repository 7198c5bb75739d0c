import type { Redis } from 'ioredis';
import { unixSecondsOf } from '../../core/format.js';
import type { ThroughputResult } from '../../measure/types.js';
import { accuracyLight, cellAccuracy } from '../accuracy.js';
import type { AheadFailure } from './ahead.js';
import { redisOf, shardOfLight } from '../shards.js';
import { commandsPhase } from './commands.js';
import { eventsSoFar, wrote, type CellAccuracy, type Filled, type RunContext, type Span } from './context.js';
import { watch } from './disturbance.js';
import { deleteLights } from './on-shards.js';
import type { ReportQueue } from './queue.js';
import { cellResultOf } from './result.js';

/** A cell's accuracy phase, ended (in line) or running on the lane. */
type AccuracyOutcome = { readonly pending: Promise<CellAccuracy | undefined> } | { readonly done: CellAccuracy | undefined };

/**
 * A cell's accuracy phase: on the lane's own server while the run goes on
 * with the next cells, or in line on the shard that owns the accuracy
 * light, checked for a disturbance after.
 */
async function accuracyPhase(ctx: RunContext, f: Filled): Promise<AccuracyOutcome> {
  const { cell, layout } = f;
  const accuracyOn = (target: Redis): Promise<CellAccuracy | undefined> =>
    cellAccuracy(target, ctx.plan, cell, layout, ctx.run.signal, (n) => wrote(ctx, n)).catch((err: unknown) => {
      ctx.failing ??= { layouts: [layout], phase: 'accuracy' };
      throw ctx.withContext(err, `in ${f.name}, accuracy phase`);
    });
  // Started as the run started: a failure there is reported now, at this cell's turn (the first failed phase's cell named).
  const ahead = ctx.ahead?.of(f.index);
  if (ahead) {
    const pending = ahead.catch((failure: AheadFailure) => {
      if (failure.inPhase) ctx.failing ??= { layouts: [failure.layout], phase: 'accuracy' };
      throw failure.error;
    });
    // Awaited once the cell is cleaned up (see finishCell); a failure known now must not count as unhandled meanwhile.
    pending.catch(() => undefined);
    return { pending };
  }
  // On the lane's own server, while the run goes on with the next cells.
  if (ctx.lane) return { pending: ctx.lane.run(accuracyOn, `${f.name}'s accuracy phase`) };
  const accuracy = await accuracyOn(redisOf(ctx.target)[shardOfLight(ctx.target, layout, accuracyLight(cell))] as Redis);
  if (accuracy) await watch(ctx, f.name, 'accuracy phase');
  return { done: accuracy };
}

/** Where the injected clock stopped, so every hour key it wrote is deleted with the cell's. */
function clockSpanOf(span: Span, throughput: ThroughputResult | undefined): Span {
  if (!throughput) return span;
  return { ...span, to: Math.ceil(throughput.clockEndAt !== undefined ? unixSecondsOf(throughput.clockEndAt) : span.to) + 1 };
}

/**
 * A filled cell's phases after its throughput phase: commands per call,
 * accuracy, then the deletion of its keys; queued to be reported once its
 * accuracy phase has ended.
 */
export async function finishCell(
  ctx: RunContext,
  f: Filled,
  throughput: ThroughputResult | undefined,
  commandsSkipped: string | undefined,
  queue: ReportQueue,
): Promise<void> {
  const { commands, clockSpan } = await commandsPhase(ctx, f, clockSpanOf(f.span, throughput), commandsSkipped);
  const accuracy = await accuracyPhase(ctx, f);
  const resultOf = (accuracy: CellAccuracy | undefined) => cellResultOf(ctx.plan, f, throughput, accuracy, commands);
  await deleteLights(ctx.target, f.layout, f.lights, clockSpan).catch((err: unknown) => {
    throw ctx.withContext(err, `in ${f.name} ${eventsSoFar(ctx)}, while deleting its keys`);
  });
  if ('pending' in accuracy) queue.addPending(accuracy.pending.then(resultOf), f.index);
  // In line: measured already, so reported with its group.
  else queue.addDone(resultOf(accuracy.done), f.index);
}
