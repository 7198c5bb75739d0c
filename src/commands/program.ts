import { Command } from 'commander';
import { benchCommand } from './bench.js';
import { chartCommand } from './chart.js';
import { cleanCommand } from './clean.js';
import { compareCommand } from './compare.js';
import { doctorCommand } from './doctor.js';
import { inspectCommand } from './inspect.js';
import { lightsCommand } from './lights.js';
import { verifyCommand } from './verify.js';
import { reportError, scrub } from './lifecycle.js';
import { ExitCode } from '../core/errors.js';
import { SWC_VERSION } from '../core/version.js';

// The program without the process around it (signal handlers, stdout guards,
// exit), so tests can run a command in-process; src/cli.ts is the entry point.

/**
 * commander's errors in swc's one-line style: `swc: --rate: must be …`
 * rather than `error: option '--rate <list>' argument '0' is invalid. --rate: …`
 * (swc's parsers already name the flag and the accepted range).
 */
const output = {
  outputError: (text: string, write: (s: string) => void): void => {
    const first = text.split('\n')[0] ?? '';
    const invalid = /^error: option '(-[^ ']*)[^']*' argument '(.*?)' is invalid\. (.*)$/.exec(first);
    if (invalid) {
      const [, flag, value, reason] = invalid as unknown as [string, string, string, string];
      write(`${scrub(`swc: ${reason.startsWith(flag) ? reason : `${flag}: got "${value}"; ${reason}`}`)}\n`);
      return;
    }
    write(`${scrub(`swc: ${first.replace(/^error: /, '')}`)}\n`);
  },
};

/** Builds the `swc` program; each subcommand lives in src/commands/<verb>.ts. */
export function buildProgram(): Command {
  const program = new Command('swc')
    .description('Benchmark and inspect sliding-window counters in Redis (Stoplight 5.x vs 6.0 layouts)')
    .version(SWC_VERSION, '-V, --version')
    .configureOutput(output)
    .exitOverride()
    .addHelpText(
      'after',
      `
Exit codes (every command): 0 ok, 1 a finding (regression, failed check, light
not found, drift with --check), 2 bad usage or input (nothing sent to Redis),
3 runtime failure (Redis unreachable, script error), 130/143 interrupted.

Examples:
  swc bench --rate 100 --window 300
  swc lights --redis-url redis://127.0.0.1:6379 --top 20`,
    );
  program.addCommand(benchCommand());
  program.addCommand(chartCommand());
  program.addCommand(cleanCommand());
  program.addCommand(compareCommand());
  program.addCommand(doctorCommand());
  program.addCommand(inspectCommand());
  program.addCommand(lightsCommand());
  program.addCommand(verifyCommand());
  for (const command of program.commands) command.configureOutput(output).exitOverride().showHelpAfterError(false);
  return program;
}

/**
 * The exit code for an error thrown out of `parseAsync`: help and version are
 * not failures, commander's own errors (already printed as one line) are bad
 * usage, anything else is reported as one line with its own code.
 */
export function parseFailureCode(err: unknown): number {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return ExitCode.ok;
  if (code.startsWith('commander.')) return ExitCode.usage;
  return reportError(err);
}
