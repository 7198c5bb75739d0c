import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

describe('swc bench --dry-run --format csv', () => {
  it('prints CSV (a header, then one row per cell with plain numbers), not a box table', async () => {
    const run = await runInProcess(['bench', '--dry-run', '--format', 'csv', '--rate', '10,1000', '--window', '60']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('layout,windowSeconds,rate,events,accuracyEvents,phases');
    expect(lines).toHaveLength(5);
    expect(run.stdout).not.toMatch(/[│┌─]/);
    for (const line of lines.slice(1)) expect(line).toMatch(/^stoplight-v[56],60,(10|1000),\d+,\d+,fill\+/);
    // 1000 req/s over 60 s: 60,000 events a light, written without a thousands separator.
    expect(lines.find((l) => l.includes(',1000,'))).toMatch(/,1000,\d{5,},/);
  });
});
