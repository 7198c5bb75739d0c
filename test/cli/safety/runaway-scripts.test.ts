/**
 * A script swc did not write that passes the probe and loops later, on the
 * user's server: swc notices BUSY on a second connection, sends SCRIPT KILL
 * and fails with one line saying what state the server is in (exit 3),
 * instead of waiting for its command timeout and blaming a lost connection.
 * Each test has a server of its own: they run at once.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../run-cli.js';
import { digest } from '../../helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-runaway-'));
const servers: PrivateServer[] = [];
const clients: Redis[] = [];
afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The user's server, with a short busy threshold (the default is 5 s). */
async function server(): Promise<{ url: string; redis: Redis }> {
  const s = await startPrivateServer({ settings: ['lua-time-limit=200'], allowAnySetting: true });
  servers.push(s);
  const redis = await connect(s.url);
  clients.push(redis);
  return { url: s.url, redis };
}

/**
 * The example manifest, with record.lua counting its calls per light in the
 * metadata hash (a dozen during swc's probe) and `loop` added where the
 * count passes 15: in read.lua (read-only) or record.lua (after its writes).
 */
function looping(name: string, where: 'read' | 'record'): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const record = path.join(folder, 'record.lua');
  const count = "local calls = redis.call('HINCRBY', KEYS[2], 'calls', 1)";
  const loopRecord = where === 'record' ? '\nif calls > 15 then while true do end end' : '';
  writeFileSync(record, readFileSync(record, 'utf8').replace(/\nreturn now\n$/, `\n${count}${loopRecord}\nreturn now\n`));
  if (where === 'read') {
    const read = path.join(folder, 'read.lua');
    const loop = "if tonumber(redis.call('HGET', KEYS[3], 'calls') or '0') > 15 then while true do end end";
    writeFileSync(read, readFileSync(read, 'utf8').replace(/\nreturn \{/, `\n${loop}\nreturn {`));
  }
  return path.join(folder, 'my-log.json');
}

describe.concurrent("a script that runs away on the user's server", () => {
  it('read-only: swc sends SCRIPT KILL, says so in one line, exit 3; the server answers PING, user keys unchanged', async () => {
    const { url, redis } = await server();
    for (let i = 0; i < 10; i += 1) await redis.set(`app:user:${i}`, `user ${i}`);
    const before = await digest(redis, 'app:*');
    const started = Date.now();
    const result = await runCli(
      ['verify', '--layout', looping('read', 'read'), '--calls', '300', '--lights', '1', '--trust-scripts', '--redis-url', url],
      {},
      60_000,
    );
    const lines = result.stderr.split('\n').filter((l) => /ran over/.test(l));
    expect(lines).toEqual([
      // Which call of a pipeline runs cannot be told: the batch's scripts are named. Each call queued behind it is killed in turn.
      expect.stringMatching(
        /^swc: (?:script|one of the scripts) .*read\.lua.* ran over \d+\.\d s on redis:\/\/127\.0\.0\.1:\d+\S* \(Redis answered BUSY\); swc sent SCRIPT KILL( \(\d+ times: the calls queued behind it on swc's connection ran away too\))?: killed; the server answers again$/,
      ),
    ]);
    // One call at a time on the user's server (--trust-scripts): nothing was queued behind the loop, so the server answers right after swc's exit.
    const exited = Date.now();
    expect(await redis.ping()).toBe('PONG');
    expect(Date.now() - exited).toBeLessThan(2000);
    expect(result.stderr).not.toMatch(/lost/);
    expect(result.code).toBe(3);
    // Well before ioredis' 30 s command timeout.
    expect(exited - started).toBeLessThan(25_000);
    expect(await digest(redis, 'app:*')).toEqual(before);
    expect(await redis.keys('swc-bench:*')).toEqual([]);
  });

  it('after a write: SCRIPT KILL is refused (UNKILLABLE), and the line says the server stays busy and what ends it', async () => {
    const { url } = await server();
    // Opened before: once the script runs, a new connection gets BUSY in its handshake.
    const admin = await connect(url);
    clients.push(admin);
    const result = await runCli(
      [
        'bench',
        '--layout',
        looping('record', 'record'),
        '--rate',
        '2',
        '--window',
        '30',
        '--lights',
        '1',
        '--no-throughput',
        '--no-progress',
        '--trust-scripts',
        '--redis-url',
        url,
      ],
      {},
      60_000,
    );
    expect(result.stderr).toMatch(
      /swc: (?:script|one of the scripts) .*record\.lua.* ran over \d+\.\d s on redis:\/\/127\.0\.0\.1:\d+\S* \(Redis answered BUSY\); the script had written, so SCRIPT KILL was refused \(UNKILLABLE\): the server stays busy until SHUTDOWN NOSAVE or the script ends/,
    );
    expect(result.stderr).not.toMatch(/lost Redis/);
    expect(result.code).toBe(3);
    await expect(admin.ping()).rejects.toThrow(/^BUSY/);
    // What the line says ends it does.
    await admin.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
  });
});
