import { Command } from 'commander';
import { benchCommand } from './commands/bench.js';
import { chartCommand } from './commands/chart.js';
import { cleanCommand } from './commands/clean.js';
import { compareCommand } from './commands/compare.js';
import { doctorCommand } from './commands/doctor.js';
import { inspectCommand } from './commands/inspect.js';
import { lightsCommand } from './commands/lights.js';
import { verifyCommand } from './commands/verify.js';
import { fatal, installSignalHandlers, printError, reportError, scrub } from './commands/lifecycle.js';
import { ExitCode } from './errors.js';
import { SWC_VERSION } from './version.js';

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

/** The first error writing to stdout, if any: reported once the command and its clean-up are done. */
let stdoutFailure: NodeJS.ErrnoException | undefined;

/**
 * Keeps a failing stdout from crashing the process: the error is recorded
 * and later writes are dropped, so the command (and the deletion of a
 * bench's keys) still runs to its end; see {@link finish}.
 */
function guardOutput(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    stdoutFailure ??= err;
  });
  // Nowhere is left to report a failing stderr; the exit code still tells.
  process.stderr.on('error', () => undefined);
  // ioredis warns through the console (a password sent to a server that has
  // none); keep it to one swc line on stderr, scrubbed like every other.
  console.warn = (...parts: unknown[]): void => {
    const text = parts.map(String).join(' ');
    const fromClient = /^\[(WARN|ERROR)\]\s*/;
    printError(`swc: warning: ${fromClient.test(text) ? `redis client: ${text.replace(fromClient, '')}` : text}`);
  };
}

async function main(argv: string[]): Promise<void> {
  installSignalHandlers();
  guardOutput();
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const code = (err as { code?: string; exitCode?: number }).code ?? '';
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') {
      process.exitCode = 0;
    } else if (code.startsWith('commander.')) {
      // commander already printed the one-line message.
      process.exitCode = 2;
    } else {
      process.exitCode = reportError(err);
    }
  }
}

/** Waits until what was written to `stream` has left the process (a pipe may still hold some). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => resolve();
    stream.once('drain', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}

/**
 * Sets the final exit code. A closed pipe (`swc … | head`) is the reader's
 * choice: the command's own code stands. Any other stdout failure (a full
 * disk, an I/O error) means the result was lost: exit 3 with one line.
 */
function finish(): number {
  const code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
  if (!stdoutFailure || stdoutFailure.code === 'EPIPE') return code;
  const why = stdoutFailure.code === 'ENOSPC' ? 'no space left on device' : stdoutFailure.message;
  printError(`swc: cannot write the output to stdout: ${why} (${stdoutFailure.code ?? 'error'})`);
  return code === ExitCode.ok || code === ExitCode.finding ? ExitCode.runtime : code;
}

await main(process.argv);
// A write error is emitted on a later tick than the write that failed: let it arrive.
await new Promise((resolve) => setImmediate(resolve));
// A failed connection can leave a client timer behind that would hold the
// process open for seconds after the answer is printed; exit once stdout and
// stderr have flushed.
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(finish());
