import { spawn } from 'node:child_process';
import { RUN_CLI_TIMEOUT_MS, SWC_BIN } from './run-cli.js';

/**
 * Running swc in a pseudo-terminal, as a person at a terminal would: through
 * util-linux `script`, which gives the command a pty of its own (stdout and
 * stderr a TTY, `stty` sets its size). A test needs nothing else installed.
 */

/** A word quoted for `sh -c`. */
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

export interface PtyRun {
  /** What the terminal received, stdout and stderr as they arrived, line ends as `\n`. */
  readonly output: string;
  readonly code: number | null;
}

export interface PtyOptions {
  readonly columns: number;
  readonly rows?: number;
  /** Send SIGINT to swc after this many seconds (coreutils `timeout`), as a Ctrl-C would. */
  readonly interruptAfterSeconds?: number;
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs `swc …` in a pty of `columns` × `rows`, without COLUMNS or NO_COLOR (a terminal's own width and colours), and collects what it printed. */
export function runInPty(args: readonly string[], options: PtyOptions): Promise<PtyRun> {
  const swc = [process.execPath, SWC_BIN, ...args].map(quote).join(' ');
  const run = options.interruptAfterSeconds === undefined ? swc : `timeout -s INT ${options.interruptAfterSeconds} ${swc}`;
  const command = `stty cols ${options.columns} rows ${options.rows ?? 40}; ${run}`;
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_URL: '', ...options.env };
  delete env.COLUMNS;
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  return new Promise((resolve, reject) => {
    // -e: script exits with the command's code; stdin is /dev/null, so script reads no keyboard.
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ output: output.replace(/\r\n/g, '\n'), code });
    });
  });
}

/** Text without its colour codes. */
export const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');

/**
 * Lines a terminal of `columns` × `rows` pushed into its scrollback while
 * showing `output`: a line feed on the last row scrolls one line off, a
 * line longer than the screen wraps, and a whole-screen clear counts as a
 * screen (tmux's scroll-on-clear keeps it). Cursor-up moves (`ESC [n A`,
 * `ESC [n F`) and home (`ESC [H`) are followed; other sequences take no room.
 */
export function scrolledOff(output: string, columns: number, rows: number): number {
  let row = 0;
  let column = 0;
  let scrolled = 0;
  const feed = (): void => {
    if (row === rows - 1) scrolled += 1;
    else row += 1;
  };
  for (let i = 0; i < output.length; i += 1) {
    const ch = output[i] as string;
    if (ch === '\x1b') {
      const csi = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(output.slice(i, i + 16));
      if (!csi) continue;
      i += csi[0].length - 1;
      const n = Number(csi[1] || '1');
      if (csi[2] === 'A' || csi[2] === 'F') row = Math.max(0, row - n);
      if (csi[2] === 'F') column = 0;
      if (csi[2] === 'H') [row, column] = [0, 0];
      if (csi[2] === 'J' && csi[1] === '2') scrolled += rows;
      continue;
    }
    if (ch === '\n') {
      feed();
      column = 0;
    } else if (ch === '\r') column = 0;
    else {
      if (column === columns) {
        feed();
        column = 0;
      }
      column += 1;
    }
  }
  return scrolled;
}
