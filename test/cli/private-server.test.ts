import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, SWC_BIN, startCli } from './run-cli.js';
import { alive, recordedServers } from '../helpers.js';

// Stand-ins for redis-server that record their PID (the real server's, after
// exec) and their arguments (which name the temp folder) before exec'ing it:
// one pair per test, so the tests run at once and each counts only its own.
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-wrap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  pid: number;
  /** The temp folder swc gave it (`--dir`). */
  folder: string;
}

interface Recorder {
  /** SWC_REDIS_SERVER for a wrapper that records, then exec's redis-server. */
  readonly env: NodeJS.ProcessEnv;
  /** The same, slow to start: a signal sent while it sleeps lands between spawn and ready. */
  readonly slowEnv: NodeJS.ProcessEnv;
  started(): Started[];
}

let recorders = 0;
function recorder(): Recorder {
  const own = path.join(dir, String((recorders += 1)));
  mkdirSync(own);
  const pidFile = path.join(own, 'pids');
  const wrapper = path.join(own, 'redis-server');
  writeFileSync(wrapper, `#!/bin/sh\necho "$$ $*" >> '${pidFile}'\nexec redis-server "$@"\n`);
  chmodSync(wrapper, 0o755);
  const slowWrapper = path.join(own, 'slow-redis-server');
  writeFileSync(slowWrapper, `#!/bin/sh\necho "$$ $*" >> '${pidFile}'\nsleep 1\nexec redis-server "$@"\n`);
  chmodSync(slowWrapper, 0o755);
  return {
    env: { SWC_REDIS_SERVER: wrapper },
    slowEnv: { SWC_REDIS_SERVER: slowWrapper },
    started: () => recordedServers(pidFile).map(({ pid, args }) => ({ pid, folder: args[args.indexOf('--dir') + 1] ?? '' })),
  };
}

/** Every server the recorder saw started is gone, and so is its temp folder. */
function expectNothingLeft(rec: Recorder, count = 1): void {
  const servers = rec.started();
  expect(servers).toHaveLength(count);
  for (const server of servers) {
    expect(server.folder).toMatch(/swc-redis-/);
    expect(alive(server.pid), `redis-server ${server.pid}`).toBe(false);
    expect(existsSync(server.folder), server.folder).toBe(false);
  }
}

/** Starts `swc …` in the background; resolves once stderr matches `ready` (or at once without it). */
function spawnCli(args: string[], extraEnv: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [SWC_BIN, ...args], {
    env: { ...process.env, ...extraEnv, REDIS_URL: '', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const waitFor = (pattern: RegExp): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (pattern.test(stderr)) resolve();
        else setTimeout(check, 10);
      };
      check();
    });
  return { child, closed, waitFor, stderr: () => stderr };
}

/** Polls until `predicate` holds (a line in the PID file, say); generous, as the machine is shared. */
async function until(predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

// Every test has its own recording wrapper (and servers): the tests run at once.
describe.concurrent('the private redis-server is gone when the command ends', () => {
  it('after a normal run', async () => {
    const rec = recorder();
    const result = await runCli(['doctor'], rec.env);
    expect(result.code).toBe(0);
    expectNothingLeft(rec);
  });

  it('after a failed check (scripts cannot load)', async () => {
    const rec = recorder();
    const result = await runCli(['doctor', '--redis-server-arg', 'rename-command=SCRIPT hidden-script-command'], rec.env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/FAIL/);
    expectNothingLeft(rec);
  });

  it('after a runtime error (out of memory mid-bench)', async () => {
    const rec = recorder();
    const result = await runCli(['bench', '--rate', '100', '--window', '10m', '--no-throughput', '--redis-server-arg', 'maxmemory=3mb'], rec.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/out of memory/);
    expectNothingLeft(rec, 2);
  });

  it('after Ctrl-C in the middle of a bench', async () => {
    const rec = recorder();
    const run = spawnCli(['bench', '--preset', 'blog', '--no-throughput'], rec.env);
    await run.waitFor(/\[1\/16\]/);
    run.child.kill('SIGINT');
    expect(await run.closed).toBe(130);
    expectNothingLeft(rec, 2);
  });

  it('after two Ctrl-C in a row (the second does not wait for the orderly stop)', async () => {
    const rec = recorder();
    const run = spawnCli(['bench', '--preset', 'blog', '--no-throughput'], rec.env);
    await run.waitFor(/\[1\/16\]/);
    run.child.kill('SIGINT');
    run.child.kill('SIGINT');
    expect(await run.closed).toBe(130);
    expectNothingLeft(rec, 2);
  });

  it('after SIGTERM in the middle of a bench: exit 143', async () => {
    const rec = recorder();
    const run = spawnCli(['bench', '--preset', 'blog', '--no-throughput'], rec.env);
    await run.waitFor(/\[1\/16\]/);
    run.child.kill('SIGTERM');
    expect(await run.closed).toBe(143);
    expectNothingLeft(rec, 2);
  });

  it("after the accuracy lane's server dies mid-bench: exit 3 naming the accuracy lane's server, and the run's own server gone too", async () => {
    const rec = recorder();
    const run = spawnCli(['bench', '--preset', 'blog', '--no-throughput'], rec.env);
    await run.waitFor(/\[2\/16\]/);
    const lane = rec.started()[1];
    expect(lane, 'the second server started: the accuracy lane').toBeDefined();
    process.kill(lane?.pid ?? -1, 'SIGKILL');
    expect(await run.closed).toBe(3);
    const lines = run.stderr().trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      /^swc: swc's second private server \(127\.0\.0\.1:\d+, where the accuracy phases run\) stopped \(killed by SIGKILL\) during the run/,
    );
    // The phase's own failure, not the failed delete of its light that followed it.
    expect(lines.at(-1)).not.toMatch(/key\(s\) left/);
    expect(run.stderr()).not.toMatch(/\n\s+at /);
    expectNothingLeft(rec, 2);
  });

  it("when the accuracy lane's server evicts (maxmemory and allkeys-lru copied to it, room for the cell but not its accuracy light): exit 3 naming the phase and the eviction, no figure", async () => {
    const rec = recorder();
    // 5.x at 10 min and 100/s: about 7 MB for the cell's light on the run's server, about 9 MB for the accuracy light on the lane's.
    const args = ['bench', '--layout', 'stoplight-v5', '--window', '10m', '--rate', '100', '--no-throughput', '--no-progress', '--json'];
    const result = await runCli([...args, '--redis-server-arg', 'maxmemory=10mb', '--redis-server-arg', 'maxmemory-policy=allkeys-lru'], rec.env);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toMatch(
      /^swc: cell 1\/1 \(stoplight-v5, window 600 s at 100\/s\)'s accuracy phase was disturbed on swc's second private server \(127\.0\.0\.1:\d+, where the accuracy phases run\): Redis evicted \d+ key\(s\) \(maxmemory reached\); a figure taken then would be wrong, so none is reported$/,
    );
    expectNothingLeft(rec, 2);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('after %s while the server is still starting (between spawn and ready)', async (signal) => {
    const rec = recorder();
    const run = spawnCli(['doctor'], rec.slowEnv);
    await until(() => rec.started().length > 0);
    run.child.kill(signal);
    expect(await run.closed).toBe(signal === 'SIGINT' ? 130 : 143);
    expectNothingLeft(rec);
  });
});

describe.concurrent("settings that would make the private server not swc's alone are refused before anything starts", () => {
  // Every refused setting runs in-process against a recording stand-in for
  // redis-server in test/unit/commands/server-args.test.ts; a spawn of each
  // command shows one.
  it('--redis-server-arg daemonize=yes: exit 2 naming daemonize from doctor and bench, no server started', async () => {
    const rec = recorder();
    const commands = [['doctor'], ['bench', '--rate', '1', '--window', '10', '--no-throughput']];
    const results = await Promise.all(commands.map((command) => runCli([...command, '--redis-server-arg', 'daemonize=yes'], rec.env)));
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^swc: --redis-server-arg: daemonize\b/);
    }
    expect(rec.started()).toEqual([]);
  });

  it('harmless tuning is still accepted (encodings, memory, renamed commands)', async () => {
    const rec = recorder();
    const result = await runCli(
      [
        'doctor',
        '--json',
        '--redis-server-arg',
        'hash-max-listpack-entries=256',
        '--redis-server-arg',
        'maxmemory=64mb',
        '--redis-server-arg',
        'rename-command=FLUSHALL ""',
      ],
      rec.env,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { redis: { config: Record<string, number> } }).redis.config['hash-max-listpack-entries']).toBe(256);
    expectNothingLeft(rec);
  });
});

describe.concurrent('SIGKILL of swc with a private server', () => {
  it("the watchdogs stop both private redis-servers (the run's and its accuracy lane's) and remove their folders (one used to run on with parent 1)", async () => {
    const run = startCli(['bench', '--rate', '100', '--window', '300', '--lights', '5', '--time', '5']);
    // The private server's run shows no run line; the first cell's line means the server is up.
    await run.waitFor(/^swc bench: /m);
    // The run's server and its accuracy lane's (a second private server, started before the first cell).
    const children = execFileSync('pgrep', ['-P', String(run.child.pid), '-x', 'redis-server'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(children).toHaveLength(2);
    const servers = children.map((pid) => ({ pid: Number(pid), folder: readlinkSync(`/proc/${pid}/cwd`) }));
    for (const { folder } of servers) expect(folder).toMatch(/swc-redis-/);
    run.child.kill('SIGKILL');
    await run.exited;
    // A guard against waiting for ever, wide for a loaded machine: the servers go as soon as their watchdogs see swc gone.
    const deadline = Date.now() + 60_000;
    const left = (): boolean => servers.some(({ pid, folder }) => alive(pid) || existsSync(folder));
    while (left() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const { pid, folder } of servers) {
      expect(alive(pid), `redis-server ${pid}`).toBe(false);
      expect(existsSync(folder), folder).toBe(false);
    }
  });
});
