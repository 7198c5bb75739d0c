import { ExitCode, SwcError } from '../errors.js';
import { classifyRedisError } from '../redis/errors.js';

type Cleanup = () => Promise<void>;

const cleanups = new Set<Cleanup>();
/** Set once a signal arrives: the exit code the process must end with. */
let signalExitCode: number | undefined;
/** Cleanups run one batch after another, so every caller can wait for all of them. */
let cleaning: Promise<void> = Promise.resolve();

/**
 * Registers work that must run before the process ends, also on Ctrl-C or
 * SIGTERM (deleting a run's keys, stopping the private server). Returns a
 * function that unregisters it.
 */
export function onShutdown(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Runs every registered cleanup (newest first) after any batch already running. */
function runCleanups(): Promise<void> {
  cleaning = cleaning.then(runPending);
  return cleaning;
}

async function runPending(): Promise<void> {
  const pending = [...cleanups].reverse();
  cleanups.clear();
  for (const cleanup of pending) {
    try {
      await cleanup();
    } catch (err) {
      process.stderr.write(`swc: cleanup failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
}

/** Installs SIGINT/SIGTERM handlers that clean up, then exit 130/143. */
export function installSignalHandlers(): void {
  const handle = (signal: NodeJS.Signals, code: number) => () => {
    if (signalExitCode !== undefined) return;
    signalExitCode = code;
    process.stderr.write(`\nswc: ${signal}: cleaning up…\n`);
    const force = setTimeout(() => process.exit(code), 8000);
    force.unref();
    void runCleanups().finally(() => process.exit(code));
  };
  process.once('SIGINT', handle('SIGINT', 130));
  process.once('SIGTERM', handle('SIGTERM', 143));
}

/** Prints a failure as one line on stderr and returns its exit code. */
export function reportError(thrown: unknown): number {
  // A Redis reply or a lost connection that no caller typed still gets its own message.
  const err = classifyRedisError(thrown);
  if (err instanceof SwcError) {
    process.stderr.write(`swc: ${err.message}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`swc: unexpected error: ${message}\n`);
  if (process.env.SWC_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return ExitCode.runtime;
}

/**
 * Wraps a command action: runs it, then every registered cleanup, and sets
 * the exit code (the action's result, or the error's). Never throws.
 */
export function action<A extends unknown[]>(run: (...args: A) => Promise<number | void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let code: number;
    try {
      code = (await run(...args)) ?? ExitCode.ok;
    } catch (err) {
      code = reportError(err);
    }
    await runCleanups();
    process.exitCode = signalExitCode ?? code;
  };
}
