/**
 * drawRows draws a long table in parts (cli-table3's layout is quadratic in
 * rows): the text must be the one draw of every row, line for line, also
 * under a head of several lines (renderBox wraps long numeric heads).
 */
import Table from 'cli-table3';
import { describe, expect, it } from 'vitest';
import { drawRows, renderBox, wrapHead } from '../../../src/report/table.js';

const make = (): Table.Table =>
  new Table({
    head: ['light', wrapHead('successes in the window'), 'state'],
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'right', 'left'],
  });

/** Rows whose widest cells sit in different parts, some of two lines. */
const rows = (count: number): string[][] =>
  Array.from({ length: count }, (_, i) => [`light-${'x'.repeat((i * 7) % 23)}`, String(i * i * 31), i % 4 === 0 ? 'red\nlocked' : 'green']);

describe('drawRows', () => {
  it('draws in parts exactly what one draw gives, under a head of two lines', () => {
    expect(make().toString().split('\n')).toHaveLength(4);
    for (const count of [0, 1, 9, 10, 11, 57]) {
      const whole = drawRows(make, rows(count), Number.POSITIVE_INFINITY);
      for (const per of [1, 4, 10]) expect(drawRows(make, rows(count), per), `${count} rows in parts of ${per}`).toBe(whole);
    }
  });

  it('renderBox of a long grid equals its one draw', () => {
    const grid = { head: ['light', 'successes in the window'], rows: rows(250).map((r) => [r[0] as string, r[1] as string]), numeric: [false, true] };
    const one = new Table({
      head: ['light', wrapHead('successes in the window')],
      style: { head: [], border: [], compact: true },
      colAligns: ['left', 'right'],
    });
    for (const row of grid.rows) one.push([...row]);
    expect(renderBox(grid, false)).toBe(one.toString());
  });
});
