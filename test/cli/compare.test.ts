import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/measure/types.js';
import { runCli } from './run-cli.js';

// End to end only; the rest of compare's cases run in-process in test/unit/commands/compare.test.ts.

/** A real result: the committed baseline of the small CI scenario. */
const BASELINE = fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'swc-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const baseline = (): BenchReport => JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchReport;

describe('swc compare (CLI)', () => {
  it('exits 0 on identical results', async () => {
    const result = await runCli(['compare', BASELINE, BASELINE]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/stoplight-v6 60 s @ 2\/s/);
  });
});

describe('CI: the full result saved beside a verdict, stable key names', () => {
  const SCENARIO = fileURLToPath(new URL('../../fixtures/scenarios/small.json', import.meta.url));

  it('bench --baseline --json --output prints the verdict and saves the full result; two runs save the same key names', async () => {
    const first = join(dir, 'run-1.json');
    const second = join(dir, 'run-2.json');
    const run = await runCli(['bench', '--scenario', SCENARIO, '--baseline', BASELINE, '--json', '--output', first, '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, comparable: true });
    expect(run.stderr).toContain(`swc: result saved to ${first}`);
    const saved = JSON.parse(readFileSync(first, 'utf8')) as BenchReport;
    expect(saved.schemaVersion).toBe(3);
    expect(saved.results).toHaveLength(baseline().results.length);
    const again = await runCli(['bench', '--scenario', SCENARIO, '--output', second, '--no-progress', '--format', 'csv']);
    expect(again.code, again.stderr).toBe(0);
    const keys = (file: string): string[] => (JSON.parse(readFileSync(file, 'utf8')) as BenchReport).results.flatMap((r) => r.memory.keys.map((k) => k.key));
    expect(keys(first).every((k) => k.startsWith('swc-bench:<run>:stoplight:'))).toBe(true);
    expect(keys(second)).toEqual(keys(first));
    // The committed baseline carries the same names, so a regenerated one diffs only where bytes changed.
    expect(keys(BASELINE)).toEqual(keys(first));
  });
});
