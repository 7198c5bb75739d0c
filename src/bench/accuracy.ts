import type { Redis } from 'ioredis';
import type { Layout, Light } from '../layouts/types.js';
import { measureAccuracy, type AccuracyResult } from '../measure/accuracy.js';
import { BENCH_EPOCH, lightSeed } from '../traffic/events.js';
import { deleteKeys } from './namespace.js';
import type { BenchPlan, Cell } from './plan.js';

/** The light a cell's accuracy is measured on. */
export function accuracyLight(cell: Cell): Light {
  return { name: `w${cell.windowSeconds}-r${cell.rate}-accuracy` };
}

/**
 * The accuracy of a cell's layout when the plan asks for it (`plan.accuracy`),
 * measured on a light of its own (deleted afterwards), so the memory and
 * throughput figures are untouched; undefined otherwise.
 */
export async function cellAccuracy(redis: Redis, plan: BenchPlan, cell: Cell, layout: Layout, signal?: AbortSignal): Promise<AccuracyResult | undefined> {
  if (!plan.accuracy) return undefined;
  const light = accuracyLight(cell);
  let endAt = BENCH_EPOCH + 3 * cell.windowSeconds + 1;
  try {
    const measured = await measureAccuracy(redis, layout, light, {
      windowSeconds: cell.windowSeconds,
      rate: cell.rate,
      failureRate: plan.failureRate,
      // A stream of its own, the same for every layout of the cell.
      seed: lightSeed(plan.seed, 1_000_003),
      threshold: plan.accuracy.threshold,
      startAt: BENCH_EPOCH,
      ...(signal ? { signal } : {}),
    });
    endAt = measured.endAt;
    return measured.accuracy;
  } finally {
    await deleteKeys(redis, layout.keysOf(light, BENCH_EPOCH, endAt).map((k) => k.key));
  }
}
