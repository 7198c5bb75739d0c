import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { breakdownText, commandsGrid, csvGrid, perCallText, renderBench } from '../../../src/report/bench.js';
import type { BenchReport } from '../../../src/measure/types.js';
import { twoLayouts } from './fixtures.js';

/** The shipped small baseline: a real run with commands per call in every cell. */
const small = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url)), 'utf8')) as BenchReport;
const over = (text: string, width: number): string[] => text.split('\n').filter((l) => [...l].length > width);

describe('commands per call in bench’s report', () => {
  it('a count that never varied is one number; one that did is its mean and range', () => {
    expect(perCallText({ mean: 15, min: 15, max: 15 })).toBe('15');
    expect(perCallText({ mean: 13, min: 10, max: 16 })).toBe('13 (10–16)');
    expect(perCallText({ mean: 4.6, min: 2, max: 8 })).toBe('4.6 (2–8)');
  });

  it('compact by default: one row per cell and layout with write, failure and read, fitting 80 columns', () => {
    const grid = commandsGrid(small, { wide: false });
    expect(grid?.head).toEqual(['window', 'req/s', 'layout', 'write', 'failure', 'read']);
    expect(grid?.rows).toHaveLength(small.results.length);
    const v6 = small.results.findIndex((r) => r.layout === 'stoplight-v6' && r.windowSeconds === 30 && r.rate === 1);
    const cell = small.results[v6];
    expect(grid?.rows[v6]).toEqual([
      '30 s',
      '1',
      'stoplight-v6',
      ...(['write', 'failure', 'read'] as const).map((op) => perCallText(cell?.commands?.[op].commands ?? { mean: NaN, min: NaN, max: NaN })),
    ]);
    const text = renderBench(small, 'table', false, { width: 80 });
    expect(text).toContain('Commands per call (INFO commandstats, private server: exact)');
    expect(text).toMatch(/│ layout +│ +write │ +failure │ +read │/);
    expect(over(text, 80)).toEqual([]);
  });

  it('--wide and markdown: one row per operation with reply and request bytes and the commands by name', () => {
    const grid = commandsGrid(small, { wide: true });
    expect(grid?.head).toEqual(['window', 'req/s', 'layout', 'op', 'cmds/call', 'reply B', 'request B', 'commands']);
    expect(grid?.rows).toHaveLength(small.results.length * 3);
    const write = small.results[0]?.commands?.write;
    expect(write).toBeDefined();
    if (!write) return;
    expect(grid?.rows[0]?.slice(3)).toEqual([
      'write',
      perCallText(write.commands),
      String(Math.round(write.replyBytes)),
      String(Math.round(write.requestBytes)),
      breakdownText(write),
    ]);
    // Upper-case names with their count per call, as the server counts them.
    expect(breakdownText(write)).toMatch(/^([A-Z]+ [\d.]+( \([\d.]+–[\d.]+\))?)(, [A-Z]+ [\d.]+( \([\d.]+–[\d.]+\))?)*$/);
    expect(renderBench(small, 'markdown', false)).toContain(`| ${breakdownText(write)} |`);
  });

  it('no commands measured: no table, and the footer says why', () => {
    expect(commandsGrid(twoLayouts)).toBeUndefined();
    const skipped = { ...twoLayouts, commandsSkipped: 'not measured: --no-commands' };
    expect(renderBench(skipped, 'table', false)).toContain('commands per call not measured: --no-commands');
    expect(renderBench(twoLayouts, 'table', false)).not.toContain('Commands per call');
  });

  it('csv: commands per call, min, max, reply and request bytes and the breakdown of each operation', () => {
    const grid = csvGrid(small);
    const col = (name: string): number => grid.head.indexOf(name);
    for (const op of ['write', 'failure', 'read'] as const) {
      for (const f of ['CommandsPerCall', 'CommandsMin', 'CommandsMax', 'ReplyBytesPerCall', 'RequestBytesPerCall', 'Commands'])
        expect(col(`${op}${f}`)).toBeGreaterThan(0);
    }
    small.results.forEach((r, i) => {
      const row = grid.rows[i] ?? [];
      const p = r.commands?.failure;
      expect(row[col('failureCommandsPerCall')]).toBe(String(p?.commands.mean));
      expect(row[col('failureCommandsMax')]).toBe(String(p?.commands.max));
      expect(row[col('failureReplyBytesPerCall')]).toBe(String(p?.replyBytes));
      expect(row[col('failureCommands')]).toBe(p?.breakdown.map((b) => `${b.command}:${b.mean}`).join('+'));
    });
    // Without commands the columns are empty, not missing.
    expect(csvGrid(twoLayouts).rows[0]?.slice(col('writeCommandsPerCall'), col('writeCommandsPerCall') + 18)).toEqual(Array<string>(18).fill(''));
  });
});
