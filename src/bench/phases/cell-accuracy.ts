import type { Redis } from 'ioredis';
import type { Layout } from '../../layouts/types.js';
import { cellAccuracy } from '../accuracy.js';
import type { Cell } from '../plan.js';
import { wrote, type CellAccuracy, type RunContext } from './context.js';
import { watch } from './disturbance.js';

/** A cell's accuracy phase on `redis` (see cellAccuracy); an error says the cell (`name`) and the phase. */
export function accuracyOn(ctx: RunContext, redis: Redis, cell: Cell, layout: Layout, name: string): Promise<CellAccuracy | undefined> {
  return cellAccuracy(redis, ctx.plan, cell, layout, ctx.run.signal, (n) => wrote(ctx, n)).catch((err: unknown) => {
    throw ctx.withContext(err, `in ${name}, accuracy phase`);
  });
}

/** The same on the run's own server, checked after for a disturbance there, as every phase in line is. */
export async function accuracyInLine(ctx: RunContext, redis: Redis, cell: Cell, layout: Layout, name: string): Promise<CellAccuracy | undefined> {
  const accuracy = await accuracyOn(ctx, redis, cell, layout, name);
  if (accuracy) await watch(ctx, name, 'accuracy phase');
  return accuracy;
}
