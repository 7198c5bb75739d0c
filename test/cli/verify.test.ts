import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { redisUrl } from '../helpers.js';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';

// Output and exit codes of verify with --redis-url, --scripts, an out-of-memory
// server and bad usage run in-process (test/integration/commands/verify.test.ts);
// the built CLI runs here on its private server, and against a FIFO.
describe('swc verify', () => {
  it('on the private server: exit 0, JSON with the seed given, calls and zero findings; the seed is on stderr', async () => {
    const result = await runCli(['verify', '--layout', 'stoplight-v6', '--calls', '3000', '--seed', '5', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('seed 5 (replay with --seed 5)');
    const json = JSON.parse(result.stdout) as { seed: number; findings: number; results: { layout: string; calls: number; findings: number }[] };
    expect(json.seed).toBe(5);
    expect(json.findings).toBe(0);
    expect(json.results).toEqual([expect.objectContaining({ layout: 'stoplight-v6', calls: 3000, findings: 0 })]);
  });
});

describe('verify --scripts reads Lua files as input files', () => {
  it('refuses a FIFO in the scripts folder with exit 2 instead of blocking forever', async () => {
    const lua = fileURLToPath(new URL('../../lua/', import.meta.url));
    const root = mkdtempSync(path.join(os.tmpdir(), 'swc-verify-scripts-'));
    try {
      const layout = path.join(root, 'stoplight-v6');
      mkdirSync(layout, { recursive: true });
      for (const name of readdirSync(path.join(lua, 'stoplight-v6'))) copyFileSync(path.join(lua, 'stoplight-v6', name), path.join(layout, name));
      mkdirSync(path.join(root, 'lib'));
      for (const name of readdirSync(path.join(lua, 'lib'))) copyFileSync(path.join(lua, 'lib', name), path.join(root, 'lib', name));
      // record_success.lua stays a file: the folder is recognised by it; the next script read is the FIFO.
      rmSync(path.join(layout, 'record_failure.lua'));
      execFileSync('mkfifo', [path.join(layout, 'record_failure.lua')]);
      // Before the fix the read of the FIFO never returned and ignored SIGTERM; runCli's timeout would kill it.
      const result = await runCli(['verify', '--layout', 'stoplight-v6', '--scripts', root, '--redis-url', redisUrl()], {}, 60_000);
      expect(result.signal).toBeNull();
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/record_failure\.lua: a FIFO \(named pipe\), not a regular file/);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
