import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SWC_BIN } from '../cli/run-cli.js';

/** A running `swc …` whose stderr can be waited on. */
export interface RunningCli {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves with the first match of `pattern` in stderr so far or to come; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

/** Starts `swc …` without a TTY (REDIS_URL unset, NO_COLOR) and collects its output. */
export function startCli(args: readonly string[]): RunningCli {
  const child = spawn(process.execPath, [SWC_BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
