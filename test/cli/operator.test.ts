import { spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { shortId } from '../../src/layouts/stoplight/v6.js';
import { type PrivateServer } from '../../src/redis/server.js';
import { AT, seedOperatorLights } from '../operator-lights.js';
import { runCli, SWC_BIN } from './run-cli.js';
import { ownServer } from '../helpers.js';

// An operator's lights and inspect as processes: Ctrl-C of --watch, and one
// inspect run per command's process path. What they print for the same
// lights is checked in-process in test/integration/commands/operator.test.ts.

let server: PrivateServer;
let redis: Redis;

ownServer(async (s, r) => {
  server = s;
  redis = r;
  await seedOperatorLights(redis);
});

describe('incidents', () => {
  it('--watch redraws until Ctrl-C, then exits 130', async () => {
    const child = spawn(process.execPath, [SWC_BIN, 'lights', '--redis-url', server.url, '--watch', '1', '--top', '1'], {
      env: { ...process.env, REDIS_URL: '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    // Piped, a tick after the first listing is one line (and the rows that changed). Ctrl-C once the second tick is printed, not after a fixed wait.
    const second = new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if ((stdout.match(/^--- \d{4}-.*\(--watch 1 s\)/gm) ?? []).length >= 2) resolve();
      }),
    );
    await Promise.race([second, new Promise((r) => child.on('close', r))]);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(code).toBe(130);
    expect((stdout.match(/^--- \d{4}-.*\(--watch 1 s\)$/gm) ?? []).length).toBe(1);
    expect(stdout).toMatch(/^--- \d{4}-.*\(--watch 1 s\): (no row changed|\d+ row\(s\) changed)$/m);
    expect((stdout.match(/^total: /gm) ?? []).length).toBeGreaterThanOrEqual(1);
  });
});

describe('what inspect prints is right', () => {
  it('the drift line names the stored totals against the bucket sums; no "in window" without --window; stamps to the millisecond', async () => {
    const key = `stoplight:v6:${shortId('payments')}:{${shortId('checkout')}}:window_metrics`;
    await redis.hincrby(key, 'total_failures', 7);
    try {
      const [run, windowed] = await Promise.all([
        runCli(['inspect', 'checkout', '--system', 'payments', '--redis-url', server.url, '--at', String(AT), '--check']),
        runCli(['inspect', 'checkout', '--system', 'payments', '--redis-url', server.url, '--at', String(AT), '--window', '60']),
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('  stored totals 54 / 13 (total_successes / total_failures) but the buckets sum to 54 / 6 (successes 0, failures +7)');
      expect(run.stdout).not.toMatch(/in window *│/);
      expect(run.stdout).toMatch(/last_error_at +\d{10}\.940 {2}\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.940Z\)/);
      expect(run.stdout).not.toMatch(/\.9400000|\.9399999/);
      expect(windowed.stdout).toMatch(/in window *│/);
    } finally {
      await redis.hincrby(key, 'total_failures', -7);
    }
  });
});
