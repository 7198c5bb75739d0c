import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { stoplight6Tree } from '../integration/layouts/stoplight-tree.js';

interface VerifyJson {
  findings: number;
  results: { layout: string; findings: number; disagreements: { fields: string[]; expected: Record<string, unknown>; actual: Record<string, unknown> }[] }[];
}

describe('swc verify on a 6.0 tree whose scripts take the time as an argument', () => {
  it('a script that stores the time as passed (microseconds and more) is held to milliseconds, the precision its convention defines: zero findings', async () => {
    const tree = stoplight6Tree('argv', { keepArgvTime: true });
    const run = await runCli(['verify', '--scripts', tree, '--layout', 'stoplight-v6', '--calls', '3000', '--seed', '7', '--json', '--no-progress']);
    const json = JSON.parse(run.stdout) as VerifyJson;
    expect(json.results.map((r) => [r.layout, r.findings, r.disagreements])).toEqual([['stoplight-v6', 0, []]]);
    expect(run.code).toBe(0);
  });

  it('a script that stores a wrong time (a second late) is still a disagreement on the stamp', async () => {
    const tree = stoplight6Tree('argv', { keepArgvTime: true });
    // The stamp it stores is the passed time plus one second; the counts stay right.
    const { readFileSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    for (const file of ['record_success.lua', 'record_failure.lua']) {
      const at = join(tree, 'lib/stoplight/infrastructure/redis/storage/window_metrics', file);
      writeFileSync(at, readFileSync(at, 'utf8').replace('local stamp = tonumber(ARGV[1])', 'local stamp = tonumber(ARGV[1]) + 1'));
    }
    const run = await runCli(['verify', '--scripts', tree, '--layout', 'stoplight-v6', '--calls', '1000', '--seed', '7', '--json', '--no-progress']);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as VerifyJson;
    const fields = json.results.flatMap((r) => r.disagreements.flatMap((d) => d.fields));
    expect(fields.some((f) => f === 'lastSuccessAt' || f === 'lastErrorAt')).toBe(true);
  });
});
