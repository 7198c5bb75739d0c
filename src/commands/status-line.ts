/**
 * The one live line swc draws on a terminal's stderr (a bench's bar, a
 * scan's count): drawn with a carriage return and cut to the terminal's
 * width, so it never wraps and one `\r` + erase-line removes it whole.
 * Every message that ends a run (a signal's, an error's) clears it first,
 * and the process clears it on exit, so the shell's prompt never lands on a
 * stale bar. No cursor hiding and no saved cursor positions: nothing is left
 * to restore when the process ends abruptly.
 */

const ERASE = '\r\x1b[K';

/** The text drawn now, or undefined when the line is clear. */
let drawn: string | undefined;
let exitHook = false;

/**
 * The columns a live line may take: three less than the terminal's, so
 * neither the cursor nor the `^C` the terminal echoes after it wraps onto a
 * line that erasing this one would not reach.
 */
function room(): number {
  return Math.max(20, (process.stderr.columns || 80) - 3);
}

/** `text` cut to `width` characters (by code point), ending in `…` when cut. */
export function fitLine(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** A bar of `width` cells, `fraction` of them full. */
export function barText(fraction: number, width = 30): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}]`;
}

/** Draws `text` as the live line (on a terminal only), replacing what was there. */
export function showStatus(text: string): void {
  if (!process.stderr.isTTY) return;
  if (!exitHook) {
    exitHook = true;
    process.on('exit', clearStatus);
  }
  drawn = fitLine(text.replace(/[\r\n]+/g, ' '), room());
  process.stderr.write(`\r${drawn}\x1b[K`);
}

/** Clears the live line, if one is drawn, leaving the cursor at the start of the empty line. */
export function clearStatus(): void {
  if (drawn === undefined) return;
  drawn = undefined;
  process.stderr.write(ERASE);
}

/** Whether a live line is drawn now. */
export function statusShown(): boolean {
  return drawn !== undefined;
}

/** Writes `line` on stderr above the live line, which is drawn again under it. */
export function writeAbove(line: string): void {
  const was = drawn;
  clearStatus();
  process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
  if (was !== undefined) showStatus(was);
}
