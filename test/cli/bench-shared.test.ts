import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';

/** A server swc did not start for the run: a private one of the test's own stands in for a shared one. */
let server: PrivateServer;
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

beforeAll(async () => {
  server = await startPrivateServer();
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

const where = () => `redis://127.0.0.1:${server.port}/0`;

describe('bench on a server it did not start', () => {
  it('with a URL from REDIS_URL alone: memory only, said in one line that names the server, first on stderr', async () => {
    const run = await runCli([...TINY, '--time', '1'], { REDIS_URL: server.url });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      `swc bench: the server comes from REDIS_URL alone (${where()}): memory only; throughput phases need --redis-url or a load cap --max-ops <n/s>`,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^swc bench: run swc-bench:[0-9a-f]{8}: writing only under .* on ${where().replace(/[/.]/g, '\\$&')}; removed at the end$`),
    );
    const report = JSON.parse(run.stdout) as Report;
    expect(report.results[0]?.throughput).toBeUndefined();
  });

  it('REDIS_URL with --max-ops: throughput runs, capped at n operations per second', async () => {
    const run = await runCli([...TINY, '--time', '2', '--max-ops', '200'], { REDIS_URL: server.url });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(new RegExp(`on ${where().replace(/[/.]/g, '\\$&')}; removed at the end$`));
    const write = (JSON.parse(run.stdout) as Report).results[0]?.throughput?.write;
    expect(write?.ops).toBeGreaterThan(100);
    // The cap holds over the phase (a closed loop on this server does thousands per second).
    expect(write?.opsPerSec).toBeLessThanOrEqual(200 * 1.05);
  });

  it('--redis-url given: throughput as asked, and the first stderr line names the server even with --no-progress', async () => {
    const run = await runCli([...TINY, '--ops', '500', '--redis-url', server.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(
      new RegExp(`^swc bench: run swc-bench:[0-9a-f]{8}: writing only under .* on ${where().replace(/[/.]/g, '\\$&')}`),
    );
    expect((JSON.parse(run.stdout) as Report).results[0]?.throughput?.write.ops).toBe(500);
  });
});
