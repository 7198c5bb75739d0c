import Table from 'cli-table3';

/** A rectangular table: header plus rows of cells, rendered in one of several formats. */
export interface Grid {
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns aligned right (numbers). */
  readonly numeric?: readonly boolean[];
  /** A note for the title, e.g. what a ratio divides. */
  readonly caption?: string;
}

/** A boxed table for a terminal. */
export function renderBox(grid: Grid, color: boolean): string {
  const table = new Table({
    head: [...grid.head],
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
