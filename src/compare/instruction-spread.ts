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
  measured: null,
  spreads: {},
};
