import { describe, expect, it } from 'vitest';
import { changedRows, fitFrame, redraw, rowsTaken } from '../../../src/report/watch.js';

const table = (rows: string[]): string =>
  ['┌───┬───┐', '│ a │ b │', '├───┼───┤', ...rows, '└───┴───┘', 'total: 2 lights', 'idle and stale at 12:00:01'].join('\n');

describe('--watch text', () => {
  it('piped: only the rows and totals that changed, never the borders or the moment line', () => {
    const before = table(['│ x │ 1 │', '│ y │ 2 │']);
    expect(changedRows(before, before)).toEqual([]);
    const after = table(['│ x │ 1 │', '│ y │ 3 │']).replace('12:00:01', '12:00:02');
    expect(changedRows(before, after)).toEqual(['│ y │ 3 │']);
    // A name stacked above its row goes with it.
    const stacked = (n: string): string => table(['│ a-long-light-name │', `│ x │ ${n} │`]);
    expect(changedRows(stacked('1'), stacked('2'))).toEqual(['│ a-long-light-name │\n│ x │ 2 │']);
  });

  it('on a terminal: a redraw goes up the rows the last frame took, clears each line it writes, never the whole screen', () => {
    expect(redraw(['one', 'two'], 0)).toBe('\x1b[2Kone\n\x1b[2Ktwo\n\x1b[J');
    expect(redraw(['one'], 3)).toBe('\x1b[3F\x1b[2Kone\n\x1b[J');
    // A line longer than the terminal takes two rows.
    expect(rowsTaken(['x'.repeat(81), 'y'], 80)).toBe(3);
  });

  it('a frame taller than the screen is cut to it, with a line saying so', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const frame = fitFrame(lines, 80, 10);
    expect(frame).toHaveLength(9);
    expect(frame.at(-1)).toBe('… 22 more line(s) below the screen: fewer with --top, or a taller terminal');
    expect(fitFrame(lines.slice(0, 5), 80, 10)).toEqual(lines.slice(0, 5));
  });
});
