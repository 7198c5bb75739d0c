/**
 * rowsTable draws a long table in parts (cli-table3's layout is quadratic in
 * rows); the text must be the one draw of every row, line for line.
 */
import { describe, expect, it } from 'vitest';
import { palette } from '../../../src/report/style.js';
import { rowsTable } from '../../../src/report/inspect.js';

const HEAD = ['time', 'age s', 'successes', 'failures', 'state'];
const RIGHT = ['age s', 'successes', 'failures'];

/** Rows whose widest cells sit in different parts, with a coloured cell and a two-line one. */
function rows(count: number, color: boolean): (string | number)[][] {
  const c = palette(color);
  return Array.from({ length: count }, (_, i) => [
    `2025-11-29T21:${String(i % 60).padStart(2, '0')}:00Z`,
    i * i * 97,
    i === 13 ? 123_456_789 : i % 7,
    i % 5 === 0 ? 0 : 10 ** (i % 9),
    i === 40 ? 'two\nlines' : i % 3 === 0 ? c.yellow('stale') : 'in window',
  ]);
}

describe('rowsTable', () => {
  for (const color of [false, true]) {
    it(`draws in parts exactly what one draw gives (color ${color})`, () => {
      const c = palette(color);
      for (const count of [1, 6, 7, 8, 49, 50]) {
        const all = rows(count, color);
        const whole = rowsTable(HEAD, all, c, color, RIGHT, Number.POSITIVE_INFINITY);
        for (const per of [1, 3, 7, 10]) {
          expect(rowsTable(HEAD, all, c, color, RIGHT, per), `${count} rows in parts of ${per}`).toBe(whole);
        }
      }
    });
  }

  it('the parts differ in width, so some are drawn again at the widest', () => {
    const c = palette(false);
    const all = rows(50, false);
    const firstPart = rowsTable(HEAD, all.slice(0, 10), c, false, RIGHT);
    const whole = rowsTable(HEAD, all, c, false, RIGHT, 10);
    expect(firstPart.split('\n')[0]!.length).toBeLessThan(whole.split('\n')[0]!.length);
  });
});
