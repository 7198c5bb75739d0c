import { Redis } from 'ioredis';
import { describe, expect, it, type TestContext } from 'vitest';
import { parseCommandCalls } from '../../src/measure/commandstats.js';
import { parseInfo } from '../../src/redis/info.js';
import type { PrivateServer } from '../../src/redis/server.js';
import { testServer } from '../helpers.js';
import { runCli, TWO_LIGHTS_10S, type CliResult } from './run-cli.js';

/**
 * A server swc did not start for the run: a private one of the test's own stands in for a shared one.
 * One per test (runs on one server take turns), so the tests run at once.
 */
const serverFor = async (onTestFinished: TestContext['onTestFinished']): Promise<PrivateServer> => (await testServer({ onTestFinished })).server;
const TINY = ['bench', ...TWO_LIGHTS_10S, '--no-accuracy', '--layout', 'stoplight-v6', '--no-progress', '--no-app-view', '--rounds', '1', '--json'];

interface Report {
  results: { throughput?: { write: { opsPerSec: number; ops: number } } }[];
}

const where = (server: PrivateServer): string => `redis://127.0.0.1:${server.port}/0`;

/**
 * Every command the server ran, as INFO commandstats sums them (a script's own commands included), and the server's
 * clock at that moment: both from one INFO, so a span's length is the server's, whatever delays its reply.
 */
async function commandsRun(redis: Redis): Promise<{ commands: number; at: number }> {
  const info = String(await redis.call('INFO', 'server', 'commandstats'));
  let commands = 0;
  for (const calls of parseCommandCalls(info).values()) commands += calls;
  return { commands, at: Number(parseInfo(info).server_time_usec) / 1000 };
}

/**
 * Runs `run` while another connection reads the server's command counters
 * every 0.5 s (spans measured by the server's own clock, not this process's); returns the run's result and, per span, the commands the
 * server ran over its length in seconds (the sampler's own INFO taken out).
 */
async function sampled(server: PrivateServer, run: () => Promise<CliResult>): Promise<{ run: CliResult; spans: { commands: number; seconds: number }[] }> {
  const sampler = new Redis(server.url, { enableReadyCheck: false, lazyConnect: true });
  await sampler.connect();
  const spans: { commands: number; seconds: number }[] = [];
  let last = await commandsRun(sampler);
  let running = true;
  const sampling = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = await commandsRun(sampler);
      // One INFO of the sampler's own lands in each span.
      spans.push({ commands: now.commands - last.commands - 1, seconds: (now.at - last.at) / 1000 });
      last = now;
    }
  })();
  try {
    const result = await run();
    return { run: result, spans };
  } finally {
    running = false;
    await sampling;
    sampler.disconnect();
  }
}

/** Checks that no span saw more than 1.2 × the cap over its length (at least 0.5 s), and that the run did send commands. */
function expectUnderCap(spans: readonly { commands: number; seconds: number }[], cap: number): void {
  const over = spans.filter((s) => s.commands > 1.2 * cap * Math.max(0.5, s.seconds));
  expect(over, JSON.stringify(spans)).toEqual([]);
  expect(spans.reduce((sum, s) => sum + s.commands, 0)).toBeGreaterThan(cap);
}

describe.concurrent('bench on a server it did not start', () => {
  it('REDIS_URL exported, no opt-in: `swc bench --rate 100 --window 300` sends no write there (INFO commandstats), runs on a private server, says so', async ({
    onTestFinished,
  }) => {
    const { server, redis } = await testServer({ onTestFinished });
    const before = parseCommandCalls(await redis.info('commandstats'));
    // One short throughput round: what is checked is where the run went, not how long its phases ran.
    const run = await runCli(['bench', '--rate', '100', '--window', '300', '--rounds', '1', '--ops', '300', '--no-progress', '--json'], {
      REDIS_URL: server.url,
    });
    expect(run.code, run.stderr).toBe(0);
    const after = parseCommandCalls(await redis.info('commandstats'));
    // Only this test's own INFO calls reached the server: nothing from the run, not even a connection's first command.
    const sent = [...after].filter(([name, calls]) => calls !== (before.get(name) ?? 0)).map(([name]) => name);
    expect(sent).toEqual(['info']);
    expect(run.stderr.split('\n')[0]).toBe(
      `swc bench: REDIS_URL (${server.url}) not used: bench writes, so it runs on a private redis-server; to run there, give --redis-url or set SWC_USE_REDIS_URL=1`,
    );
    const report = JSON.parse(run.stdout) as Report & { redis: { private: boolean; where: string } };
    expect(report.redis.private).toBe(true);
    expect(report.redis.where).toMatch(/^a private redis-server/);
  });

  it('with a URL from REDIS_URL alone (SWC_USE_REDIS_URL=1): memory only, said in one line that names the server, first on stderr', async ({
    onTestFinished,
  }) => {
    const server = await serverFor(onTestFinished);
    const run = await runCli([...TINY, '--time', '1'], { REDIS_URL: server.url, SWC_USE_REDIS_URL: '1' });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      `swc bench: the server comes from REDIS_URL alone (${where(server)}): memory only; throughput phases need --redis-url or a load cap --max-ops <n/s>`,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^swc bench: run swc-bench:[0-9a-f]{8}: writing only under .* on ${where(server).replace(/[/.]/g, '\\$&')}; removed at the end$`),
    );
    const report = JSON.parse(run.stdout) as Report & { redis: { where: string; notMeasured: string[] } };
    expect(report.results[0]?.throughput).toBeUndefined();
    expect(report.redis.where).toBe(where(server));
    expect(report.redis.notMeasured.join('; ')).toMatch(/^throughput \(.*--max-ops.*\); commands per call/);
  });

  it("REDIS_URL with --max-ops 300, throughput on: no 0.5 s span of the server's command counters over 1.2 × the cap, every phase", async ({
    onTestFinished,
  }) => {
    const server = await serverFor(onTestFinished);
    // The cap counts a script's own commands (a 6.0 write runs 10-16), not its EVALSHA alone: 2,240 commands per 0.5 s used to reach the server.
    const { run, spans } = await sampled(server, () => runCli([...TINY, '--time', '1', '--max-ops', '300'], { REDIS_URL: server.url, SWC_USE_REDIS_URL: '1' }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(new RegExp(`on ${where(server).replace(/[/.]/g, '\\$&')}; removed at the end$`));
    const write = (JSON.parse(run.stdout) as Report).results[0]?.throughput?.write;
    expect(write?.ops).toBeGreaterThan(5);
    expectUnderCap(spans, 300);
  });

  it('--max-ops caps the fill and the accuracy phase too, by commands, with the same bytes and the same accuracy reads', async ({ onTestFinished }) => {
    // The capped run's server, and the free run's own: the free run goes at the same time, off the sampled server.
    const [server, freeServer] = await Promise.all([serverFor(onTestFinished), serverFor(onTestFinished)]);
    // 2 lights of 10 s at 1/s: 20 fill events; the accuracy phase writes 12 and reads 24 more, then probes the server's cost.
    const args = ['bench', '--window', '10', '--rate', '1', '--lights', '2', '--layout', 'stoplight-v6', '--no-throughput', '--no-progress', '--json'];
    interface Capped {
      results: { memory: { bytesPerLight: number }; accuracy: { events: number; reads: number } }[];
    }
    // Each capped batch is one call and one round trip: on a loaded machine that is slow, not wrong.
    const [free, { run: capped, spans }] = await Promise.all([
      runCli([...args, '--redis-url', freeServer.url]),
      sampled(server, () => runCli([...args, '--redis-url', server.url, '--max-ops', '300'])),
    ]);
    expect(free.code, free.stderr).toBe(0);
    expect(capped.code, capped.stderr).toBe(0);
    const [a, b] = [free, capped].map((r) => (JSON.parse(r.stdout) as Capped).results[0]);
    expect(b?.memory.bytesPerLight).toBe(a?.memory.bytesPerLight);
    expect(b?.accuracy.reads).toBe(a?.accuracy.reads);
    expect(b?.accuracy.events).toBe(a?.accuracy.events);
    expectUnderCap(spans, 300);
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
