import { describe, expect, it } from 'vitest';
import { redisUrl } from '../helpers.js';
import { runCli, words } from './run-cli.js';

describe('swc bench --percentiles', () => {
  it('reports the percentiles asked for, in order, in the JSON and as the table columns', async () => {
    const args = [
      'bench',
      '--redis-url',
      redisUrl(),
      ...words('--layout stoplight-v6 --window 60 --rate 10 --no-accuracy --rounds 1 --ops 400 --percentiles 50,90,99,99.9'),
    ];
    const json = await runCli([...args, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      results: { throughput: Record<'write' | 'read' | 'request', { p50Ms: number; percentilesMs: Record<string, number> }> }[];
    };
    for (const op of ['write', 'read', 'request'] as const) {
      const stats = report.results[0]!.throughput[op];
      expect(Object.keys(stats.percentilesMs)).toEqual(['50', '90', '99', '99.9']);
      const values = Object.values(stats.percentilesMs);
      values.forEach((v, i) => expect(v).toBeGreaterThanOrEqual(values[i - 1] ?? 0));
      // The same histogram as the fixed p50.
      expect(stats.percentilesMs['50']).toBe(stats.p50Ms);
    }
    const table = await runCli(args);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ p50 ms │ p90 ms │ p99 ms │ p99\.9 ms │/);
  });

  it('refuses a percentile outside (0, 100) and --percentiles with --no-throughput (exit 2, before Redis)', async () => {
    const bad = await runCli(['bench', '--percentiles', '50,100']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('swc: --percentiles: each must be a number above 0 and below 100 (e.g. 50,90,99,99.9), got "50,100"');
    const off = await runCli(['bench', '--no-throughput', '--percentiles', '90']);
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/--no-throughput\/--percentiles/);
  });
});
