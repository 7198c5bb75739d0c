/**
 * CSV cells a spreadsheet would evaluate get a leading apostrophe (#41);
 * numbers keep their sign, since a change of -1.8% is data.
 */
import { describe, expect, it } from 'vitest';
import { csvSafe, renderCsv } from '../../../src/report/table.js';

describe('CSV injection', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1+cmd', "'+1+cmd"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['-12 B', "'-12 B"],
    ['-inf', "'-inf"],
  ])('%s is written %s', (cell, written) => {
    expect(csvSafe(cell)).toBe(written);
  });

  it.each(['-1.8%', '+2.3%', '-0.1002024291497976', '-1,234.5', '1e-7', '-3E+2', '-', 'stoplight-v6', '0'])('%s is data and stays as it is', (cell) => {
    expect(csvSafe(cell)).toBe(cell);
  });

  it('renderCsv applies it to every cell, heads too, before quoting', () => {
    const csv = renderCsv({ head: ['=name', 'change'], rows: [['=HYPERLINK("http://x","y")', '-1.8%']], numeric: [false, true] });
    expect(csv).toBe(`'=name,change\n"'=HYPERLINK(""http://x"",""y"")",-1.8%`);
  });
});
