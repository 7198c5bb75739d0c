import { describe, expect, it } from 'vitest';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';

/**
 * A server swc did not start for the run: a private one of the test's own stands in for a shared one.
 * One per test (runs on one server take turns), so the tests run at once.
 */
async function serverFor(onTestFinished: (fn: () => Promise<void>) => void): Promise<PrivateServer> {
  const server = await startPrivateServer();
  onTestFinished(() => server.stop());
  return server;
}
const TINY = [
  'bench',
  '--window',
  '10',
  '--rate',
  '1',
  '--lights',
  '2',
  '--no-accuracy',
  '--layout',
  'stoplight-v6',
  '--no-progress',
  '--no-app-view',
  '--rounds',
  '1',
  '--json',
];

interface Report {
  results: { throughput?: { write: { opsPerSec: number; ops: number } } }[];
}

const where = (server: PrivateServer): string => `redis://127.0.0.1:${server.port}/0`;

describe.concurrent('bench on a server it did not start', () => {
  it('with a URL from REDIS_URL alone: memory only, said in one line that names the server, first on stderr', async ({ onTestFinished }) => {
    const server = await serverFor(onTestFinished);
    const run = await runCli([...TINY, '--time', '1'], { REDIS_URL: server.url });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      `swc bench: the server comes from REDIS_URL alone (${where(server)}): memory only; throughput phases need --redis-url or a load cap --max-ops <n/s>`,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^swc bench: run swc-bench:[0-9a-f]{8}: writing only under .* on ${where(server).replace(/[/.]/g, '\\$&')}; removed at the end$`),
    );
    const report = JSON.parse(run.stdout) as Report;
    expect(report.results[0]?.throughput).toBeUndefined();
  });

  it('REDIS_URL with --max-ops: throughput runs, capped at n operations per second', async ({ onTestFinished }) => {
    const server = await serverFor(onTestFinished);
    // The cap paces the warm-up too (3,000 calls): 400/s keeps it under 8 s.
    const run = await runCli([...TINY, '--time', '1', '--max-ops', '400'], { REDIS_URL: server.url });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(new RegExp(`on ${where(server).replace(/[/.]/g, '\\$&')}; removed at the end$`));
    const write = (JSON.parse(run.stdout) as Report).results[0]?.throughput?.write;
    expect(write?.ops).toBeGreaterThan(100);
    // The cap holds over the phase (a closed loop on this server does thousands per second).
    expect(write?.opsPerSec).toBeLessThanOrEqual(400 * 1.05);
  });

  it('--max-ops caps the fill and the accuracy phase too (not only throughput), with the same bytes and the same accuracy reads', async ({
    onTestFinished,
  }) => {
    const server = await serverFor(onTestFinished);
    // 2 lights of 30 s at 20/s: 1,200 fill events; the accuracy phase writes 750 and reads 240 more.
    const args = [
      'bench',
      '--window',
      '30',
      '--rate',
      '20',
      '--lights',
      '2',
      '--layout',
      'stoplight-v6',
      '--no-throughput',
      '--no-progress',
      '--json',
      '--redis-url',
      server.url,
    ];
    interface Capped {
      results: { memory: { bytesPerLight: number }; accuracy: { events: number; reads: number; durationSeconds: number } }[];
    }
    const free = await runCli(args);
    const capped = await runCli([...args, '--max-ops', '400']);
    expect(free.code, free.stderr).toBe(0);
    expect(capped.code, capped.stderr).toBe(0);
    const [a, b] = [free, capped].map((r) => (JSON.parse(r.stdout) as Capped).results[0]);
    expect(b?.memory.bytesPerLight).toBe(a?.memory.bytesPerLight);
    expect(b?.accuracy.reads).toBe(a?.accuracy.reads);
    const calls = (b?.accuracy.events ?? 0) + (b?.accuracy.reads ?? 0);
    expect(calls).toBeGreaterThan(900);
    // At most 400 calls a second in the accuracy phase (uncapped, it takes a few hundredths of a second here).
    expect(calls / (b?.accuracy.durationSeconds ?? 1)).toBeLessThanOrEqual(400 * 1.05);
    // The fill alone is 1,200 calls: at 400/s no capped run ends in under 2.8 s (a slower machine only adds time).
    expect(capped.ms).toBeGreaterThan(2_800);
  });

  it('--redis-url given: throughput as asked, and the first stderr line names the server even with --no-progress', async ({ onTestFinished }) => {
    const server = await serverFor(onTestFinished);
    const run = await runCli([...TINY, '--ops', '500', '--redis-url', server.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(
      new RegExp(`^swc bench: run swc-bench:[0-9a-f]{8}: writing only under .* on ${where(server).replace(/[/.]/g, '\\$&')}`),
    );
    expect((JSON.parse(run.stdout) as Report).results[0]?.throughput?.write.ops).toBe(500);
  });
});
