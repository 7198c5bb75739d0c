import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer } from '../../src/redis/server.js';
import { SOCKET_TIMEOUT_MS } from '../../src/redis/rdb-server.js';
import { alive } from '../helpers.js';
import { runCli, startCli, type RunningCli } from './run-cli.js';

// #29 items 8 and 9: every child swc starts (the --rdb server, valgrind's
// server, a --redis-server wrapper's redis-server) goes when swc is killed
// with SIGKILL, with its folder; and a binary or wrapper that is not a
// redis-server is blamed as such. Each test watches only its own swc's
// children, so the tests of a describe run at once.

let dir: string;
let snapshot: string;

/** The swc temp folder a process works in (redis-server changes to its --dir and rewrites its own title). */
function folderOf(pid: number, args: string): string | undefined {
  let cwd: string | undefined;
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    cwd = undefined;
  }
  const folder = cwd !== undefined && /swc-(redis|rdb)-/.test(cwd) ? cwd : /--dir (\S+)/.exec(args)?.[1];
  return folder?.replace(/ \(deleted\)$/, '');
}

/** Every process under `root` (children, grandchildren …) with the swc folder it works in, if any. */
function descendants(root: number): { pid: number; args: string; folder?: string }[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }));
  const found: { pid: number; args: string; folder?: string }[] = [];
  const walk = (parent: number): void => {
    for (const row of rows.filter((r) => r.ppid === parent)) {
      const folder = folderOf(row.pid, row.args);
      found.push({ pid: row.pid, args: row.args, ...(folder ? { folder } : {}) });
      walk(row.pid);
    }
  };
  walk(root);
  return found;
}

/**
 * SIGKILLs swc and asserts that none of `children` runs, none of their folders (and no vgdb pipe of theirs) is left.
 * The poll's 60 s is a guard against waiting for ever, not a speed bound: the children go as soon as they go.
 */
async function killAndExpectNothingLeft(run: RunningCli, children: { pid: number; args: string; folder?: string }[]): Promise<void> {
  run.child.kill('SIGKILL');
  await run.exited;
  const pipes = (): string[] => readdirSync(os.tmpdir()).filter((f) => children.some(({ pid }) => f.startsWith('vgdb-pipe') && f.includes(`-${pid}-`)));
  const left = (): boolean => children.some(({ pid, folder }) => alive(pid) || (folder !== undefined && existsSync(folder))) || pipes().length > 0;
  const deadline = Date.now() + 60_000;
  while (left() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const { pid, args, folder } of children) {
    expect(alive(pid), `${pid} ${args}`).toBe(false);
    if (folder) expect(existsSync(folder), folder).toBe(false);
  }
  expect(pipes()).toEqual([]);
}

async function waitForFile(file: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(existsSync(file), file).toBe(true);
}

/** A wrapper script that runs redis-server in the background (not exec: the server is its child) with extra words, and notes its pid. */
function wrapper(name: string, extra: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\nredis-server "$@" ${extra} &\necho $! > ${file}.pid\nwait\n`);
  chmodSync(file, 0o755);
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swc-signals-test-'));
  const server = await startPrivateServer();
  const redis = await connect(server.url);
  try {
    const pipeline = redis.pipeline();
    for (let i = 0; i < 100; i += 1) pipeline.set(`k${i}`, 'v');
    await pipeline.exec();
    await redis.call('SAVE');
    const [, serverDir] = (await redis.call('CONFIG', 'GET', 'dir')) as [string, string];
    snapshot = path.join(dir, 'dump.rdb');
    writeFileSync(snapshot, readFileSync(path.join(serverDir, 'dump.rdb')));
  } finally {
    redis.disconnect();
    await server.stop();
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('SIGKILL of swc leaves no child and no folder within 5 s', () => {
  it('during --rdb, its redis-server started by a --redis-server wrapper (loading slowly) goes, with the wrapper and the folder', async () => {
    // key-load-delay: 100 ms a key, so the snapshot is still LOADING when swc is killed.
    const script = wrapper('rdb-wrapper.sh', '--key-load-delay 100000');
    const run = startCli(['lights', '--rdb', snapshot, '--redis-server', script]);
    await waitForFile(`${script}.pid`);
    // Until the wrapper's redis-server works in swc's folder (a fixed 300 ms pause was too short on a loaded machine);
    // the deadline is a guard against waiting for ever.
    const serving = (c: { args: string; folder?: string }): boolean => /redis-server/.test(c.args) && c.folder?.includes('swc-rdb-') === true;
    let children = descendants(run.child.pid ?? -1);
    const deadline = Date.now() + 60_000;
    while (!children.some(serving) && run.child.exitCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      children = descendants(run.child.pid ?? -1);
    }
    expect(children.some(serving)).toBe(true);
    await killAndExpectNothingLeft(run, children);
  });

  it("bench with a --redis-server wrapper: the wrapper's redis-server goes (it used to run on)", async () => {
    const script = wrapper('bench-wrapper.sh', '');
    // A small fill: the first line (the write throughput phase) comes after ~2 s, and the phase runs on.
    const run = startCli(['bench', '--redis-server', script, '--rate', '2', '--window', '10', '--lights', '1', '--time', '5']);
    await run.waitFor(/^swc bench: /m);
    const children = descendants(run.child.pid ?? -1);
    const servers = children.filter((c) => /^redis-server/.test(c.args));
    // Both private servers (the run's and its accuracy lane's) are grandchildren, under a wrapper each.
    expect(servers.length).toBeGreaterThanOrEqual(1);
    await killAndExpectNothingLeft(run, children);
  });

  it('during --instructions: valgrind, its server, its folder and its vgdb pipes go', async () => {
    const run = startCli(['bench', '--instructions', '--window', '10', '--rate', '1', '--no-throughput', '--no-accuracy']);
    await run.waitFor(/counting instructions: starting redis-server under valgrind/);
    // Until valgrind's server is up (its vgdb pipes exist then).
    const deadline = Date.now() + 60_000;
    let children = descendants(run.child.pid ?? -1);
    while (
      !children.some(
        (c) => /valgrind|callgrind/.test(c.args) && c.folder && existsSync(c.folder) && readdirSync(c.folder).some((f) => f.startsWith('vgdb-pipe')),
      ) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 100));
      children = descendants(run.child.pid ?? -1);
    }
    const valgrind = children.find((c) => /valgrind|callgrind/.test(c.args));
    expect(valgrind?.folder).toBeDefined();
    // The pipes are in the server's own folder, none in the shared temp folder.
    expect(readdirSync(valgrind?.folder ?? '').some((f) => f.startsWith('vgdb-pipe'))).toBe(true);
    await killAndExpectNothingLeft(run, children);
  });
});

describe.concurrent('blame the right thing (#29 item 9)', () => {
  it('--rdb with --redis-server true: not a redis-server, not a corrupt RDB', async () => {
    const r = await runCli(['lights', '--rdb', snapshot, '--redis-server', 'true']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^swc: --redis-server: true exited at once without a redis-server's log or socket .*it is not a redis-server/);
    expect(r.stderr).not.toMatch(/corrupt/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--rdb with a wrapper that sleeps: a bounded wait and its own line, not 40 s', async () => {
    // The bound is the mechanism: swc gives up on its own timer (SOCKET_TIMEOUT_MS, named in the line) and stops
    // the wrapper, which would otherwise sleep its 40 s. The time it takes is `npm run bench:bounds`'s.
    const script = path.join(dir, 'sleeper.sh');
    const pidFile = path.join(dir, 'sleeper.pid');
    writeFileSync(script, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 40\n`);
    chmodSync(script, 0o755);
    const r = await runCli(['lights', '--rdb', snapshot, '--redis-server', script]);
    expect(r.code).toBe(3);
    expect(SOCKET_TIMEOUT_MS).toBeLessThan(40_000);
    expect(r.stderr).toMatch(new RegExp(`^swc: --redis-server: .*sleeper\\.sh is running but opened no socket within ${SOCKET_TIMEOUT_MS / 1000} s`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    // The sleeper did not outlive swc: it was stopped, not waited out.
    expect(alive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('a private server that dies at start with no setting given: the server died, with its last log line, not a rejected setting', async () => {
    const script = path.join(dir, 'dies.sh');
    writeFileSync(script, '#!/bin/sh\necho "the value must be a number, it died"\nexit 1\n');
    chmodSync(script, 0o755);
    const r = await runCli(['bench', '--redis-server', script, '--window', '10', '--rate', '1', '--no-throughput', '--no-accuracy']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/redis-server died at start \(exit code 1\) before it answered PING: its last log line: the value must be a number, it died/);
    expect(r.stderr).not.toMatch(/--redis-server-arg/);
  });
});
