import type { Redis } from 'ioredis';
import type { Layout, Light } from '../layouts/types.js';
import { measureAccuracy, type AccuracyResult, type ServerCost } from '../measure/accuracy.js';
import { BENCH_EPOCH, lightSeed } from '../traffic/events.js';
import { deleteKeys } from './namespace.js';
import type { BenchPlan, Cell } from './plan.js';

/** The light a cell's accuracy is measured on. */
export function accuracyLight(cell: Cell): Light {
  return { name: `w${cell.windowSeconds}-r${cell.rate}-accuracy` };
}

/**
 * The accuracy of a cell's layout (and its server time per write and read)
 * when the plan asks for it (`plan.accuracy`, on by default), measured on a
 * light of its own (deleted afterwards) over a lean connection of its own,
 * so the memory and throughput figures are untouched; undefined otherwise.
 */
export async function cellAccuracy(
  redis: Redis,
  plan: BenchPlan,
  cell: Cell,
  layout: Layout,
  signal?: AbortSignal,
  onEvents?: (written: number) => void,
): Promise<{ accuracy: AccuracyResult; serverCost?: ServerCost } | undefined> {
  if (!plan.accuracy) return undefined;
  const light = accuracyLight(cell);
  let endAt = BENCH_EPOCH + 2 * cell.windowSeconds + 1;
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
      ...(onEvents ? { onEvents } : {}),
    });
    endAt = measured.endAt;
    return { accuracy: measured.accuracy, ...(measured.serverCost ? { serverCost: measured.serverCost } : {}) };
  } finally {
    // After a failure part-way, the probe may have written past the traffic's end: cover it.
    await deleteKeys(redis, layout.keysOf(light, BENCH_EPOCH, Math.max(endAt, BENCH_EPOCH + 2 * cell.windowSeconds + Math.ceil(1000 / cell.rate) + 1)).map((k) => k.key));
  }
}
