import { ExitCode, SwcError } from '../core/errors.js';
import { redactUrl, secretsOf } from '../redis/url.js';
import { classifyRedisError } from '../redis/errors.js';

type Cleanup = () => Promise<void>;

const cleanups = new Set<Cleanup>();
/** Set once a signal arrives: the exit code the process must end with. */
let signalExitCode: number | undefined;
/** The signal that stopped the run, once one arrived. */
let stoppingSignal: NodeJS.Signals | undefined;

/**
 * What stopped the run, for a message: "Ctrl-C (SIGINT)", "SIGTERM",
 * "SIGHUP", or `fallback` when no signal arrived (a stop asked some other way).
 */
export function stopCause(fallback = 'a stop request'): string {
  return describeSignal(stoppingSignal) ?? fallback;
}

/** A signal's name as an operator knows it: SIGINT is what Ctrl-C sends. */
export function describeSignal(signal: NodeJS.Signals | undefined): string | undefined {
  if (signal === undefined) return undefined;
  return signal === 'SIGINT' ? 'Ctrl-C (SIGINT)' : signal;
}
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

/** What a second signal still does before the process ends at once; each returns the lines to print. */
type Urgent = () => Promise<readonly string[]>;
const urgents = new Set<Urgent>();
/** How long a second signal waits for {@link onSecondSignal}'s work before the process ends anyway. */
const URGENT_BOUND_MS = 3000;

/**
 * Registers what must still happen when an impatient second signal cuts the
 * orderly clean-up short: removing what is a credential (a run's temporary
 * ACL user), then saying what remains (keys) and how to remove it. Runs on
 * connections of its own, within a bound. Returns its unregistering.
 */
export function onSecondSignal(urgent: Urgent): () => void {
  urgents.add(urgent);
  return () => urgents.delete(urgent);
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
      printError(`swc: cleanup failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Signals that end a run, and the exit code each gives (128 + its number). */
const SIGNALS: readonly [NodeJS.Signals, number][] = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
];

/**
 * Installs SIGINT/SIGTERM/SIGHUP handlers that clean up, then exit
 * 128 + the signal. The handlers stay installed: a second signal (an
 * impatient second Ctrl-C) does not fall back to Node's default, which
 * would end the process at once and leave the private server running;
 * it skips the orderly clean-up instead, and the exit hook of
 * src/redis/server.ts kills the server and removes its folder.
 */
export function installSignalHandlers(): void {
  for (const [signal, code] of SIGNALS) {
    process.on(signal, () => {
      if (signalExitCode !== undefined) {
        const exitCode = signalExitCode;
        const pending = [...urgents];
        urgents.clear();
        if (pending.length === 0) {
          process.stderr.write(`swc: ${signal} again: stopping now; keys of an unfinished clean-up may remain\n`);
          process.exit(exitCode);
        }
        process.stderr.write(`swc: ${signal} again: stopping now, after removing the run's temporary ACL user\n`);
        const said = Promise.all(
          pending.map((urgent) =>
            urgent().then(
              (lines) => lines.forEach(printError),
              () => undefined,
            ),
          ),
        );
        const bound = new Promise((resolve) => setTimeout(resolve, URGENT_BOUND_MS).unref());
        void Promise.race([said, bound]).finally(() => process.exit(exitCode));
        return;
      }
      signalExitCode = code;
      stoppingSignal = signal;
      process.stderr.write(`\nswc: ${signal}: cleaning up…\n`);
      const force = setTimeout(() => process.exit(code), 8000);
      force.unref();
      void runCleanups().finally(() => process.exit(code));
    });
  }
}

/**
 * The last resort for an error nothing caught (a library's stray rejection):
 * one scrubbed line instead of Node's stack trace, the registered clean-ups
 * (a bench's keys, the private server) within a bound, then exit 3.
 */
export function fatal(err: unknown): void {
  const code = reportError(err);
  if (signalExitCode !== undefined) return;
  signalExitCode = code;
  const force = setTimeout(() => process.exit(code), 8000);
  force.unref();
  void runCleanups().finally(() => process.exit(code));
}

/** Secrets of the URLs this run was given (flag or REDIS_URL), scrubbed from every message as a last guard. */
const secrets = new Set<string>();

/** Shorter secrets would scrub ordinary words; the URL-shaped redaction still covers them. */
const MIN_SCRUBBED_LENGTH = 3;

/** Remembers the secrets `url` carries (also when it does not parse), so no message shows them. */
export function registerUrlSecrets(url: string): void {
  for (const secret of secretsOf(url)) if (secret.length >= MIN_SCRUBBED_LENGTH) secrets.add(secret);
}

/**
 * Makes a line safe to show: every URL-like word holding user-info or a
 * `name=value` is redacted, then every registered secret is masked wherever
 * it still appears (inside a malformed URL, an error from a library, …).
 */
export function scrub(text: string): string {
  // A URL-like word, without the punctuation a sentence puts after it.
  let out = text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"']*[^\s"'.,:;)\]]/gi, (word) => (/[@=#]/.test(word) ? redactUrl(word) : word));
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
  return out;
}

/** Writes one line (such as `swc: …`) on stderr, scrubbed of secrets. */
export function printError(line: string): void {
  process.stderr.write(`${scrub(line)}\n`);
}

/** Prints a failure as one line on stderr and returns its exit code. */
export function reportError(thrown: unknown): number {
  // A Redis reply or a lost connection that no caller typed still gets its own message.
  const err = classifyRedisError(thrown);
  if (err instanceof SwcError) {
    printError(`swc: ${err.message}`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  printError(`swc: unexpected error: ${message}`);
  if (process.env.SWC_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${scrub(err.stack)}\n`);
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

/**
 * Runs `work` so that a signal's clean-up first asks it to stop (`stopped()`
 * turns true) and then waits for it to end: what it found so far is still
 * printed before the process exits.
 */
export async function untilStopped<T>(work: (stopped: () => boolean) => Promise<T>): Promise<T> {
  let stopping = false;
  let finished = (): void => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const unregister = onShutdown(async () => {
    stopping = true;
    await done;
  });
  try {
    return await work(() => stopping);
  } finally {
    finished();
    unregister();
  }
}

/**
 * Progress of a long scan on stderr, from `line` (the progress line to show):
 * redrawn 4 times a second on a terminal, a line every 5 s otherwise; short
 * scans stay silent. `done` clears a drawn line.
 */
export function stderrProgress<P extends { elapsedMs: number }>(
  enabled: boolean,
  line: (progress: P) => string,
): { onProgress?: (p: P) => void; done: () => void } {
  if (!enabled) return { done: () => undefined };
  const tty = Boolean(process.stderr.isTTY);
  let last = 0;
  let drawn = false;
  return {
    onProgress: (p) => {
      if (last > 0 && p.elapsedMs - last < (tty ? 250 : 5000)) return;
      last = p.elapsedMs;
      if (tty) {
        process.stderr.write(`\r${line(p)}\x1b[K`);
        drawn = true;
      } else printError(line(p));
    },
    done: () => {
      if (drawn) process.stderr.write('\r\x1b[K');
    },
  };
}
