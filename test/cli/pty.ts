import { execFileSync, spawn } from 'node:child_process';
import { SWC_BIN } from './run-cli.js';

/**
 * What a terminal shows after `output` was written to it: a small screen
 * model that knows what swc and a tty write (text, `\r`, `\n`, erase to the
 * end of the line, colour and other CSI sequences, which move nothing here).
 * Returns the lines and the cursor's row.
 */
export function screenOf(output: string, columns = 80): { lines: string[]; row: number } {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (): string[] => (lines[row] ??= []);
  for (let i = 0; i < output.length; i += 1) {
    const ch = output[i] as string;
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row += 1;
      line();
    } else if (ch === '\x1b') {
      const csi = /^\x1b\[([?0-9;]*)([A-Za-z])/.exec(output.slice(i));
      if (csi) {
        if (csi[2] === 'K') line().length = Math.min(line().length, col);
        i += csi[0].length - 1;
      } else i += 1;
    } else if (ch >= ' ') {
      if (col >= columns) {
        row += 1;
        col = 0;
      }
      const cells = line();
      while (cells.length < col) cells.push(' ');
      cells[col] = ch;
      col += 1;
    }
  }
  return { lines: lines.map((cells) => (cells ?? []).join('')), row };
}

/** A run of `swc …` in a pseudo-terminal of 80 × 24 (util-linux `script`): what it wrote, and how it ended. */
export interface PtyRun {
  /** Types on the terminal (`\x03` is Ctrl-C: the terminal signals the foreground process group). */
  type(text: string): void;
  /** Sends `signal` to swc's own process. */
  kill(signal: NodeJS.Signals): void;
  waitFor(pattern: RegExp): Promise<void>;
  readonly exited: Promise<{ code: number | null; output: string }>;
}

/** Starts `swc …args` under `script -q -e -c` (the pty's exit code is swc's), REDIS_URL unset. */
export function startInPty(args: readonly string[], env: NodeJS.ProcessEnv = {}): PtyRun {
  const quoted = [process.execPath, SWC_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', `stty cols 80 rows 24; exec ${quoted}`, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, REDIS_URL: '', NO_COLOR: '1', ...env },
  });
  let output = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    for (const check of waiters) check();
  });
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => {
      resolve({ code, output });
      for (const check of waiters) check();
    }),
  );
  return {
    type: (text) => void child.stdin.write(text),
    kill: (signal) => {
      // `exec` made swc the shell's process: the only child of script.
      const pid = Number(
        execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
          .trim()
          .split('\n')[0],
      );
      process.kill(pid, signal);
    },
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null) {
            waiters.delete(check);
            reject(new Error(`ended before ${String(pattern)}: ${JSON.stringify(output.slice(-400))}`));
          }
        };
        waiters.add(check);
        check();
      }),
    exited,
  };
}
