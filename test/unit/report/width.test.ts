import { describe, expect, it } from 'vitest';
import { renderBench } from '../../../src/report/bench.js';
import type { Grid } from '../../../src/report/table.js';
import { blockWidth, fitGrid, outputWidth, proseWidth, renderFitted, wrapText } from '../../../src/report/width.js';
import { threeLayouts, twoLayouts } from './fixtures.js';

const longest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));

describe('outputWidth', () => {
  it('takes COLUMNS first, then the TTY, then 120 off a TTY; never below 80; --wide is unbounded', () => {
    expect(outputWidth(false, { env: { COLUMNS: '100' }, stream: { isTTY: true, columns: 150 } })).toBe(100);
    expect(outputWidth(false, { env: {}, stream: { isTTY: true, columns: 150 } })).toBe(150);
    expect(outputWidth(false, { env: {}, stream: { isTTY: false } })).toBe(120);
    expect(outputWidth(false, { env: { COLUMNS: '40' }, stream: {} })).toBe(80);
    expect(outputWidth(false, { env: { COLUMNS: 'wide' }, stream: { isTTY: false } })).toBe(120);
    expect(outputWidth(true, { env: { COLUMNS: '80' } })).toBe(Number.POSITIVE_INFINITY);
    // Line reports stay whole in a log unless COLUMNS asks.
    expect(proseWidth({ env: {}, stream: { isTTY: false } })).toBe(Number.POSITIVE_INFINITY);
    expect(proseWidth({ env: { COLUMNS: '90' }, stream: { isTTY: false } })).toBe(90);
  });
});

describe('wrapText', () => {
  it('breaks between words, indents continuations past the line own indent, keeps short lines', () => {
    expect(wrapText('short', 10)).toBe('short');
    expect(wrapText('  one two three four', 12)).toBe('  one two\n    three\n    four');
    expect(longest(wrapText('a '.repeat(100), 30))).toBeLessThanOrEqual(30);
  });

  it('keeps a figure on the line of its number: `1.6 s` never wraps as `1.6` / `s`', () => {
    // Plain words would break after "1.6" at 22 columns.
    expect(wrapText('commands per call 1.6 s, cells 0.2 s', 22)).toBe('commands per call\n  1.6 s, cells 0.2 s');
    expect(wrapText('used 12 KB; then 3 ms)', 9)).toBe('used\n  12 KB;\n  then\n  3 ms)');
    // A unit-like word after a word that is not a number wraps as any word.
    expect(wrapText('the s is alone', 5)).toBe('the s\n  is\n  alone');
  });
});

describe('fitGrid', () => {
  const grid: Grid = {
    head: ['window', 'req/s', 'layout', 'ops/s', 'p50 ms', 'p99.9 ms', 'notes'],
    rows: [
      ['5 min', '100', 'stoplight-v5', '20,000', '0.210', '1.400', 'metadata hashtable, success events skiplist'],
      ['5 min', '100', 'stoplight-v6', '21,000', '0.200', '1.300', 'metadata hashtable, success events skiplist'],
    ],
    numeric: [false, true, false, true, true, true, false],
    fit: {
      priority: [0, 0, 0, 0, 2, 1, 0],
      hoist: [true, true, false, false, false, false, false],
      legend: [false, false, false, false, false, false, true],
    },
  };

  it('leaves a grid that fits alone', () => {
    const fitted = fitGrid(grid, 200);
    expect(fitted.grid).toBe(grid);
    expect(fitted.notes).toEqual([]);
  });

  it('moves constant columns to the title and long text to a legend before it drops anything', () => {
    const fitted = fitGrid(grid, 70);
    expect(fitted.hoisted).toBe('window 5 min, req/s 100');
    expect(fitted.grid.head).toEqual(['layout', 'ops/s', 'p50 ms', 'p99.9 ms', 'notes']);
    expect(fitted.grid.rows[0]?.at(-1)).toBe('[1]');
    expect(fitted.grid.rows[1]?.at(-1)).toBe('[1]');
    expect(fitted.notes).toEqual(['[1] metadata hashtable, success events skiplist']);
    expect(fitted.dropped).toEqual([]);
  });

  it('then drops the highest priority first and names what it dropped', () => {
    const fitted = fitGrid(grid, 50);
    expect(fitted.dropped).toEqual(['p50 ms']);
    expect(fitted.grid.head).toEqual(['layout', 'ops/s', 'p99.9 ms', 'notes']);
    expect(fitted.notes.at(-1)).toBe('not shown at 50 columns: p50 ms (--wide shows\n  every column)');
    expect(fitted.fits).toBe(true);
    const narrower = fitGrid(grid, 40);
    expect(narrower.dropped).toEqual(['p50 ms', 'p99.9 ms']);
    // Nothing left to drop: drawn as it is, and it says so.
    expect(narrower.fits).toBe(blockWidth(renderFitted('t', grid, 40, { color: false, bold: (s) => s })) <= 40);
  });

  it('renders every line within the width it fitted to', () => {
    const text = renderFitted('A title long enough that it has to wrap at this width, whatever the table', grid, 50, { color: false, bold: (s) => s });
    expect(longest(text)).toBeLessThanOrEqual(50);
  });
});

describe('renderBench at 80 columns', () => {
  it('no line of the fixtures report passes 80 columns, and the first screen says what it means', () => {
    for (const report of [twoLayouts, threeLayouts]) {
      const text = renderBench(report, 'table', false, { width: 80 });
      expect(longest(text)).toBeLessThanOrEqual(80);
    }
    const first = renderBench(twoLayouts, 'table', false, { width: 80 }).split('\n').slice(0, 24).join('\n');
    expect(first).toMatch(/stoplight-v5\s+│\s+stoplight-v6/);
    expect(first).toMatch(/ratio/);
    expect(first).toMatch(/cost/);
    expect(first).toMatch(/What it means: across 2 cells a stoplight-v6 light takes 6\.89×–65\.4× less memory\s+than stoplight-v5/);
  });

  it('--wide keeps every column whatever the width', () => {
    const text = renderBench(twoLayouts, 'table', false, { wide: true, width: 80 });
    expect(text).toContain('stoplight-v5: metrics skiplist | stoplight-v6: metrics listpack');
    expect(text).toMatch(/p99\.9 ms/);
  });
});
