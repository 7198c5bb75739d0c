import { renderBox, type FitHints, type Grid } from './table.js';

export type { FitHints } from './table.js';

/**
 * Fitting output to the terminal: one rule for every command's tables and
 * verdicts (lights and inspect apply the same idea in their own renderers).
 *
 * - The width is `COLUMNS` when set, else the TTY's columns, else
 *   {@link PIPED_COLUMNS}: output piped to a file or a pager keeps the
 *   120-column layout it always had, and `COLUMNS=80 swc … | less` asks for 80.
 * - {@link FLOOR_COLUMNS} is the narrowest layout swc designs for: a narrower
 *   terminal gets the 80-column layout (and wraps it), never a squashed one.
 * - A table that is too wide loses nothing first (constant columns move into
 *   its title, long text moves into a numbered legend below it), then drops
 *   its least important columns and says which; `--wide` keeps everything.
 */
export const FLOOR_COLUMNS = 80;
/** The width when stdout is not a terminal and COLUMNS is unset. */
export const PIPED_COLUMNS = 120;

/** Where the width comes from: the environment and the output stream (both injectable for tests). */
export interface WidthSource {
  readonly env?: NodeJS.ProcessEnv;
  readonly stream?: { readonly isTTY?: boolean; readonly columns?: number };
}

/**
 * The width output should fit: `Infinity` with `--wide`, else COLUMNS, the
 * TTY's width or {@link PIPED_COLUMNS}, never below {@link FLOOR_COLUMNS}.
 */
export function outputWidth(wide: boolean | undefined, source: WidthSource = {}): number {
  if (wide) return Number.POSITIVE_INFINITY;
  const env = source.env ?? process.env;
  const stream = source.stream ?? process.stdout;
  const fromEnv = /^\s*\d+\s*$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : 0;
  const columns = fromEnv > 0 ? fromEnv : stream.isTTY && stream.columns ? stream.columns : PIPED_COLUMNS;
  return Math.max(FLOOR_COLUMNS, columns);
}

/**
 * The width for line-by-line reports (verify, doctor, clean, progress): COLUMNS
 * or the TTY's width (never below {@link FLOOR_COLUMNS}); off a TTY without
 * COLUMNS, `Infinity`: a log or a grep keeps each finding on one line.
 */
export function proseWidth(source: WidthSource = {}): number {
  const env = source.env ?? process.env;
  const stream = source.stream ?? process.stdout;
  if (!/^\s*\d+\s*$/.test(env.COLUMNS ?? '') && !(stream.isTTY && stream.columns)) return Number.POSITIVE_INFINITY;
  return outputWidth(false, source);
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a line takes on a terminal: colour codes take none; every character swc prints is one column wide. */
export function visibleLength(line: string): number {
  return [...line.replace(ANSI, '')].length;
}

/** The widest line of a block of text, in columns. */
export function blockWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map(visibleLength));
}

/** A unit a figure keeps on its line (`1.6 s` never wraps as `1.6` / `s`), punctuation after it allowed. */
const UNIT = /^(?:s|ms|µs|min|h|B|KB|MB|GB)[,.;:)]*$/;

/** A line's words, split at spaces, with a unit kept on its number. */
function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const word of text.split(' ')) {
    const last = words.at(-1);
    if (last !== undefined && UNIT.test(word) && /\d$/.test(last)) words[words.length - 1] = `${last} ${word}`;
    else words.push(word);
  }
  return words;
}

/**
 * Text broken between words into lines of at most `width` columns, each line
 * after the first indented by `indent` spaces (a word longer than a line
 * stays whole). Existing line breaks are kept; each line keeps its own
 * leading indentation, and its continuation lines are indented past it.
 */
export function wrapText(text: string, width: number, indent = 2): string {
  if (!Number.isFinite(width)) return text;
  return text
    .split('\n')
    .map((line) => {
      if (visibleLength(line) <= width) return line;
      const lead = /^ */.exec(line)?.[0] ?? '';
      const pad = ' '.repeat(lead.length + indent);
      const out: string[] = [];
      for (const word of wordsOf(line.slice(lead.length))) {
        const last = out.at(-1);
        if (last !== undefined && visibleLength(last) + 1 + visibleLength(word) <= width) out[out.length - 1] = `${last} ${word}`;
        else out.push(last === undefined ? `${lead}${word}` : `${pad}${word}`);
      }
      return out.join('\n');
    })
    .join('\n');
}

/** A grid fitted to a width: the grid to draw, words for its title, and lines to print under it. */
export interface FittedGrid {
  readonly grid: Grid;
  /** What moved into the title: `window 5 min, req/s 100`; empty when nothing did. */
  readonly hoisted: string;
  /** The legend (`[1] …`) and a note naming the dropped columns. */
  readonly notes: readonly string[];
  /** Names of the columns left out. */
  readonly dropped: readonly string[];
  /** Whether the grid drawn fits the width (false only when no column was left to drop). */
  readonly fits: boolean;
}

/** Whether a grid fits `width` without losing a column (hoisting and a legend allowed). */
export function fitsWhole(grid: Grid, width: number): boolean {
  const fitted = fitGrid(grid, width);
  return fitted.fits && fitted.dropped.length === 0;
}

const without = <T>(items: readonly T[], drop: ReadonlySet<number>): T[] => items.filter((_, i) => !drop.has(i));

function pick(grid: Grid, drop: ReadonlySet<number>): Grid {
  return {
    ...grid,
    head: without(grid.head, drop),
    rows: grid.rows.map((row) => without(row, drop)),
    ...(grid.numeric ? { numeric: without(grid.numeric, drop) } : {}),
  };
}

/** Legend values shorter than this stay in the table: a reference would save too little. */
const LEGEND_MIN = 16;

/**
 * Fits a grid into `width` columns as drawn by {@link renderBox}. In order,
 * until it fits: constant `hoist` columns leave for the title; long values of
 * `legend` columns become `[n]` with the text listed below; then columns
 * are dropped by `priority`. What still does not fit (only columns of
 * priority 0 left) is drawn as it is.
 */
export function fitGrid(grid: Grid, width: number, hints: FitHints = grid.fit ?? {}): FittedGrid {
  const fits = (g: Grid): boolean => blockWidth(renderBox(g, false)) <= width;
  if (!Number.isFinite(width) || fits(grid)) return { grid, hoisted: '', notes: [], dropped: [], fits: true };
  // `full` keeps every column (so indices stay those of `grid`); `hidden` is what is left out of it.
  let full = grid;
  const hidden = new Set<number>();
  const shown = (): Grid => pick(full, hidden);
  const words: string[] = [];
  const first = grid.rows[0];
  if (first) {
    grid.head.forEach((name, i) => {
      if (hints.hoist?.[i] && grid.rows.every((row) => row[i] === first[i])) {
        hidden.add(i);
        words.push(`${name} ${first[i] ?? ''}`);
      }
    });
  }
  const notes: string[] = [];
  if (!fits(shown()) && hints.legend?.some(Boolean)) {
    const refs = new Map<string, number>();
    const rows = grid.rows.map((row) =>
      row.map((cell, i) => {
        if (!hints.legend?.[i] || visibleLength(cell) < LEGEND_MIN) return cell;
        if (!refs.has(cell)) refs.set(cell, refs.size + 1);
        return `[${refs.get(cell)}]`;
      }),
    );
    full = { ...grid, rows };
    for (const [text, n] of refs) notes.push(wrapText(`[${n}] ${text}`, width, 4));
  }
  const order = grid.head
    .map((_, i) => i)
    .filter((i) => !hidden.has(i) && (hints.priority?.[i] ?? 0) > 0)
    .sort((a, b) => (hints.priority?.[b] ?? 0) - (hints.priority?.[a] ?? 0) || b - a);
  const dropped: number[] = [];
  for (const i of order) {
    if (fits(shown())) break;
    dropped.push(i);
    hidden.add(i);
  }
  const names = dropped.sort((a, b) => a - b).map((i) => grid.head[i] ?? '');
  if (names.length > 0) notes.push(wrapText(`not shown at ${width} columns: ${names.join(', ')} (--wide shows every column)`, width));
  return { grid: shown(), hoisted: words.join(', '), notes, dropped: names, fits: fits(shown()) };
}

/**
 * A titled table for a terminal, fitted to `width`: the title (with what
 * moved out of the table) and the grid's caption, the table, then its legend
 * and notes. The caption follows the title on its line when both fit in
 * 120 columns (or `width`), else it goes on its own line (always with
 * `captionBelow`); both wrap between words.
 */
export function renderFitted(
  title: string,
  grid: Grid,
  width: number,
  style: { color: boolean; bold: (s: string) => string; dim?: (s: string) => string; captionBelow?: boolean },
): string {
  const fitted = fitGrid(grid, width);
  const head = fitted.hoisted ? `${title} — ${fitted.hoisted}` : title;
  const caption = grid.caption;
  const inline = caption && !style.captionBelow && visibleLength(head) + caption.length + 2 <= Math.min(width, PIPED_COLUMNS);
  const lines = [
    style.bold(wrapText(inline ? `${head}: ${caption}` : head, width)),
    ...(caption && !inline ? [wrapText(caption, Math.min(width, PIPED_COLUMNS))] : []),
    renderBox(fitted.grid, style.color),
    ...fitted.notes.map((n) => (style.dim ? style.dim(n) : n)),
  ];
  return lines.join('\n');
}
