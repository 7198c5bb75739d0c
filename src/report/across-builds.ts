import type { RoleChange, RoleFigures } from '../compare/builds.js';
import { formatWindow } from '../core/format.js';
import { kb, percent } from './style.js';
import { renderBox, renderMarkdown, type Grid } from './table.js';

/** The across-builds report as a table (or markdown): one row per cell and key role. */
export function renderRoleChanges(
  changes: readonly RoleChange[],
  builds: { baseline: string; current: string },
  format: 'table' | 'markdown',
  color: boolean,
): string {
  const cell = (f: RoleFigures | null, what: keyof RoleFigures): string => (f === null ? '—' : what === 'bytes' ? kb(f.bytes) : String(f[what]));
  const grid: Grid = {
    head: ['window', 'req/s', 'layout', 'key role', 'encoding', 'encoding now', 'elements', 'elements now', 'KB', 'KB now', 'bytes change', 'what changed'],
    rows: changes.map((c) => [
      formatWindow(c.windowSeconds),
      String(c.rate),
      c.layout,
      c.role,
      cell(c.baseline, 'encoding'),
      cell(c.current, 'encoding'),
      cell(c.baseline, 'elements'),
      cell(c.current, 'elements'),
      cell(c.baseline, 'bytes'),
      cell(c.current, 'bytes'),
      c.baseline && c.current && c.baseline.bytes > 0 ? percent(c.current.bytes / c.baseline.bytes - 1) : '',
      c.changed.length === 0 ? 'nothing' : c.changed.join(', '),
    ]),
    numeric: [false, true, false, false, false, false, true, true, true, true, true, false],
  };
  const title = `Across builds, per key role of one light: ${builds.baseline} (baseline) → ${builds.current} (current, "now")`;
  return `${title}\n${format === 'markdown' ? renderMarkdown(grid) : renderBox(grid, color)}\n`;
}
