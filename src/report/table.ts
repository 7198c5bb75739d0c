import Table from 'cli-table3';

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

/** A boxed table for a terminal; long headers of numeric columns wrap between words. */
export function renderBox(grid: Grid, color: boolean): string {
  const table = new Table({
    // Numbers are narrower than their names; text columns are as wide as their values anyway.
    head: grid.head.map((h, i) => (grid.numeric?.[i] ? wrapHead(h) : h)),
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [], compact: true },
    colAligns: grid.head.map((_, i) => (grid.numeric?.[i] ? 'right' : 'left')),
  });
  for (const row of grid.rows) table.push([...row]);
  return table.toString();
}

/** A GitHub-flavoured Markdown table, ready to paste. */
export function renderMarkdown(grid: Grid): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(escape).join(' | ')} |`;
  const rule = grid.head.map((_, i) => (grid.numeric?.[i] ? '---:' : '---'));
  return [line(grid.head), `| ${rule.join(' | ')} |`, ...grid.rows.map(line)].join('\n');
}

/** RFC 4180 CSV. */
export function renderCsv(grid: Grid): string {
  const quote = (cell: string): string => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);
  return [grid.head, ...grid.rows].map((row) => row.map(quote).join(',')).join('\n');
}
