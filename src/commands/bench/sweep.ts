/**
 * `swc bench --sweep`: runs the bench matrix once per combination of
 * encoding settings, each on a fresh private redis-server started with it,
 * after a run on the server's defaults (what the ratios divide). Never on a
 * user's server: swc changes settings only on servers it starts.
 */
import { combinationsOf, type Combination, type SweepAxis, type SweepReport } from '../../bench/sweep.js';
import { runSweep as sweepUseCase, type SweepInput as SweepRunInput } from '../../bench/sweep-run.js';
import { UsageError } from '../../core/errors.js';
import { onShutdown } from '../lifecycle.js';

/** What decides whether a sweep may run at all, checked before any server starts. */
export interface SweepFlags {
  readonly sweep: readonly SweepAxis[];
  readonly redisUrl?: string | undefined;
  readonly redisServerArg?: readonly string[] | undefined;
  readonly baseline?: string | undefined;
  readonly chart?: boolean | undefined;
  readonly chartOut?: string | undefined;
}

/**
 * Refuses what a sweep cannot do (exit 2, before Redis is touched) and
 * returns its combinations.
 */
export function checkSweep(flags: SweepFlags): Combination[] {
  if (flags.redisUrl !== undefined) {
    throw new UsageError(
      '--sweep/--redis-url: a sweep runs on private servers that swc starts with each setting; swc never changes the settings of a server it did not start (drop --redis-url)',
    );
  }
  if (process.env.REDIS_URL) {
    throw new UsageError(
      '--sweep: REDIS_URL is set, and a sweep runs only on private servers that swc starts with each setting (swc never changes the settings of your server); run it with REDIS_URL= (empty)',
    );
  }
  if (flags.baseline !== undefined) {
    throw new UsageError("--sweep/--baseline: a sweep holds one report per setting; save it with --output and compare one of them (jq '.sweep[0].report')");
  }
  if (flags.chart || flags.chartOut !== undefined) {
    throw new UsageError(
      `--sweep/${flags.chart ? '--chart' : '--chart-out'}: not drawn for a sweep; save it with --output and chart one of its reports (jq '.sweep[0].report')`,
    );
  }
  return combinationsOf(flags.sweep, flags.redisServerArg ?? []);
}

/** Inputs of {@link runSweep}: the use case's, with `progress` for its lines on stderr. */
export type SweepInput = Omit<SweepRunInput, 'say' | 'warn' | 'onSignal'> & {
  /** Print a line per combination on stderr. */
  readonly progress: boolean;
};

/** The sweep (src/bench/sweep-run.ts), its lines on stderr and its stop on Ctrl-C. */
export function runSweep(input: SweepInput): Promise<SweepReport> {
  const { progress, ...rest } = input;
  return sweepUseCase({
    ...rest,
    say: (line) => {
      if (progress) process.stderr.write(`swc bench: ${line}\n`);
    },
    warn: (line) => void process.stderr.write(`swc bench: warning: ${line}\n`),
    onSignal: onShutdown,
  });
}
