/** `swc bench --instructions` and `--profile`: the flags, read at definition time (the counting loads with the action). */
import type { Command } from 'commander';
import { DEFAULT_INSTRUCTION_CALLS, DEFAULT_INSTRUCTION_REPEATS } from '../../bench/instruction-defaults.js';
import { parseNumber } from '../../run/values.js';
import { parser } from '../options.js';

/** The flags `swc bench` takes for counting instructions. */
export interface InstructionFlags {
  instructions?: boolean;
  profile?: boolean;
  instructionCalls?: number;
  instructionRepeats?: number;
}

/** Adds `--instructions`, `--profile` and their settings to `swc bench`. */
export function addInstructionOptions(command: Command): Command {
  return command
    .option(
      '--instructions',
      "also count the server's instructions per call of each op (write, read, request) on one more private redis-server, the same binary and settings, run under valgrind callgrind: exact where ops/s and µs are noisy (needs valgrind; not with --redis-url)",
    )
    .option('--profile', "with the counts, the server functions taking most of each layout's write and read (inclusive share); implies --instructions")
    .option(
      '--instruction-calls <n>',
      `--instructions: operations per repeat (default: ${DEFAULT_INSTRUCTION_CALLS})`,
      parser((v) => parseNumber('--instruction-calls', v, { min: 10, max: 100_000, integer: true })),
    )
    .option(
      '--instruction-repeats <n>',
      `--instructions: repeats per op, their spread shown (default: ${DEFAULT_INSTRUCTION_REPEATS})`,
      parser((v) => parseNumber('--instruction-repeats', v, { min: 1, max: 50, integer: true })),
    );
}
