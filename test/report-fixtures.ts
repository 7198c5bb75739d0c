// Small pieces of bench reports for tests of compare and the report: no vitest, no Redis.
import type { CellResult, LatencyStats } from '../src/measure/types.js';

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

/** A 60 s window at 10 events a second, one light of `bytes` bytes (MEMORY USAGE and used_memory alike), no throughput. */
export const minuteCell = (layout: string, bytes: number): CellResult => ({
  layout,
  windowSeconds: 60,
  rate: 10,
  durationSeconds: 60,
  eventsInWindow: 600,
  events: 600,
  memory: { bytesPerLight: bytes, usedMemoryDeltaPerLight: bytes, keys: [], lights: 1 },
});
