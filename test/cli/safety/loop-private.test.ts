/**
 * A manifest's script that loops forever, run on swc's private server (no
 * --redis-url, so no probe and no runaway watcher): a runtime failure, exit 3,
 * one line naming the script the server was running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostile } from '../../hostile-manifests.js';
import { runCli } from '../run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-loop-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a manifest whose script loops, on the private server', () => {
  it('exit 3, one line naming the script (not exit 2: the manifest itself was valid)', async () => {
    const manifest = hostile(dir, 'loops', { first: 'while true do end' });
    const result = await runCli(['bench', '--layout', manifest, '--rate', '2', '--window', '30', '--lights', '2', '--no-throughput', '--no-progress']);
    expect(result.code, result.stderr).toBe(3);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^swc: .*no reply within \d+ ms to .*record\.lua \(does the script end\? one that loops holds the server\)/);
    expect(result.stdout).toBe('');
  });
});
