import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, SWC_BIN } from './run-cli.js';
import { alive } from '../helpers.js';

// A stand-in for redis-server that records the PID of the real server it execs.
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-wrap-'));
const pidFile = path.join(dir, 'pids');
const wrapper = path.join(dir, 'redis-server');
writeFileSync(wrapper, `#!/bin/sh\necho $$ >> '${pidFile}'\nexec redis-server "$@"\n`);
chmodSync(wrapper, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function startedPids(): number[] {
  try {
    return readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const env = { SWC_REDIS_SERVER: wrapper };

describe('the private redis-server is gone when the command ends', () => {
  it('after a normal run', async () => {
    const before = startedPids().length;
    const result = await runCli(['doctor'], env);
    expect(result.code).toBe(0);
    const pids = startedPids().slice(before);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('after a failed check (scripts cannot load)', async () => {
    const before = startedPids().length;
    const result = await runCli(['doctor', '--redis-server-arg', 'rename-command=SCRIPT hidden-script-command'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/FAIL/);
    const pids = startedPids().slice(before);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('after a runtime error (out of memory mid-bench)', async () => {
    const before = startedPids().length;
    const result = await runCli(['bench', '--rate', '100', '--window', '10m', '--no-throughput', '--redis-server-arg', 'maxmemory=3mb'], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/out of memory/);
    const pids = startedPids().slice(before);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('after Ctrl-C in the middle of a bench', async () => {
    const before = startedPids().length;
    const child = spawn(process.execPath, [SWC_BIN, 'bench', '--preset', 'blog', '--no-throughput'], {
      env: { ...process.env, ...env, REDIS_URL: '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve) => {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/\[1\/16\]/.test(stderr)) resolve();
      });
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    const pids = startedPids().slice(before);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });
});
