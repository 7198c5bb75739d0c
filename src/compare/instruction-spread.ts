/**
 * How far `swc bench --instructions` moved from one run to the next on an
 * unchanged build: per layout and operation, (max − min) / median of the
 * instructions per call of several runs, each on fresh private servers
 * (hash and skiplist seeds differ per server start, which the repeats of
 * one run cannot see). Written by `npm run bench:instruction-spread --
 * --write` (tools/bench-instruction-spread.ts), not by hand; `swc compare`'s
 * instruction gate never allows less than these (src/compare/tolerances.ts
 * measuredSpreadOf).
 */
import type { MeasuredInstructionSpread } from './tolerances.js';

export const MEASURED_INSTRUCTION_SPREAD: MeasuredInstructionSpread = {
  measured: { date: '2026-12-07', runs: 5, redis: '7.0.15', load: '14.4-20.1' },
  spreads: {
    'stoplight-v5': { write: 0.00655, read: 0.013167, request: 0.003936 },
    'stoplight-v6': { write: 0.009319, read: 0.005231, request: 0.005556 },
  },
};
