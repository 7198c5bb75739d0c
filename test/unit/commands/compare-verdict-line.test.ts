import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

const baseline = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));

interface Breakdown {
  command: string;
  mean: number;
  min: number;
  max: number;
}
interface Result {
  layout: string;
  windowSeconds: number;
  memory: { bytesPerLight: number };
  commands?: Record<string, { commands: { mean: number; min: number; max: number }; breakdown: Breakdown[] }>;
}

/**
 * One HSET planted in every 6.0 write (as a stray debug field would be):
 * one more command per call in every 6.0 cell, and 72 more bytes per light
 * where the cells are small enough for 72 bytes to pass the 1% tolerance.
 */
function planted(): string {
  const report = JSON.parse(readFileSync(baseline, 'utf8')) as { results: Result[] };
  for (const r of report.results) {
    if (r.layout !== 'stoplight-v6') continue;
    if (r.windowSeconds === 30) r.memory.bytesPerLight += 72;
    for (const op of Object.values(r.commands ?? {})) {
      op.commands = { mean: op.commands.mean + 1, min: op.commands.min + 1, max: op.commands.max + 1 };
      const hset = op.breakdown.find((b) => b.command === 'hset');
      if (hset) Object.assign(hset, { mean: hset.mean + 1, min: hset.min + 1, max: hset.max + 1 });
      else op.breakdown.push({ command: 'hset', mean: 1, min: 1, max: 1 });
    }
  }
  return JSON.stringify(report);
}

let dir = '';
let current = '';
let verdict = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swc-verdict-'));
  current = join(dir, 'current.json');
  writeFileSync(current, planted());
  const json = await runInProcess(['compare', baseline, current, '--json']);
  expect(json.code, json.stderr).toBe(1);
  verdict = (JSON.parse(json.stdout) as { verdictLine: string }).verdictLine;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('swc compare: the verdict is one whole line in every format, at any width, and the table starts with it', () => {
  it('the planted regression fails on bytes and commands, in a line longer than 40 columns, never cut', () => {
    expect(verdict).toMatch(/^FAIL: bytes per light grew in 2 of 8 cells .*; commands per call rose in \d+ figure\(s\)/);
    expect(verdict).not.toContain('…');
    expect([...verdict].length).toBeGreaterThan(80);
  });

  for (const columns of ['40', '80', '200']) {
    it(`COLUMNS=${columns}: table (first line), markdown, CSV (stderr), JSON and github (first annotation)`, async () => {
      const env = { COLUMNS: columns };
      const [table, markdown, csv, json, github, quiet] = await Promise.all([
        runInProcess(['compare', baseline, current], env),
        runInProcess(['compare', baseline, current, '--format', 'markdown'], env),
        runInProcess(['compare', baseline, current, '--format', 'csv'], env),
        runInProcess(['compare', baseline, current, '--json'], env),
        runInProcess(['compare', baseline, current, '--format', 'github'], { ...env, GITHUB_STEP_SUMMARY: '' }),
        runInProcess(['compare', baseline, current, '-q'], env),
      ]);
      for (const r of [table, markdown, csv, json, github, quiet]) expect(r.code, r.stderr).toBe(1);
      expect(table.stdout.split('\n')[0]).toBe(verdict);
      expect(markdown.stdout.split('\n')[0]).toBe(`**${verdict}**`);
      expect(csv.stdout.split('\n')[0]).toMatch(/^cell,layout,/);
      expect(csv.stderr.split('\n')).toContain(`swc compare: ${verdict}`);
      expect((JSON.parse(json.stdout) as { verdictLine: string }).verdictLine).toBe(verdict);
      // A workflow command's data escapes % as %25 (GitHub shows it back as %).
      const [annotation, data] = (github.stdout.split('\n')[0] ?? '').split('::').slice(1);
      expect(annotation).toMatch(/^error file=.*,title=swc compare$/);
      expect(data?.replace(/%25/g, '%')).toBe(verdict);
      // The table's support follows the answer: which builds and the gate, then the table.
      expect(table.stdout.indexOf('baseline ')).toBeGreaterThan(table.stdout.indexOf(verdict));
      // -q: the verdict and a few lines.
      expect(quiet.stdout.split('\n')[0]).toBe(verdict);
      expect(quiet.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(5);
    });
  }
});
