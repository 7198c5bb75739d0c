import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/measure/types.js';
import { redisUrl } from '../helpers.js';
import { runCli } from './run-cli.js';

describe('bench: accuracy flags', () => {
  it('CLI: on without a flag, --no-accuracy skips it, --threshold is checked (0..1) and clashes with --no-accuracy, one line and exit 2 before connecting', async () => {
    const base = ['bench', '--redis-url', redisUrl(), '--layout', 'coarse', '--window', '20', '--rate', '2', '--no-throughput', '--json', '--no-progress'];
    const run = await runCli(base);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.results[0]?.accuracy).toMatchObject({ threshold: 0.5, reads: 240 });
    expect(report.options.accuracy).toEqual({ threshold: 0.5 });
    const skipped = await runCli([...base, '--no-accuracy']);
    expect(skipped.code).toBe(0);
    const without = JSON.parse(skipped.stdout) as BenchReport;
    expect(without.results[0]?.accuracy).toBeUndefined();
    expect(without.results[0]?.serverCost).toBeUndefined();
    expect(without.options.accuracy).toBe(false);
    const asked = await runCli([...base, '--threshold', '0.3', '--accuracy']);
    expect((JSON.parse(asked.stdout) as BenchReport).results[0]?.accuracy).toMatchObject({ threshold: 0.3 });
    for (const args of [
      ['--threshold', '2'],
      ['--no-accuracy', '--threshold', '0.3'],
    ]) {
      const bad = await runCli(['bench', '--redis-url', 'redis://127.0.0.1:1', ...args]);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/^swc: (--threshold: |--no-accuracy\/--threshold: )/);
    }
  });
});
