/**
 * The tolerance flags of a comparison (`swc compare`, `swc bench --baseline`),
 * with their defaults in the help; the comparison itself loads only when one runs.
 */
import { Option, type Command } from 'commander';
import { parseNumber } from '../run/values.js';
import { UsageError } from '../core/errors.js';
import {
  DEFAULT_INSTRUCTIONS_TOLERANCE,
  DEFAULT_MEMORY_TOLERANCE,
  INSTRUCTIONS_SPREAD_FACTOR,
  INSTRUCTIONS_TOLERANCE_FLOOR,
  DEFAULT_SERVER_TOLERANCE,
  DEFAULT_THROUGHPUT_TOLERANCE,
  parseMemoryTolerance,
  type MemoryTolerance,
} from '../compare/tolerances.js';
import { parser } from './options.js';

/** `1`, `1%` and `0.5%` are percentages; returned as a fraction. */
function percentage(flag: string, max: number) {
  return parser((value: string) => parseNumber(flag, value.trim().replace(/%$/, ''), { min: 0, max }) / 100);
}

const pct = (fraction: number): string => `${+(fraction * 100).toFixed(4)}%`;

/** Adds the tolerance flags and `--absolute`. */
export function addCompareOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--memory-tolerance <percent|bytes>',
        'fail when bytes per light grow by more than this: a percentage (1 and 1% both mean one percent) or bytes (64B, 1KB = 1024 B)',
      )
        .argParser(
          parser((value: string): MemoryTolerance => {
            const parsed = parseMemoryTolerance(value);
            if (typeof parsed === 'string') throw new UsageError(parsed);
            return parsed;
          }),
        )
        .default({ fraction: DEFAULT_MEMORY_TOLERANCE } satisfies MemoryTolerance, pct(DEFAULT_MEMORY_TOLERANCE)),
    )
    .addOption(
      new Option('--throughput-tolerance <percent>', "fail when a layout's ops/s ratio to the reference layout falls by more than this many percent")
        .argParser(percentage('--throughput-tolerance', 100))
        .default(DEFAULT_THROUGHPUT_TOLERANCE, pct(DEFAULT_THROUGHPUT_TOLERANCE)),
    )
    .addOption(
      new Option(
        '--server-tolerance <percent>',
        "fail when the server's time per call rises by more than this many percent: its CPU time per call (INFO cpu, each layout's per-round ratio to the cell's first layout) when both results have it, else µs per call from INFO commandstats (each run's fastest round)",
      )
        .argParser(percentage('--server-tolerance', 1000))
        .default(DEFAULT_SERVER_TOLERANCE, pct(DEFAULT_SERVER_TOLERANCE)),
    )
    .addOption(
      new Option(
        '--instructions-tolerance <percent>',
        "when both results counted instructions (swc bench --instructions): fail when a layout's instructions per call, or its ratio to the reference layout's, rise by more than this many percent. " +
          `Default: per figure, ${INSTRUCTIONS_SPREAD_FACTOR} × the larger spread of the two runs' repeats, at least ${pct(INSTRUCTIONS_TOLERANCE_FLOOR)} (${pct(2 * INSTRUCTIONS_TOLERANCE_FLOOR)} for a ratio); ${pct(DEFAULT_INSTRUCTIONS_TOLERANCE)} for a result without repeats`,
      ).argParser(percentage('--instructions-tolerance', 1000)),
    )
    .addOption(
      new Option(
        '--commands-tolerance <n>',
        'fail when an operation runs more than this many more commands per call than the baseline (INFO commandstats; default: 0: exact; for layouts whose count varies with eviction)',
      )
        .argParser(parser((value: string) => parseNumber('--commands-tolerance', value.trim(), { min: 0, max: 1000 })))
        .default(0),
    )
    .option('--absolute', 'also fail when absolute ops/s fall by more than the throughput tolerance (noisy across machines)');
}
