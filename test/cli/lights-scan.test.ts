import { spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { commonMatch, cursorFraction } from '../../src/redis/scan.js';
import { connect } from '../../src/redis/connect.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli, SWC_BIN } from './run-cli.js';
import { commandCalls, withPrivateServer } from '../helpers.js';

/** Other keys of the application: lights must walk them once, and only once. */
const OTHER_KEYS = 120_000;
const LIGHTS = 50;

let server: PrivateServer;
let redis: Redis;

beforeAll(async () => {
  // DEBUG POPULATE fills the keyspace in one call; only a private server of the test's own allows it.
  server = await startPrivateServer({ settings: ['enable-debug-command=yes'], allowAnySetting: true });
  redis = await connect(server.url);
  await redis.call('DEBUG', 'POPULATE', String(OTHER_KEYS), 'app:session');
  const v6 = new StoplightV6();
  await installScripts(redis, v6.scripts);
  const now = Number((await redis.time())[0]);
  await execPipeline(
    redis,
    Array.from({ length: LIGHTS }, (_, i) => v6.recordSuccess({ name: `light-${i}`, system: 'payments' }, { at: now - 1, windowSeconds: 60 })),
  );
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('one gentle SCAN pass', () => {
  it(`on ${OTHER_KEYS + 2 * LIGHTS} keys: cmdstat_scan calls ≤ DBSIZE / COUNT + 2, and every light is found`, async () => {
    const dbsize = Number(await redis.dbsize());
    await redis.call('CONFIG', 'RESETSTAT');
    // COUNT fixed at 1000 (the default adapts it to a per-call budget: more, cheaper calls).
    const run = await runCli(['lights', '--redis-url', server.url, '--json', '--scan-pause', '0', '--scan-count', '1000']);
    expect(run.code, run.stderr).toBe(0);
    const calls = await commandCalls(redis, 'scan');
    const doc = JSON.parse(run.stdout) as { matched: number; scan: { calls: number; match: string; dbsize: number } };
    expect(doc.matched).toBe(LIGHTS);
    expect(doc.scan.match).toBe('s[tw]*');
    expect(calls).toBe(doc.scan.calls);
    expect(calls).toBeLessThanOrEqual(Math.floor(dbsize / 1000) + 2);
    // Reported for the record: the figure docs/operator.md quotes.
    console.log(`lights on ${dbsize} keys: ${calls} SCAN calls (bound ${Math.floor(dbsize / 1000) + 2})`);
  });

  it("--layout all reads swc's own designs too, still in one pass", async () => {
    await redis.call('CONFIG', 'RESETSTAT');
    const run = await runCli(['lights', '--redis-url', server.url, '--json', '--scan-pause', '0', '--scan-count', '1000', '--layout', 'all']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { patterns: string[] };
    expect(doc.patterns.length).toBeGreaterThan(2);
    expect(await commandCalls(redis, 'scan')).toBeLessThanOrEqual(Math.floor(Number(await redis.dbsize()) / 1000) + 2);
  });

  it('a long scan shows progress on stderr (keys seen of DBSIZE, time left); --no-progress silences it', async () => {
    // The same long scan twice at once (each mostly waits out its pauses), once with --no-progress.
    const [run, quiet] = await Promise.all([
      runCli(['lights', '--redis-url', server.url, '--scan-pause', '25', '--scan-count', '1000', '--top', '1']),
      runCli(['lights', '--redis-url', server.url, '--scan-pause', '25', '--scan-count', '1000', '--top', '1', '--no-progress']),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^swc: scanning: ~[\d,]+ of 120,100 keys \(\d+ SCAN calls\)(, about \d+ s left)?$/m);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it.each([
    ['SIGINT', 130, 'Ctrl-C (SIGINT)'],
    ['SIGTERM', 143, 'SIGTERM'],
  ] as const)('%s during the scan prints what was found so far, marked partial, names the signal and exits %i', async (signal, exitCode, cause) => {
    const child = spawn(process.execPath, [SWC_BIN, 'lights', '--redis-url', server.url, '--scan-pause', '50', '--no-progress'], {
      env: { ...process.env, REDIS_URL: '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Signalled once the scan is under way (a few SCAN calls in), not after a fixed wait.
    const before = await commandCalls(redis, 'scan');
    while ((await commandCalls(redis, 'scan')) < before + 3 && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(child.exitCode).toBeNull();
    child.kill(signal);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(code).toBe(exitCode);
    expect(stdout).toContain('PARTIAL: stopped before the scan walked every key');
    expect(stderr).toContain(`swc: stopped by ${cause}: the listing above is PARTIAL`);
    expect(stderr).toContain(`swc: ${signal}: cleaning up…`);
    if (signal === 'SIGTERM') expect(stderr).not.toMatch(/Ctrl-C/);
  });

  it('--scan-count is range-checked: exit 2, naming the flag and the range', async () => {
    const bads = ['0', '100001', '1.5', 'many'];
    const runs = await Promise.all(bads.map((bad) => runCli(['lights', '--redis-url', server.url, '--scan-count', bad])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, bads[i]).toBe(2);
      expect(run.stderr, bads[i]).toMatch(/^swc: --scan-count: .*\b1 to 100000, got "?/);
    }
  });

  it('the MATCH shared by the patterns, and the cursor read as progress', () => {
    expect(commonMatch(['stoplight:v5:*', 'stoplight:v6:*', 'swc-bench:*'])).toBe('s[tw]*');
    expect(commonMatch(['stoplight:v6:*'])).toBe('stoplight:v6:*');
    expect(commonMatch(['stoplight:v6:*', 'rl:{*}:x'])).toBe('[sr]*');
    expect(commonMatch(['stoplight:v6:*', '*:x'])).toBeNull();
    expect(commonMatch(['a*b:*', 'a*c:*'])).toBe('a*');
    expect(cursorFraction('0', 1000)).toBe(1);
    // Cursor 1 of a 1024-slot table: its reversed bits put it half way.
    expect(cursorFraction('1', 1000)).toBe(0.5);
  });
});

describe('a server that does not answer', () => {
  it('lights under CLIENT PAUSE gives up within its bound (5 s per command), exit 3', async () => {
    // On a server of its own, stopped after the test: nothing waits for the pause to end (CLIENT UNPAUSE waits behind a PAUSE ALL).
    await withPrivateServer({}, async (own, pauser) => {
      await pauser.call('CLIENT', 'PAUSE', '9000', 'ALL');
      const run = await runCli(['lights', '--redis-url', own.url]);
      expect(run.code).toBe(3);
      expect(run.ms).toBeLessThan(8500);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    });
  }, 30_000);
});
