import type { BenchReport, CellResult, LatencyStats } from '../../../src/measure/types.js';
import { fixtureRedis, memoryCell } from '../../report-fixtures.js';

/**
 * Fixed results for the chart tests: no Redis, nothing that changes between
 * runs. Three layouts, one of them not a built-in, so nothing can lean on a
 * layout's name: `grows` costs bytes per event, `windowed` bytes per second of
 * window, `flat` the same at every cell.
 */

export const LAYOUTS = ['grows', 'windowed', 'flat'] as const;

/** A figure over five rounds: its median, 10% under it at best, 30% over it at worst. */
const spread = (median: number) => ({ median, min: median * 0.9, max: median * 1.3, spreadFraction: 0.4, noisy: true });

function stats(p50Ms: number, rounds: boolean): LatencyStats {
  const figures = {
    opsPerSec: 10_000,
    p50Ms,
    p99Ms: p50Ms * 4,
    p999Ms: p50Ms * 20,
    meanMs: p50Ms * 1.2,
    ops: 10_000,
    durationSeconds: 1,
    serverUsecPerCall: 10,
  };
  if (!rounds) return figures;
  return {
    ...figures,
    rounds: { count: 5, opsPerSec: spread(10_000), p50Ms: spread(p50Ms), p99Ms: spread(p50Ms * 4), p999Ms: spread(p50Ms * 20), serverUsecPerCall: spread(10) },
  };
}

const BYTES: Record<(typeof LAYOUTS)[number], (windowSeconds: number, rate: number) => number> = {
  grows: (w, r) => 120 * w * r + 700,
  windowed: (w) => 280 * w,
  flat: () => 4096,
};

/** One cell; `published` adds the figure a blog-preset run carries (5% off ours). */
function cell(
  layout: (typeof LAYOUTS)[number],
  windowSeconds: number,
  rate: number,
  options: { published: boolean; throughput: boolean; rounds: boolean },
): CellResult {
  const bytes = BYTES[layout](windowSeconds, rate);
  return {
    ...memoryCell(layout, windowSeconds, rate, bytes),
    ...(options.published && layout !== 'flat' ? { published: { kb: (bytes * 1.05) / 1024, bytes: bytes * 1.05, diff: -0.048 } } : {}),
    ...(options.throughput
      ? {
          throughput: {
            write: stats(0.2, options.rounds),
            read: stats(0.15, options.rounds),
            request: stats(LAYOUTS.indexOf(layout) * 0.2 + 0.3, options.rounds),
            connections: 4,
            pipeline: 1,
          },
        }
      : {}),
  };
}

/** A result over every window and rate given, for every layout; `rounds`: throughput measured over five rounds, with their spread. */
export function result(
  windows: readonly number[],
  rates: readonly number[],
  options: { published?: boolean; throughput?: boolean; rounds?: boolean; layouts?: readonly (typeof LAYOUTS)[number][]; scale?: number } = {},
): BenchReport {
  const layouts = options.layouts ?? LAYOUTS;
  const flags = { published: options.published ?? false, throughput: options.throughput ?? false, rounds: options.rounds ?? false };
  const results = windows.flatMap((w) => rates.flatMap((r) => layouts.map((l) => cell(l, w, r, flags))));
  const scaled =
    options.scale === undefined
      ? results
      : results.map((c) => ({ ...c, memory: { ...c.memory, bytesPerLight: c.memory.bytesPerLight * (options.scale ?? 1) } }));
  return {
    schemaVersion: 3,
    swcVersion: '0.1.0',
    redis: fixtureRedis,
    options: {
      layouts,
      windows,
      rates,
      failureRate: 0.5,
      lights: 1,
      durationSeconds: null,
      seed: 1,
      preset: options.published ? 'blog' : null,
      throughput: false,
    },
    results: scaled,
    startedAt: '2026-01-01T00:00:00.000Z',
    elapsedSeconds: 1.5,
  };
}
