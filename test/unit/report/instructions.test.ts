import { describe, expect, it } from 'vitest';
import type { InstructionsResult } from '../../../src/measure/instructions.js';
import type { BenchReport, CellResult, Spread } from '../../../src/measure/types.js';
import { renderBench } from '../../../src/report/bench.js';
import { throughputNotes } from '../../../src/report/instructions.js';
import { instructionsOp as op, twoLayouts } from './fixtures.js';

const spread = (median: number, wide: number): Spread => ({
  median,
  min: median * (1 - wide / 2),
  max: median * (1 + wide / 2),
  spreadFraction: wide,
  noisy: wide > 0.25,
});

/** The fixture with 5 rounds per phase, ops/s `wide` apart. */
function withRounds(report: BenchReport, wide: number): BenchReport {
  return {
    ...report,
    results: report.results.map((r): CellResult => {
      const t = r.throughput;
      if (!t) return r;
      const round = (s: typeof t.write) => ({
        ...s,
        rounds: {
          count: 5,
          opsPerSec: spread(s.opsPerSec, wide),
          p50Ms: spread(s.p50Ms, 0),
          p99Ms: spread(s.p99Ms, 0),
          p999Ms: spread(s.p999Ms, 0),
          serverUsecPerCall: spread(s.serverUsecPerCall ?? 1, 0.1),
        },
      });
      return { ...r, throughput: { ...t, rounds: 5, write: round(t.write), read: round(t.read), request: round(t.request) } };
    }),
  };
}

const counts = (write: number, wide = 0.004): InstructionsResult => ({
  counted: 'test',
  write: op(write, wide),
  read: op(65_500),
  request: op(222_500),
  lights: 1,
});

describe('notes under the throughput table', () => {
  it('say what settles figures marked noisy, and that counting is opt-in when the run did not count', () => {
    const notes = throughputNotes(withRounds(twoLayouts, 0.6));
    expect(notes[0]).toBe('noisy = rounds over 25% apart; settled by --instructions (counts do not wander), --rounds 10 (now 5) or a quieter machine');
    expect(notes[1]).toMatch(/not counted; opt-in with --instructions/);
    // Quiet rounds: no advice, only the opt-in line.
    expect(throughputNotes(withRounds(twoLayouts, 0.1))).toEqual([
      'instructions/call: not counted; opt-in with --instructions (under valgrind, it adds 30 s or more to a run)',
    ]);
  });

  it('point at the counts when the run has them, and flag repeats more than 1% apart', () => {
    const counted: BenchReport = {
      ...withRounds(twoLayouts, 0.6),
      results: withRounds(twoLayouts, 0.6).results.map((r) => ({ ...r, instructions: counts(155_600, r.layout === 'stoplight-v6' ? 0.016 : 0.004) })),
    };
    const notes = throughputNotes(counted);
    expect(notes[0]).toMatch(/counted instructions do not wander/);
    expect(notes.join('\n')).toMatch(/instructions: 2 count\(s\) with repeats over 1\.0% apart \(widest stoplight-v6 write, 1\.6%\)/);
    const text = renderBench(counted, 'table', false);
    expect(text).toMatch(/instructions/);
    expect(text).toMatch(/155,600 ±0\.8%/);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
  });
});

describe('csv with counted instructions', () => {
  it('carries each op’s count, its spread and its ratio to the first layout, empty where the run did not count', () => {
    const counted: BenchReport = {
      ...twoLayouts,
      results: twoLayouts.results.map((r, i) =>
        i === 1 ? { ...r, instructions: { ...counts(155_600), ratio: { reference: 'stoplight-v5', write: 0.5, read: 0.25, request: 0.4 } } } : r,
      ),
    };
    const [head, first, second] = renderBench(counted, 'csv', false).split('\n');
    const columns = (head ?? '').split(',');
    const cell = (row: string | undefined, name: string): string | undefined => (row ?? '').split(',')[columns.indexOf(name)];
    expect(columns.slice(-9)).toEqual([
      'writeInstructionsPerCall',
      'writeInstructionsSpread',
      'writeInstructionsRatio',
      'readInstructionsPerCall',
      'readInstructionsSpread',
      'readInstructionsRatio',
      'requestInstructionsPerCall',
      'requestInstructionsSpread',
      'requestInstructionsRatio',
    ]);
    expect(cell(first, 'writeInstructionsPerCall')).toBe('');
    expect(cell(second, 'writeInstructionsPerCall')).toBe('155600');
    expect(cell(second, 'writeInstructionsSpread')).toBe('0.004');
    expect(cell(second, 'readInstructionsRatio')).toBe('0.25');
    expect(cell(second, 'requestInstructionsPerCall')).toBe('222500');
  });
});
