import type { Redis } from 'ioredis';
import { unixSecondsOf } from '../../core/format.js';
import type { ThroughputResult } from '../../measure/types.js';
import { accuracyLight } from '../accuracy.js';
import { accuracyInLine, accuracyOn } from './cell-accuracy.js';
import { redisOf, shardOfLight } from '../shards.js';
import { commandsPhase } from './commands.js';
import { eventsSoFar, type CellAccuracy, type Filled, type RunContext, type Span } from './context.js';
import { deleteLights } from './on-shards.js';
import type { ReportQueue } from './queue.js';
import { cellResultOf } from './result.js';

/** A cell's accuracy phase: ended (in line), running on the lane, or started with the run (see AccuracyAhead). */
type AccuracyOutcome =
  | { readonly done: CellAccuracy | undefined }
  | { readonly pending: Promise<CellAccuracy | undefined> }
  | { readonly ahead: { readonly ended: () => boolean; readonly result: () => Promise<CellAccuracy | undefined> } };

/**
 * A cell's accuracy phase: started with the run, on the lane's own server
 * while the run goes on with the next cells, or in line on the shard that
 * owns the accuracy light, checked for a disturbance after.
 */
async function accuracyPhase(ctx: RunContext, f: Filled): Promise<AccuracyOutcome> {
  const { cell, layout, name, index } = f;
  const failed = (err: unknown): never => {
    ctx.failing ??= { layouts: [layout], phase: 'accuracy' };
    throw err;
  };
  const { ahead } = ctx;
  if (ahead) {
    // Read when the cell is reported: a failure counts from then (the earliest failed cell's, as in line).
    const result = async (): Promise<CellAccuracy | undefined> => {
      const outcome = await ahead.result(index);
      if (!('failure' in outcome)) return outcome.accuracy;
      ctx.failing ??= { layouts: [outcome.failure.layout], phase: 'accuracy' };
      throw outcome.failure.error;
    };
    return { ahead: { ended: () => ahead.ended(index), result } };
  }
  // On the lane's own server, while the run goes on with the next cells.
  if (ctx.lane) return { pending: ctx.lane.run((redis) => accuracyOn(ctx, redis, cell, layout, name).catch(failed), `${name}'s accuracy phase`) };
  const redis = redisOf(ctx.target)[shardOfLight(ctx.target, layout, accuracyLight(cell))] as Redis;
  return { done: await accuracyInLine(ctx, redis, cell, layout, name).catch(failed) };
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
  else if ('ahead' in accuracy) queue.addLater(accuracy.ahead.ended, () => accuracy.ahead.result().then(resultOf), f.index);
  // In line: measured already, so reported with its group.
  else queue.addDone(resultOf(accuracy.done), f.index);
}
