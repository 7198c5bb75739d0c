/** `swc bench --sweep`: the plan once per combination of settings, each on a private server, then the sweep's table. */
import { guardedBench } from '../../bench/guarded-bench.js';
import { createNamespace } from '../../run/namespace.js';
import type { BenchPlan } from '../../bench/plan.js';
import { withStableKeyNames } from '../../bench/stable-keys.js';
import type { Combination } from '../../bench/sweep.js';
import type { BenchFormat } from '../../report/bench.js';
import { renderQuietSweep, renderSweep } from '../../report/sweep.js';
import { outputWidth } from '../../report/width.js';
import { writeJsonFile } from '../output-files.js';
import { printJson, turnWaitMs, useColor } from '../options.js';
import type { BenchFlags } from './flags.js';
import { sayOnStderr, warnShortfall } from './notes.js';
import { progressReporter } from './progress.js';
import { runSweep } from './sweep.js';

/** Runs the sweep and prints it; the run on each server is a guarded bench. */
export async function sweepFromFlags(
  flags: BenchFlags,
  combinations: readonly Combination[],
  plan: BenchPlan,
  options: Record<string, unknown>,
  format: BenchFormat,
): Promise<undefined> {
  // One fresh private server per combination (src/commands/bench/sweep.ts); each runs the same plan.
  const sweep = await runSweep({
    axes: flags.sweep,
    combinations,
    serverArgs: flags.redisServerArg,
    progress: flags.progress,
    run: async (session, signal) => {
      const namespace = createNamespace();
      const progress = progressReporter(flags.progress, plan);
      progress.hooks.onWarning = (message: string) => process.stderr.write(`swc bench: warning: ${message}\n`);
      try {
        const { report } = await guardedBench({
          signal,
          session,
          plan,
          namespace,
          progress: progress.hooks,
          options,
          turnWaitMs: turnWaitMs(flags.waitForRuns),
          say: sayOnStderr,
        });
        return withStableKeyNames(report, namespace.prefix);
      } finally {
        progress.stop();
      }
    },
  });
  if (flags.output !== undefined) writeJsonFile('--output', flags.output, sweep);
  for (const run of sweep.sweep) warnShortfall(run.report);
  if (format === 'json') printJson(sweep);
  else if (flags.quiet && format !== 'csv') process.stdout.write(renderQuietSweep(sweep));
  else process.stdout.write(renderSweep(sweep, format, useColor(), { wide: Boolean(flags.wide), width: outputWidth(flags.wide) }));
  return undefined;
}
