import { Command } from 'commander';
import { benchCommand } from './commands/bench.js';
import { cleanCommand } from './commands/clean.js';
import { compareCommand } from './commands/compare.js';
import { doctorCommand } from './commands/doctor.js';
import { inspectCommand } from './commands/inspect.js';
import { lightsCommand } from './commands/lights.js';
import { installSignalHandlers } from './commands/lifecycle.js';
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
      write(`swc: ${reason.startsWith(flag) ? reason : `${flag}: got "${value}"; ${reason}`}\n`);
      return;
    }
    write(`swc: ${first.replace(/^error: /, '')}\n`);
  },
};

/** Builds the `swc` program; each subcommand lives in src/commands/<verb>.ts. */
export function buildProgram(): Command {
  const program = new Command('swc')
    .description('Benchmark and inspect sliding-window counters in Redis (Stoplight 5.x vs 6.0 layouts)')
    .version(SWC_VERSION, '-V, --version')
    .configureOutput(output)
    .exitOverride();
  program.addCommand(benchCommand());
  program.addCommand(cleanCommand());
  program.addCommand(compareCommand());
  program.addCommand(doctorCommand());
  program.addCommand(inspectCommand());
  program.addCommand(lightsCommand());
  for (const command of program.commands) command.configureOutput(output).exitOverride().showHelpAfterError(false);
  return program;
}

async function main(argv: string[]): Promise<void> {
  installSignalHandlers();
  // `swc bench --json | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
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
      throw err;
    }
  }
}

await main(process.argv);
// A failed connection can leave a client timer behind that would hold the
// process open for seconds after the answer is printed; exit once stdout and
// stderr have flushed.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
process.exit(process.exitCode ?? 0);
