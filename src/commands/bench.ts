/**
 * `swc bench`: the command's definition (its options, in groups, and help).
 * The action and everything it runs load only when a bench runs
 * (src/commands/bench/action.ts), so `--help` and `--version` stay quick.
 */
import { Command } from 'commander';
import { addBuildsOption } from './builds.js';
import { addCompareOptions } from './compare-options.js';
import { parsesLayouts } from './layout-parsers.js';
import { action } from './lifecycle.js';
import { addClusterOptions, addJsonOption, addRedisOptions } from './options.js';
import type { BenchFlags } from './bench/flags.js';
import { BENCH_HELP_AFTER } from './bench/help.js';
import { addClientOptions } from './bench/options-clients.js';
import { addInstructionOptions } from './bench/options-instructions.js';
import { addMatrixOptions } from './bench/options-matrix.js';
import { addOutputOptions } from './bench/options-output.js';
import { addPhaseOptions } from './bench/options-phases.js';
import { addRunOptions } from './bench/options-run.js';

/** `swc bench`: drive synthetic traffic through each layout, measure memory per light. */
export function benchCommand(): Command {
  const command = new Command('bench').description(
    'drive synthetic traffic through each layout with an injected clock (or real traffic with --realtime); measure memory per light, throughput and latency',
  );
  // Each group adds its flags in the order help lists them within their headings.
  addMatrixOptions(command);
  addClientOptions(command);
  addPhaseOptions(command);
  addOutputOptions(command);
  addRunOptions(command);
  addInstructionOptions(command);
  addCompareOptions(command);
  addJsonOption(command);
  addRedisOptions(command, { privateServer: true, writes: true });
  addClusterOptions(command);
  addBuildsOption(command);
  command.addHelpText('after', BENCH_HELP_AFTER);
  return parsesLayouts(command).action(
    action(async (given: BenchFlags, cmd: Command) => {
      const { benchAction } = await import('./bench/action.js');
      return benchAction(given, cmd);
    }),
  );
}
