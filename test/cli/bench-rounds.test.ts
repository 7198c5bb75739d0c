import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPrivateServer } from '../helpers.js';
import { runCli, type CliResult } from './run-cli.js';

interface SpreadJson {
  median: number;
  min: number;
  max: number;
  spreadFraction: number;
  noisy: boolean;
}

/** `swc bench --redis-url <a redis-server of its own> …`: runs on one server take turns, so these run at once. */
const bench = (args: readonly string[]): Promise<CliResult> => withPrivateServer({}, (server) => runCli(['bench', '--redis-url', server.url, ...args]));

/**
 * The table case's --wide run, started once by whichever case comes first: its ranges are figures
 * (thousands of ops/s), which other runs at the same time would depress, so every other bench of the
 * file waits for its end (`afterWide`).
 */
let wide: Promise<CliResult> | undefined;
const wideRun = (): Promise<CliResult> => (wide ??= bench(['--rate', '10', '--window', '60', '--no-progress', '--rounds', '2', '--time', '0.2', '--wide']));
const afterWide = (): Promise<unknown> => wideRun().catch(() => undefined);

describe.concurrent('swc bench --rounds and the application view (CLI)', () => {
  it('table: engine capacity with spread (range with --wide), the application view, ratios (range with --wide); --no-app-view drops it', async () => {
    // The --wide run alone first (see wideRun); the other two check only the table's shape.
    const result = await wideRun();
    const [narrow, bare] = await Promise.all([
      bench(['--rate', '10', '--window', '60', '--no-progress', '--rounds', '2', '--time', '0.2']),
      bench(['--rate', '10', '--window', '60', '--no-progress', '--rounds', '1', '--time', '0.2', '--no-app-view']),
    ]);
    expect(narrow.code).toBe(0);
    expect(narrow.stdout).toMatch(/ spread /);
    expect(narrow.stdout).not.toMatch(/min–max/);
    for (const line of narrow.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Engine capacity \(steady state, injected clock, 4 connection\(s\) × pipeline 1 in flight\)/m);
    expect(result.stdout).toMatch(/medians of 2 rounds per phase, layouts alternating/);
    expect(result.stdout).toMatch(/min–max/);
    // A range of ops/s, whatever the machine's speed (a busy one may fall under 1,000 ops/s).
    expect(result.stdout).toMatch(/\d[\d,]*–\d[\d,]*/);
    expect(result.stdout).toMatch(/^Application's view \(one request at a time through ioredis/m);
    expect(narrow.stdout).toMatch(/^Application's view \(one request at a time through ioredis/m);
    expect(result.stdout).toMatch(/\d+\.\d\d× \(\d+\.\d\d×–\d+\.\d\d×\)/);
    expect(bare.code).toBe(0);
    expect(bare.stdout).not.toMatch(/Application's view|min–max/);
  });

  it('JSON: per-round ranges, noisy marks, ratios to the first layout, and the app view (additive fields)', async () => {
    await afterWide();
    const result = await bench(['--rate', '10', '--window', '60', '--json', '--no-progress', '--rounds', '3', '--time', '0.3', '--connections', '2']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      measuringSeconds: number;
      serverScriptSeconds: number | null;
      options: { throughput: { rounds: number; appViewMs: number } };
      results: {
        layout: string;
        throughput: {
          rounds: number;
          write: { opsPerSec: number; noisy: boolean; rounds: { count: number; opsPerSec: SpreadJson } };
          ratio?: { reference: string; request: SpreadJson };
          app: { meanMs: number; p99Ms: number; rmePercent: number; samples: number };
        };
      }[];
    };
    expect(report.options.throughput).toMatchObject({ rounds: 3, appViewMs: 250 });
    // The run's wall time and the server's script time over it, side by side (the fill's overhead is their ratio).
    expect(report.measuringSeconds).toBeGreaterThan(0);
    expect(report.serverScriptSeconds).toBeGreaterThan(0);
    const [first, second] = report.results;
    for (const r of report.results) {
      expect(r.throughput.rounds).toBe(3);
      expect(r.throughput.write.rounds.count).toBe(3);
      expect(r.throughput.write.opsPerSec).toBe(r.throughput.write.rounds.opsPerSec.median);
      expect(typeof r.throughput.write.noisy).toBe('boolean');
      expect(r.throughput.app.samples).toBeGreaterThan(0);
      expect(r.throughput.app.meanMs).toBeGreaterThan(0);
    }
    expect(first!.throughput.ratio).toBeUndefined();
    expect(second!.throughput.ratio!.reference).toBe(first!.layout);
    expect(second!.throughput.ratio!.request.min).toBeLessThanOrEqual(second!.throughput.ratio!.request.max);
  });

  // One refusal spawned, as a user meets it; each refusal (and a scenario's bad throughput.rounds)
  // is checked in-process in test/unit/commands/bench-rounds-refusals.test.ts.
  it('refuses --rounds out of range before Redis (exit 2)', async () => {
    await afterWide();
    const result = await runCli(['bench', '--redis-url', 'redis://127.0.0.1:1', '--rounds', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^swc: .*--rounds: must be 1 to 100, got 0/m);
  });

  it('a scenario sets throughput.rounds', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-rounds-'));
    try {
      const file = path.join(dir, 'rounds.json');
      const scenario = { layouts: ['stoplight-v6'], windows: [60], rates: [10], throughput: { connections: 1, pipeline: 1, seconds: 0.2, rounds: 2 } };
      writeFileSync(file, JSON.stringify(scenario));
      await afterWide();
      const ok = await bench(['--scenario', file, '--json', '--no-progress', '--no-app-view']);
      expect(ok.code).toBe(0);
      const report = JSON.parse(ok.stdout) as { results: { throughput: { rounds: number; write: { rounds: { count: number } } } }[] };
      expect(report.results[0]!.throughput.rounds).toBe(2);
      expect(report.results[0]!.throughput.write.rounds.count).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
