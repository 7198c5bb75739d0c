import { buildProgram, inspectListAsLights, parseFailureCode } from './commands/program.js';
import { fatal, installSignalHandlers, printError } from './commands/lifecycle.js';
import { ExitCode } from './core/errors.js';

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
  // `inspect --list` is lights, with every flag lights takes.
  const args = inspectListAsLights(argv);
  const program = await buildProgram(args);
  try {
    await program.parseAsync(args);
  } catch (err) {
    process.exitCode = parseFailureCode(err);
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
