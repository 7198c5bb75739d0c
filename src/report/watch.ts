import { visibleLength } from './width.js';

/**
 * `--watch` on a terminal and in a pipe: a listing redrawn in place (the
 * scrollback does not grow), or, piped, only what changed since the last
 * listing. Pure text functions; the command writes what they return.
 */

/** Terminal rows a block of lines takes at `columns` (a longer line wraps onto the next row). */
export function rowsTaken(lines: readonly string[], columns: number): number {
  const width = Math.max(1, columns);
  return lines.reduce((sum, line) => sum + Math.max(1, Math.ceil(visibleLength(line) / width)), 0);
}

/**
 * A frame that fits a screen of `rows`: the lines as they are, or the
 * first ones and a last line saying how many did not fit (a frame taller
 * than the screen would push its top into the scrollback at every redraw).
 */
export function fitFrame(lines: readonly string[], columns: number, rows: number): string[] {
  const room = Math.max(2, rows - 1);
  if (rowsTaken(lines, columns) <= room) return [...lines];
  const kept: string[] = [];
  for (const line of lines) {
    if (rowsTaken([...kept, line], columns) > room - 1) break;
    kept.push(line);
  }
  return [...kept, `… ${lines.length - kept.length} more line(s) below the screen: fewer with --top, or a taller terminal`];
}

/**
 * What to write to redraw `next` over the previous frame, which took
 * `previousRows` rows above the cursor: up to its first row, each line
 * written over a cleared line, then the rest of the screen cleared. Never
 * a whole-screen clear: some terminals (tmux) push a cleared screen into
 * the scrollback.
 */
export function redraw(next: readonly string[], previousRows: number): string {
  const up = previousRows > 0 ? `\x1b[${previousRows}F` : '';
  return `${up}${next.map((line) => `\x1b[2K${line}\n`).join('')}\x1b[J`;
}

const BORDER = /^[┌├└]/;

/** A listing's rows (a name on its own line goes with the row under it) and its total lines: what a piped --watch compares. */
export function watchedRows(text: string): string[] {
  const lines = text.split('\n');
  const rows: string[] = [];
  let inBody = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (line.startsWith('├')) {
      inBody = true;
      continue;
    }
    if (BORDER.test(line)) {
      inBody = false;
      continue;
    }
    if (inBody && line.startsWith('│')) {
      // A name stacked above its row has a single cell (or runs past the box: no closing border).
      const cells = line.endsWith('│') ? line.slice(1, -1).split('│') : [line.slice(1)];
      const next = lines[i + 1];
      if (cells.length === 1 && next !== undefined && next.startsWith('│') && !BORDER.test(next)) {
        rows.push(`${line}\n${next}`);
        i += 1;
      } else rows.push(line);
    } else if (line.startsWith('total')) rows.push(line);
  }
  return rows;
}

/** The rows of `next` that `previous` did not have (each at most as often as it was new), in `next`'s order. */
export function changedRows(previous: string, next: string): string[] {
  const seen = new Map<string, number>();
  for (const row of watchedRows(previous)) seen.set(row, (seen.get(row) ?? 0) + 1);
  return watchedRows(next).filter((row) => {
    const left = seen.get(row) ?? 0;
    if (left > 0) {
      seen.set(row, left - 1);
      return false;
    }
    return true;
  });
}
