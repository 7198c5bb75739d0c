/**
 * The runaway watch's last word (src/redis/scripts.ts): a script that wrote
 * and then runs away, which Redis will not let SCRIPT KILL stop. Under
 * `--trust-scripts` swc's time guard ends such loops inside the script
 * (test/cli/safety/runaway-scripts.test.ts); here the script runs bare, as
 * a script the guard could not reach would, so the line swc prints then is
 * tested for what it says.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadScript } from '../../../src/lua/source.js';
import { connect } from '../../../src/redis/connect.js';
import { installScripts, RunawayScriptError, runScript, watchRunawayScripts } from '../../../src/redis/scripts.js';
import { withPrivateServer } from '../../helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-runaway-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a read-only script that loops: swc sends SCRIPT KILL, and the error says it was killed and the server answers again', async () => {
  writeFileSync(path.join(dir, 'spin.lua'), 'while true do end\n');
  const script = loadScript({ root: dir, file: 'spin.lua', includes: 'none' });
  await withPrivateServer({ settings: ['lua-time-limit=200'], allowAnySetting: true }, async (_server, redis) => {
    const unwatch = await watchRunawayScripts(redis, 'the test server', [script]);
    const watcher = await connect(_server.url);
    try {
      await installScripts(redis, [script]);
      const err = await runScript(redis, { script, keys: [], args: [] }).catch((e: unknown) => e);
      expect(err, String(err)).toBeInstanceOf(RunawayScriptError);
      expect((err as RunawayScriptError).killed).toBe('killed');
      expect((err as Error).message).toMatch(
        /^script \S*spin\.lua ran over \d+\.\d s on the test server \(Redis answered BUSY\); swc sent SCRIPT KILL: killed; the server answers again$/,
      );
      expect(await watcher.ping()).toBe('PONG');
    } finally {
      unwatch();
      watcher.disconnect();
    }
  });
});

it('a script that wrote, then loops: SCRIPT KILL is refused (UNKILLABLE), and the error says the server stays busy and what ends it', async () => {
  writeFileSync(path.join(dir, 'stuck.lua'), "redis.call('SET', KEYS[1], 'written')\nwhile true do end\n");
  const script = loadScript({ root: dir, file: 'stuck.lua', includes: 'none' });
  await withPrivateServer({ settings: ['lua-time-limit=200'], allowAnySetting: true }, async (server, redis) => {
    // Opened before: once the script runs, a new connection gets BUSY in its handshake.
    const admin = await connect(server.url);
    const unwatch = await watchRunawayScripts(redis, 'the test server', [script]);
    try {
      await installScripts(redis, [script]);
      const err = await runScript(redis, { script, keys: ['stuck:key'], args: [] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunawayScriptError);
      expect((err as RunawayScriptError).killed).toBe('UNKILLABLE');
      expect((err as Error).message).toMatch(
        /^script \S*stuck\.lua ran over \d+\.\d s on the test server \(Redis answered BUSY\); the script had written, so SCRIPT KILL was refused \(UNKILLABLE\): the server stays busy until SHUTDOWN NOSAVE or the script ends$/,
      );
      await expect(admin.ping()).rejects.toThrow(/^BUSY/);
    } finally {
      unwatch();
      // What the line says ends it does.
      await admin.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
      admin.disconnect();
    }
  });
});
