import { DEFAULT_COMPARE_OPTIONS, type CompareOptions } from './diff.js';
import type { MemoryTolerance } from './memory-detail.js';

/** The tolerances `swc compare` and `swc bench --baseline` take as flags. */
export interface CompareFlags {
  memoryTolerance: MemoryTolerance;
  throughputTolerance: number;
  absolute?: boolean;
  serverTolerance: number;
  instructionsTolerance?: number;
  commandsTolerance?: number;
}

/** The comparison's options from the tolerance flags (defaults where a flag is absent). */
export function compareOptionsFrom(flags: CompareFlags): CompareOptions {
  const memory = flags.memoryTolerance ?? { fraction: DEFAULT_COMPARE_OPTIONS.memoryTolerance };
  return {
    memoryTolerance: 'fraction' in memory ? memory.fraction : DEFAULT_COMPARE_OPTIONS.memoryTolerance,
    ...('bytes' in memory ? { memoryToleranceBytes: memory.bytes } : {}),
    throughputTolerance: flags.throughputTolerance,
    absolute: Boolean(flags.absolute),
    serverTolerance: flags.serverTolerance ?? DEFAULT_COMPARE_OPTIONS.serverTolerance ?? flags.throughputTolerance,
    // Unset: each instruction row's tolerance comes from the runs' spreads.
    ...(flags.instructionsTolerance !== undefined ? { instructionsTolerance: flags.instructionsTolerance } : {}),
    commandsTolerance: flags.commandsTolerance ?? 0,
  };
}
