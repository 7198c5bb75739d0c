import { describe, expect, it, type TestContext } from 'vitest';
import { testServer } from '../helpers.js';
import { runCli, words } from './run-cli.js';

/** The URL of a redis-server of the test's own (runs on one server take turns, so the cases run at once). */
const ownServer = async (context: TestContext): Promise<string> => (await testServer(context)).server.url;

describe.concurrent('swc bench (CLI)', () => {
  it('prints the JSON contract on stdout and progress on stderr', async (context) => {
    const url = await ownServer(context);
    const result = await runCli(['bench', '--redis-url', url, ...words('--rate 5,50 --window 1m --json --ops 200 --connections 2 --pipeline 4')]);
    expect(result.stderr).not.toMatch(/Error|at .*\.js/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      schemaVersion: number;
      swcVersion: string;
      redis: { version: string; memAllocator: string; config: Record<string, number> };
      options: { rates: number[] };
      results: {
        layout: string;
        windowSeconds: number;
        rate: number;
        eventsInWindow: number;
        throughput: Record<string, unknown> & Record<'write' | 'read' | 'request', Record<string, number | null>>;
        memory: { bytesPerLight: number; usedMemoryDeltaPerLight: number; keys: { type: string; encoding: string; elements: number; bytes: number }[] };
      }[];
    };
    expect(report.schemaVersion).toBe(3);
    expect(report.redis.config['hash-max-listpack-entries']).toBeGreaterThan(0);
    expect(report.results).toHaveLength(4);
    expect(report.results[0]).toMatchObject({ layout: 'stoplight-v5', windowSeconds: 60, rate: 5, eventsInWindow: 300 });
    expect(report.results[0]!.memory.keys[0]).toEqual({
      role: expect.any(String),
      key: expect.any(String),
      type: 'hash',
      encoding: expect.any(String),
      elements: expect.any(Number),
      bytes: expect.any(Number),
      // A hashtable (its error JSON is past hash-max-listpack-value): with the parts that decide it.
      longest: { name: { text: expect.any(String), bytes: expect.any(Number) }, value: { field: 'last_error_json', bytes: expect.any(Number) } },
      // Every hash: its longest values, longest first (what swc compare names when a field grows).
      largest: expect.arrayContaining([{ field: 'last_error_json', bytes: expect.any(Number) }]),
    });
    expect(result.stderr).toMatch(/writing only under swc-bench:[0-9a-f]{8}:\*/);
    for (const r of report.results) {
      expect(r.throughput).toMatchObject({ connections: 2, pipeline: 4 });
      for (const op of ['write', 'read', 'request'] as const) {
        const stats = r.throughput[op];
        expect(stats.ops).toBe(200);
        expect(stats.opsPerSec).toBeGreaterThan(0);
        expect(stats.p50Ms!).toBeLessThanOrEqual(stats.p99Ms!);
        expect(stats.p99Ms!).toBeLessThanOrEqual(stats.p999Ms!);
        expect(stats.serverUsecPerCall).toBeGreaterThan(0);
      }
    }
  });

  it('names the run, host, port and database on stderr even with --no-progress, and nothing else', async (context) => {
    const url = await ownServer(context);
    const port = new URL(url).port;
    const result = await runCli(['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--json', '--no-progress', '--no-throughput']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(`^swc bench: run (swc-bench:[0-9a-f]{8}): writing only under \\1:\\* on redis://127\\.0\\.0\\.1:${port}/0; removed at the end$`, 'm'),
    );
    expect(result.stderr).not.toMatch(/KB per light|throughput phase/);
  });

  it('markdown: a pipe table with one row per cell; csv: a header, then layout,windowSeconds,rate per cell', async (context) => {
    const url = await ownServer(context);
    // Started together: on one server the second waits for the first's end, but their start-ups overlap. The wait is
    // raised from 10 s: on a loaded machine the first run alone has taken longer, and the second gave up (exit 3).
    const both = ['bench', '--redis-url', url, '--rate', '10', '--window', '60', '--no-progress', '--no-throughput', '--wait-for-runs', '60'];
    const [md, csv] = await Promise.all([runCli([...both, '--format', 'markdown']), runCli([...both, '--format', 'csv'])]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^\*\*Memory per light/);
    expect(md.stdout).toMatch(/\| 1 min \| 10 \| 600 \|/);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^layout,windowSeconds,rate,/);
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['stoplight-v5,60,10', 'stoplight-v6,60,10']);
  });

  it('compares with the published figures under --preset blog, limited to one cell by flags', async (context) => {
    const url = await ownServer(context);
    const result = await runCli(['bench', '--redis-url', url, '--preset', 'blog', '--rate', '10', '--window', '1m', '--json', '--no-throughput']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      results: { layout: string; published?: { kb: number; diff: number }; memory: { lights: number; keys: { encoding: string; copies?: number }[] } }[];
    };
    expect(report.results.map((r) => [r.layout, r.published?.kb])).toEqual([
      ['stoplight-v5', 74.9],
      ['stoplight-v6', 11.6],
    ]);
    // A preset fills one light: 5.x's two event skiplists are averaged over copies of them instead of over more lights.
    expect(report.results.map((r) => r.memory.lights)).toEqual([1, 1]);
    const v5 = report.results[0]?.memory.keys.filter((k) => k.encoding === 'skiplist') ?? [];
    expect(v5).toHaveLength(2);
    for (const k of v5) expect(k.copies).toBeGreaterThan(1);
  });

  it('--layout all runs every registered layout once, coarse-<N>s a coarse variant; a bad N exits 2 with one line before connecting', async (context) => {
    const url = await ownServer(context);
    const csv = await runCli(['bench', '--redis-url', url, ...words('--rate 2 --window 10 --format csv --no-progress --no-throughput --layout coarse-5s,all')]);
    expect(csv.code).toBe(0);
    const layouts = csv.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(layouts.slice(0, 8)).toEqual(['coarse-5s', 'stoplight-v5', 'stoplight-v6', 'sliding-log', 'ring', 'packed', 'coarse', 'two-window']);
    expect(new Set(layouts).size).toBe(layouts.length);
    const bad = await runCli(['bench', '--redis-url', 'redis://127.0.0.1:1', '--layout', 'coarse-0s']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('swc: --layout: coarse-<N>s takes N from 1 to 3600 (the bucket width in seconds), got 0');
  });
});
