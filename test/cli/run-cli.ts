import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The built CLI (npm test builds before running vitest). */
export const SWC_BIN = fileURLToPath(new URL('../../bin/swc.js', import.meta.url));

/** The one way tests start swc: as a user would, without a TTY, REDIS_URL unset and NO_COLOR, plus `env`; in `cwd` when given. */
function spawnSwc(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [SWC_BIN, ...args], {
    ...(cwd !== undefined ? { cwd } : {}),
    env: { ...process.env, REDIS_URL: '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** runCli or runInProcess: for checks shared by a spawned case and its in-process twins. */
export type RunSwc = (args: readonly string[], env?: NodeJS.ProcessEnv) => Promise<Pick<CliResult, 'code' | 'stdout' | 'stderr'>>;

/** runCli's guard against a hang: below vitest's testTimeout (300 s), wide for a loaded machine (vitest.config.ts). */
export const RUN_CLI_TIMEOUT_MS = 240_000;

/**
 * Runs `swc …` to its end and collects its output; SIGKILLs it after `timeoutMs` (a guard against a hang, not a
 * speed bound: `ms` is for messages and benchmarks, and no test asserts on it).
 */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = RUN_CLI_TIMEOUT_MS, cwd?: string): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawnSwc(args, env, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** A running `swc …` whose stderr can be waited on. */
export interface RunningCli {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves with the first match of `pattern` in stderr so far or to come; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

/** Starts `swc …` (for a test that signals or watches it mid-run) and collects its output. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const child = spawnSwc(args, env);
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const check of waiters) check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      resolve({ code, signal });
      for (const check of waiters) check();
    }),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = pattern.exec(stderr);
        if (found) {
          waiters.delete(check);
          resolve(found);
        } else if (ended || child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check);
          reject(new Error(`swc ended before ${String(pattern)} appeared on stderr:\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  return { child, waitFor, exited, stdout: () => stdout, stderr: () => stderr };
}

/** The run's namespace as `swc bench` prints it at start. */
export const RUN_LINE = /run (swc-bench:[0-9a-f]{8}):/;

export { words } from '../words.js';

/** bench flags of a small run: a 10 s window at 1 event a second, on two lights. */
export const TWO_LIGHTS_10S = ['--window', '10', '--rate', '1', '--lights', '2'];
