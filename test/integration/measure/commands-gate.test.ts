import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareReports, DEFAULT_COMPARE_OPTIONS } from '../../../src/compare/diff.js';
import type { BenchReport } from '../../../src/measure/types.js';
import { failureLines } from '../../../src/report/compare.js';

const baseline = JSON.parse(readFileSync('fixtures/baselines/small.json', 'utf8')) as BenchReport;

/** The baseline with one more ZCARD per call in every stoplight-v6 write, as a planted script gives (see commands-per-call.test.ts). */
function withZcard(report: BenchReport, extra: number): BenchReport {
  return {
    ...report,
    results: report.results.map((r) => {
      if (r.layout !== 'stoplight-v6' || !r.commands) return r;
      const w = r.commands.write;
      const one = { command: 'zcard', mean: extra, min: extra, max: extra };
      const commands = { mean: w.commands.mean + extra, min: w.commands.min + extra, max: w.commands.max + extra };
      return { ...r, commands: { ...r.commands, write: { ...w, commands, breakdown: [...w.breakdown, one] } } };
    }),
  };
}

describe('swc compare gates commands per call exactly', () => {
  it('the shipped baseline has commands per call in every cell', () => {
    for (const r of baseline.results) expect(r.commands?.write.commands.mean).toBeGreaterThan(0);
  });

  it('passes an unchanged run, and fails +1 ZCARD per write naming it and the counts', () => {
    expect(compareReports(baseline, baseline).ok).toBe(true);
    const verdict = compareReports(baseline, withZcard(baseline, 1));
    expect(verdict.ok).toBe(false);
    const lines = failureLines(verdict);
    expect(lines).toContain('stoplight-v6 write (stoplight-v6 30 s @ 1/s): +1 ZCARD per call (15 → 16 commands)');
    expect(verdict.failures.every((r) => r.figure === 'writeCommandsPerCall' && r.layout === 'stoplight-v6')).toBe(true);
  });

  it('--commands-tolerance lets a varying count through; a baseline without commands is not gated', () => {
    expect(compareReports(baseline, withZcard(baseline, 1), { ...DEFAULT_COMPARE_OPTIONS, commandsTolerance: 1 }).ok).toBe(true);
    const bare = { ...baseline, results: baseline.results.map(({ commands: _, ...r }) => r) };
    const verdict = compareReports(bare, withZcard(baseline, 1));
    expect(verdict.ok).toBe(true);
    expect(verdict.rows.filter((r) => r.figure === 'writeCommandsPerCall').every((r) => r.status === 'info' && r.baseline === null)).toBe(true);
  });
});
