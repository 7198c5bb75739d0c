import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS } from '../../src/redis/connect.js';
import { commandCalls, withPrivateServer } from '../helpers.js';
import { scanFixture } from './lights-scan-shared.js';
import { runCli, SWC_BIN } from './run-cli.js';

const fixture = scanFixture();

// The SCAN pass, its progress and --scan-count run in-process
// (test/integration/commands/lights-scan.test.ts); a signal mid-scan and a
// server that does not answer need the built CLI as a process.
describe('one gentle SCAN pass', () => {
  it.each([
    ['SIGINT', 130, 'Ctrl-C (SIGINT)'],
    ['SIGTERM', 143, 'SIGTERM'],
  ] as const)('%s during the scan prints what was found so far, marked partial, names the signal and exits %i', async (signal, exitCode, cause) => {
    const { server, redis } = fixture;
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
});

describe('a server that does not answer', () => {
  it('lights under CLIENT PAUSE gives up after its configured wait, exit 3', async () => {
    // On a server of its own, stopped after the test: nothing waits for the pause to end (CLIENT UNPAUSE waits behind a PAUSE ALL).
    await withPrivateServer({}, async (own, pauser) => {
      await pauser.call('CLIENT', 'PAUSE', '9000', 'ALL');
      const run = await runCli(['lights', '--redis-url', own.url]);
      expect(run.code).toBe(3);
      // The handshake's PING waits behind the pause: swc gives up on its own timer, which the line names (how long
      // that takes on this machine is `npm run bench:bounds`'s).
      expect(run.stderr).toMatch(new RegExp(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`));
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
