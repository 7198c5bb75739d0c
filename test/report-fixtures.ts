// Small pieces of bench reports for tests of compare and the report: no vitest, no Redis.
import type { BenchReport, CellResult, LatencyStats } from '../src/measure/types.js';

/** A throughput phase's figures: 1,000 ops/s over 1,000 ops in 1 s, 5 µs of server time per call, unless `over` says otherwise. */
export const latencyStats = (over: Partial<LatencyStats> = {}): LatencyStats => ({
  opsPerSec: 1000,
  p50Ms: 0.1,
  p99Ms: 0.2,
  p999Ms: 0.3,
  meanMs: 0.1,
  ops: 1000,
  durationSeconds: 1,
  serverUsecPerCall: 5,
  ...over,
});

/** A cell of `windowSeconds` at `rate` events a second, one light of `bytes` bytes (MEMORY USAGE and used_memory alike), no throughput. */
export const memoryCell = (layout: string, windowSeconds: number, rate: number, bytes: number): CellResult => ({
  layout,
  windowSeconds,
  rate,
  durationSeconds: windowSeconds,
  eventsInWindow: windowSeconds * rate,
  events: windowSeconds * rate,
  memory: { bytesPerLight: bytes, usedMemoryDeltaPerLight: bytes, keys: [], lights: 1 },
});

/** {@link memoryCell} of a 60 s window at 10 events a second. */
export const minuteCell = (layout: string, bytes: number): CellResult => memoryCell(layout, 60, 10, bytes);

/** The server of the fixture results: a private Redis 7.0.15 with the default listpack limits. */
export const fixtureRedis: BenchReport['redis'] = {
  version: '7.0.15',
  memAllocator: 'jemalloc-5.3.0',
  mode: 'standalone',
  private: true,
  config: { 'hash-max-listpack-entries': 128, 'zset-max-listpack-entries': 128 },
};
