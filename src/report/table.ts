import Table from 'cli-table3';
import { visible } from './style.js';

/**
 * Longest cell any grid prints (box, markdown, csv): a name from Redis of
 * 180 KB would otherwise make a 180 KB line. Longer than the 200 characters
 * a value is cut to elsewhere, so an already cut value stays as it is.
 */
export const MAX_CELL_CHARS = 512;

/** SGR colour sequences: the only escape sequences swc's own renderers put in a cell (a box in colour only). */
const SGR = /(\x1b\[[0-9;]*m)/;

/** `text` past {@link MAX_CELL_CHARS} cut, naming its full size. */
function cut(text: string): string {
  if (text.length <= MAX_CELL_CHARS) return text;
  return `${text.slice(0, MAX_CELL_CHARS)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/**
 * A cell made safe, whatever reached the grid (a name from Redis, a value
 * from a file): every control character shown as `\xHH` ({@link visible}),
 * then cut. CSV and markdown keep nothing raw, not even a newline. A box
 * keeps its own line breaks and, drawn in colour, the colours swc painted;
 * anything else (an injected `ESC [2J`) is escaped there too. Escaping twice
 * changes nothing, so renderers that escaped already are unaffected.
 */
export function safeCell(cell: string, box?: { colour: boolean }): string {
  if (!box) return cut(visible(cell));
  return cell
    .split('\n')
    .map((line) => {
      if (!box.colour) return cut(visible(line));
      // split with a capturing group: odd entries are the colour sequences, kept.
      return line
        .split(SGR)
        .map((part, i) => (i % 2 === 1 ? part : cut(visible(part))))
        .join('');
    })
    .join('\n');
}

/** A rectangular table: header plus rows of cells, rendered in one of several formats. */
export interface Grid {
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns aligned right (numbers). */
  readonly numeric?: readonly boolean[];
  /** A note for the title, e.g. what a ratio divides. */
  readonly caption?: string;
  /** Lines printed under the table (what would settle a noisy figure, say). */
  readonly notes?: readonly string[];
  /** How the columns give way on a narrow terminal (src/report/width.ts). */
  readonly fit?: FitHints;
  /**
   * A column a box draws on a line of its own above each row, across the
   * table, so a name a user copies stays whole where the row would not fit
   * the terminal; markdown and CSV keep it a column.
   */
  readonly stack?: number;
}

/** How a grid's columns may give way when it is too wide (all optional, indexed by column; see fitGrid). */
export interface FitHints {
  /**
   * Importance of each column: 0 (or missing) is never dropped; among the
   * others the highest number goes first, the rightmost on a tie.
   */
  readonly priority?: readonly number[];
  /** Columns that, when every row has the same value, move into the title (`window 5 min, req/s 100`). */
  readonly hoist?: readonly boolean[];
  /** Text columns whose values may move into a numbered legend below the table. */
  readonly legend?: readonly boolean[];
}

/** Header cells wider than this are broken between words, so a long name does not widen its column past its values. */
const HEAD_LINE = 12;

/** A header cell on as many lines as it needs, each at most {@link HEAD_LINE} long where the words allow. */
export function wrapHead(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= HEAD_LINE) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

/** Rows per cli-table3 draw in {@link drawRows}: its layout pass is quadratic in the rows (10,000 took ~16 s in one draw). */
export const ROWS_PER_DRAW = 100;

/**
 * What one draw of `rows` into the compact table `make` builds gives, line
 * for line, at a cost that grows with the rows rather than with their
 * square: drawn in parts of `per` rows, each part at the widest any part
 * needs, then joined under one head and one bottom border.
 */
export function drawRows(make: () => Table.Table, rows: readonly (readonly Table.Cell[])[], per = ROWS_PER_DRAW): string {
  const draw = (part: readonly (readonly Table.Cell[])[], widths?: readonly number[]): { text: string; widths: number[] } => {
    const table = make();
    if (widths) table.options.colWidths = [...widths];
    for (const row of part) table.push([...row]);
    const text = table.toString();
    // cli-table3 leaves the widths it drew at in the table's options.
    return { text, widths: table.options.colWidths.map((w) => w ?? 0) };
  };
  if (rows.length <= per) return draw(rows).text;
  const parts: (readonly (readonly Table.Cell[])[])[] = [];
  for (let i = 0; i < rows.length; i += per) parts.push(rows.slice(i, i + per));
  const drawn = parts.map((part) => draw(part));
  const columns = drawn[0]?.widths.length ?? 0;
  const widths = Array.from({ length: columns }, (_, i) => drawn.reduce((widest, d) => Math.max(widest, d.widths[i] ?? 0), 0));
  const lines = drawn.map((d, i) => {
    const same = d.widths.every((w, j) => w === widths[j]);
    return (same ? d.text : draw(parts[i] as readonly (readonly Table.Cell[])[], widths).text).split('\n');
  });
  // A table without rows is its top border, its head's lines and its bottom border; with rows a rule follows the head.
  const above = draw([], widths).text.split('\n').length;
  const first = lines[0] as string[];
  const last = lines[lines.length - 1] as string[];
  return [...first.slice(0, above), ...lines.flatMap((l) => l.slice(above, -1)), last[last.length - 1] as string].join('\n');
}

/** A boxed table for a terminal; long headers of numeric columns wrap between words; a `stack` column on its own line above each row. */
export function renderBox(grid: Grid, color: boolean): string {
  const stack = grid.stack;
  const kept = <T>(cells: readonly T[]): T[] => cells.filter((_, i) => i !== stack);
  const head = kept(grid.head);
  const numeric = grid.numeric ? kept(grid.numeric) : undefined;
  const make = (): Table.Table =>
    new Table({
      // Numbers are narrower than their names; text columns are as wide as their values anyway.
      head: head.map((h, i) => safeCell(numeric?.[i] ? wrapHead(h) : h, { colour: color })),
      style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [], compact: true },
      colAligns: head.map((_, i) => (numeric?.[i] ? 'right' : 'left')),
    });
  const rows = grid.rows.map((row) => kept(row).map((cell) => safeCell(cell, { colour: color })));
  const drawn = drawRows(make, rows);
  if (stack === undefined || rows.length === 0) return drawn;
  return stacked(
    drawn.split('\n'),
    grid.rows.map((row) => safeCell(row[stack] ?? '', { colour: color })),
    rows.map((cells) => Math.max(1, ...cells.map((c) => c.split('\n').length))),
    color,
  );
}

/**
 * A drawn box with a line above each row holding `names[i]` across the
 * table; a name longer than the table runs past its right border rather
 * than widening every row or being cut. `heights` are the rows' lines.
 */
function stacked(lines: readonly string[], names: readonly string[], heights: readonly number[], color: boolean): string {
  const rule = lines.findIndex((l) => /^(?:\x1b\[[0-9;]*m)*├/.test(l));
  const inner = visibleWidth(lines[0] ?? '') - 4;
  const border = color ? '\x1b[90m│\x1b[39m' : '│';
  const out = lines.slice(0, rule + 1);
  let at = rule + 1;
  names.forEach((name, i) => {
    const pad = inner - visibleWidth(name);
    out.push(pad >= 0 ? `${border} ${name}${' '.repeat(pad)} ${border}` : `${border} ${name}`);
    const height = heights[i] ?? 1;
    out.push(...lines.slice(at, at + height));
    at += height;
  });
  out.push(...lines.slice(at));
  return out.join('\n');
}

/** Columns a drawn line takes: colour codes take none. */
const visibleWidth = (line: string): number => [...line.replace(/\x1b\[[0-9;]*m/g, '')].length;

/** A GitHub-flavoured Markdown table, ready to paste. */
export function renderMarkdown(grid: Grid): string {
  const escape = (cell: string): string => safeCell(cell).replace(/\|/g, '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(escape).join(' | ')} |`;
  const rule = grid.head.map((_, i) => (grid.numeric?.[i] ? '---:' : '---'));
  return [line(grid.head), `| ${rule.join(' | ')} |`, ...grid.rows.map(line)].join('\n');
}

/**
 * A cell that is one number as a whole (`-1.8%`, `+2.3`, `-1,234.5`,
 * `1e-7`): a spreadsheet reads it as that number whether or not it starts
 * with a sign, and it can call nothing, so it stays as it is.
 */
const PLAIN_NUMBER = /^[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?(e[-+]?\d+)?%?$/i;

/**
 * A CSV cell a spreadsheet would take for a formula (it starts with `=`,
 * `+`, `-` or `@`; tab and CR are already escaped by {@link safeCell}) gets
 * a leading apostrophe, the common rule against CSV injection: the
 * spreadsheet shows the text and does not evaluate it (`=HYPERLINK(…)` is
 * written `'=HYPERLINK(…)`). A plain number keeps its sign
 * ({@link PLAIN_NUMBER}): `-1.8%` in a change column is data.
 */
export function csvSafe(cell: string): string {
  // A lone sign (a table's "none") is not a formula either.
  return /^[=+\-@]/.test(cell) && cell.length > 1 && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/** RFC 4180 CSV. */
export function renderCsv(grid: Grid): string {
  // Escaped first: a control character in a name is written as `\x1b`, never raw; then kept from being read as a formula.
  const quote = (raw: string): string => {
    const cell = csvSafe(safeCell(raw));
    return /[",]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
  };
  return [grid.head, ...grid.rows].map((row) => row.map(quote).join(',')).join('\n');
}
