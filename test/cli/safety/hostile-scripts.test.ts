/**
 * Scripts swc did not write, pointed at a user's server: the probe on a
 * private server refuses each misdeed before anything reaches the user's
 * server, and the user's keys (DEBUG DIGEST-VALUE of every key, in every
 * database) are the same before and after. The user's server is a private
 * redis-server of this file, given by --redis-url: swc did not start it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/redis/connect.js';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { runCli } from '../run-cli.js';
import { at, type ManifestJson } from '../../documents.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-hostile-'));

let server: PrivateServer;
let redis: Redis;
beforeAll(async () => {
  // enable-debug-command: DEBUG DIGEST-VALUE, the issue's measure of "nothing changed".
  server = await startPrivateServer({ settings: ['enable-debug-command=yes'], allowAnySetting: true });
  redis = await connect(server.url);
  // The user's data: in db 0 and db 1, under names the example's templates give without swc's namespace, and in swc's shape.
  for (const db of [0, 1]) {
    await redis.select(db);
    for (let i = 0; i < 50; i += 1) await redis.set(`app:user:${i}`, `user ${i} in db ${db}`);
    await redis.hset('app:session', { id: 'abc', db: String(db) });
    await redis.zadd('myapp:cb:{swc-probe-a}:successes', 1, 'theirs');
    await redis.hset('myapp:cb:{orders}:meta', { last_success_at: '1' });
  }
  await redis.select(0);
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every key of db 0..3 with its DEBUG DIGEST-VALUE. */
async function digests(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const db of [0, 1, 2, 3]) {
    await redis.select(db);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) out[`${db}/${key}`] = String(await redis.call('DEBUG', 'DIGEST-VALUE', key));
    } while (cursor !== '0');
  }
  await redis.select(0);
  return out;
}

/** The example manifest in a folder of its own, with its record.lua given `extra` lines before its last line, or the manifest edited. */
function hostile(name: string, { extra, first, edit }: { extra?: string; first?: string; edit?: (m: ManifestJson) => void }): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  if (first !== undefined) {
    const file = path.join(folder, 'record.lua');
    writeFileSync(file, `${first}\n${readFileSync(file, 'utf8')}`);
  }
  if (extra !== undefined) {
    const file = path.join(folder, 'record.lua');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\nreturn now\n$/, `\n${extra}\nreturn now\n`));
  }
  const manifest = path.join(folder, 'my-log.json');
  if (edit) {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as ManifestJson;
    edit(m);
    writeFileSync(manifest, JSON.stringify(m));
  }
  return manifest;
}

const benchArgs = ['--rate', '2', '--window', '30', '--lights', '2', '--no-throughput', '--no-progress'];

describe('done when: hostile manifests are refused, and nothing of the user changes', () => {
  it.each([
    ['a script that calls FLUSHALL', { extra: "redis.call('FLUSHALL')" }, /record\.lua:\d+: refused: this script ran FLUSHALL/],
    [
      'a script that writes a user key by name',
      { extra: "redis.call('SET', 'app:user:1', 'pwned')" },
      /record\.lua:\d+: refused: this script ran SET on "app:user:1", outside the run's namespace/,
    ],
    [
      'templates that leave out {prefix}',
      {
        edit: (m: ManifestJson) => {
          at(m.keys, 0).template = 'myapp:cb:{{name}}:successes';
          m.operations.recordSuccess.keys[0] = 'myapp:cb:{{name}}:successes';
          m.operations.getMetrics.keys[0] = 'myapp:cb:{{name}}:successes';
        },
      },
      /my-log\.json: keys\[0\]\.template: must start with "\{prefix\}"/,
    ],
    [
      'a script that deletes a key it was not given',
      { extra: "redis.call('DEL', 'app:session')" },
      /record\.lua:\d+: refused: this script ran DEL on "app:session", outside the run's namespace/,
    ],
    [
      'a script that SELECTs another database',
      { extra: "redis.call('SELECT', 1) redis.call('SET', KEYS[1], 'x')" },
      /record\.lua:\d+: refused: this script ran SELECT/,
    ],
    [
      'a script that writes a key built from ARGV',
      { extra: "redis.call('SET', 'app:' .. ARGV[3], 'x')" },
      /record\.lua:\d+: refused: this script ran SET on "app:0+1", outside the run's namespace/,
    ],
    ['a script that calls KEYS', { extra: "redis.call('KEYS', '*')" }, /record\.lua:\d+: refused: this script ran KEYS/],
    [
      'a script that reads CONFIG (Redis refuses it in scripts)',
      { extra: "redis.call('CONFIG', 'GET', 'maxmemory')" },
      /record\.lua: refused: this script called a command Redis refuses inside scripts \(at .*record\.lua:\d+\)/,
    ],
    [
      'a script that loops forever before writing',
      { first: 'while true do end' },
      /record\.lua: refused: this script did not finish within 2 s \(it was stopped with SCRIPT KILL\)/,
    ],
    [
      'a script that writes, then loops forever',
      { extra: "redis.call('SET', KEYS[1] .. ':x', 1) while true do end" },
      /record\.lua: refused: this script did not finish within 2 s and wrote before, so SCRIPT KILL could not stop it \(UNKILLABLE/,
    ],
  ])(
    "%s: bench and verify exit 2, the user's keys identical",
    async (_label, how, message) => {
      const manifest = hostile(_label.replace(/\W+/g, '-'), how);
      const before = await digests();
      const commandsBefore = String(await redis.info('commandstats'));
      for (const args of [
        ['bench', '--layout', manifest, ...benchArgs],
        ['verify', '--layout', manifest, '--calls', '200'],
      ]) {
        // Without --trust-scripts a user's scripts never reach the user's server; with it, the probe refuses what it saw.
        for (const trust of [[], ['--trust-scripts']]) {
          const result = await runCli([...args, ...trust, '--redis-url', server.url], {}, 60_000);
          expect(result.code).toBe(2);
          // A manifest that fails its own checks (a --layout error) is refused for that first, with or without the flag.
          const untrusted = /--trust-scripts: refused: .*record\.lua.* not byte-identical/;
          expect(result.stderr).toMatch(trust.length === 0 && !message.source.startsWith('my-log') ? untrusted : message);
          expect(result.stderr).not.toMatch(/swc (bench|verify): run swc-bench:/);
        }
      }
      expect(await digests()).toEqual(before);
      // Nothing was sent: no script ever ran on the user's server.
      const evals = (info: string): string => /cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? '0';
      expect(evals(String(await redis.info('commandstats')))).toBe(evals(commandsBefore));
    },
    120_000,
  );

  it("a well-behaved manifest passes the probe and runs as a temporary ACL user, removed afterwards; the user's keys identical", async () => {
    const manifest = hostile('fine', {});
    const before = await digests();
    const result = await runCli(['bench', '--layout', manifest, ...benchArgs, '--trust-scripts', '--redis-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((l) => /temporary ACL user/.test(l))).toHaveLength(1);
    expect(await redis.call('ACL', 'USERS')).toEqual(['default']);
    expect(await digests()).toEqual(before);
  });

  it('on a private server (no --redis-url) the same manifest runs as before, no flag needed', async () => {
    const result = await runCli(['bench', '--layout', hostile('private', {}), ...benchArgs]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/unconfined|trust-scripts/);
  });

  it("built-in layouts run on a user's server as before (no probe, no flag)", async () => {
    const result = await runCli(['bench', '--layout', 'stoplight-v6', ...benchArgs, '--redis-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/unconfined|trust-scripts|probe/);
  });
});
