import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { redisUrl } from '../helpers.js';
import { runCli } from '../cli/run-cli.js';

const LUA = fileURLToPath(new URL('../../lua/', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-review9-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verify --scripts reads Lua files as input files', () => {
  it('refuses a FIFO in the scripts folder with exit 2 instead of blocking forever', async () => {
    const root = path.join(dir, 'scripts');
    const layout = path.join(root, 'stoplight-v6');
    mkdirSync(layout, { recursive: true });
    for (const name of readdirSync(path.join(LUA, 'stoplight-v6'))) copyFileSync(path.join(LUA, 'stoplight-v6', name), path.join(layout, name));
    rmSync(path.join(layout, 'record_success.lua'));
    execFileSync('mkfifo', [path.join(layout, 'record_success.lua')]);
    // Before the fix the read of the FIFO never returned and ignored SIGTERM; runCli's timeout would kill it.
    const result = await runCli(['verify', '--layout', 'stoplight-v6', '--scripts', root, '--redis-url', redisUrl()], {}, 30_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/record_success\.lua: cannot read: a FIFO \(named pipe\), not a regular file/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
