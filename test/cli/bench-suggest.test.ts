import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Suggestion } from '../../src/bench/suggest.js';
import { layoutNames } from '../../src/layouts/index.js';
import type { BenchReport } from '../../src/measure/types.js';
import { SCHEMA_VERSION } from '../../src/core/schema-version.js';
import { schemaErrors } from '../schema-check.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'swc-suggest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// At once: each case's server is swc's own.
describe.concurrent('swc bench --suggest (CLI)', () => {
  it('on a private server: every layout ranked, the smallest exact one picked, the paragraph and ranking in the JSON', async () => {
    // No --redis-url and no REDIS_URL: swc starts (and stops) a private redis-server.
    const run = await runCli(['bench', '--suggest', '--window', '60', '--rate', '10', '--no-throughput', '--json', '--no-progress']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport & { suggestion: Suggestion; suggestions: Suggestion[] };
    // It validates against bench's shipped schema (test/cli/json-schemas.test.ts counts on this run for --suggest).
    expect(report.schemaVersion).toBe(SCHEMA_VERSION);
    expect(schemaErrors('bench', report)).toEqual([]);
    expect(report.redis.private).toBe(true);
    expect(report.suggestions).toHaveLength(1);
    const s = report.suggestion;
    expect(s.ranking.map((r) => r.layout).sort()).toEqual([...layoutNames].sort());
    expect(s.ranking.every((r) => r.status === 'measured' && r.serverUsecSource === 'probe' && (r.serverUsecPerRequest ?? 0) > 0)).toBe(true);
    // At 60 s and 10/s packed (1.5 KB) is the smallest exact layout; two-window is smaller, but less than 4× and with flips.
    expect(s.pick).toBe('packed');
    expect(s.ranking.find((r) => r.layout === 'two-window')).toMatchObject({ exact: false });
    for (const name of ['stoplight-v5', 'stoplight-v6', 'sliding-log', 'ring', 'packed']) {
      expect(
        s.ranking.find((r) => r.layout === name),
        name,
      ).toMatchObject({ exact: true, maxAbsError: 0, decisionFlipFraction: 0 });
    }
    expect(s.paragraph).toMatch(/^For a 1 min window at 10 req\/s, pick packed: 1\.5 KB per light \(26 B per second of window\), exact /);
    expect(s.paragraph).toContain(`Runner-up: ${s.runnerUp}`);
    expect(s.paragraph).toMatch(/two-window is smaller still \([0-9]+ B, [0-9.]+× less\) but/);
  });

  it('a layout whose script fails is named as failed and the others are still ranked (table)', async () => {
    // An edited copy of lua/ whose ring read raises an error.
    const scripts = join(dir, 'lua');
    cpSync(fileURLToPath(new URL('../../lua', import.meta.url)), scripts, { recursive: true });
    const read = join(scripts, 'ring', 'get_metrics.lua');
    writeFileSync(read, `error('broken on purpose')\n${readFileSync(read, 'utf8')}`);
    // On a private server of its own: the edited scripts run there as they are (on the worker's server, given by URL,
    // they needed --trust-scripts, whose rehearsal and per-call checks took most of this case's time).
    const run = await runCli([
      'bench',
      '--suggest',
      '--layout',
      'ring,packed',
      '--scripts',
      scripts,
      '--window',
      '30',
      '--rate',
      '5',
      '--no-throughput',
      '--no-progress',
    ]);
    expect(run.code).toBe(0);
    // The answer first (the pick within the first 15 lines), then the ranking and the tables behind it.
    expect(run.stdout.split('\n')[0]).toBe('Suggested for a 30 s window at 5 req/s: packed');
    expect(run.stdout.indexOf('Which layout? 30 s window at 5 req/s')).toBeLessThan(run.stdout.indexOf('Memory per light'));
    expect(run.stdout).toMatch(/│ +1 │ packed +│/);
    expect(run.stdout).toMatch(/│ +– │ ring +│ +– │[^\n]*failed: /);
    // The paragraph is wrapped at 120 columns, like every line of the terminal output.
    expect(run.stdout.replace(/\n/g, ' ')).toMatch(/pick packed: .*Not ranked: ring \(failed: .*broken on purpose/);
    for (const line of run.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
  });

  // One refusal spawned, as a user meets it; each of them (csv and --baseline too) is checked
  // in-process in test/unit/commands/bench-suggest-refusals.test.ts.
  it('refuses --no-accuracy with one line and exit 2, before connecting', async () => {
    const run = await runCli(['bench', '--suggest', '--redis-url', 'redis://127.0.0.1:1', '--no-accuracy']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^swc: --suggest\/--no-accuracy: /);
  });
});
