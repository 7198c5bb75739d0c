import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { connect } from '../../src/redis/connect.js';
import { startRdbServer } from '../../src/redis/rdb-server.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import { startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import type { ScriptCall } from '../../src/lua/source.js';
import { HOUR_START } from '../helpers.js';
import { runCli } from './run-cli.js';

const AT = HOUR_START + 900;
let server: PrivateServer;
let redis: Redis;
let dir: string;
let snapshot: string;

interface ListJson {
  totals: unknown[];
  total: { lights: number; keys: number; bytes: number; events: number };
  lights: { reference: string; bytes: number; events: number }[];
}

beforeAll(async () => {
  server = await startPrivateServer();
  redis = await connect(server.url);
  const v5 = new StoplightV5();
  const v6 = new StoplightV6();
  await installScripts(redis, [...v5.scripts, ...v6.scripts]);
  const calls: ScriptCall[] = [];
  for (let i = 0; i < 40; i += 1) {
    for (let e = 0; e < 30; e += 1) {
      const options = { at: AT - 300 + e * 10, windowSeconds: 300 };
      calls.push(v6.recordSuccess({ name: `light-${i}`, system: i % 2 === 0 ? 'payments' : 'default' }, options));
      if (i < 10) calls.push(v5.recordSuccess({ name: `old-${i}` }, options));
    }
  }
  await execPipeline(redis, calls);
  // SAVE writes the snapshot into the private server's own folder; the test keeps a copy.
  await redis.call('SAVE');
  const [, serverDir] = (await redis.call('CONFIG', 'GET', 'dir')) as [string, string];
  const [, file] = (await redis.call('CONFIG', 'GET', 'dbfilename')) as [string, string];
  dir = mkdtempSync(path.join(os.tmpdir(), 'swc-rdb-test-'));
  snapshot = path.join(dir, 'dump.rdb');
  copyFileSync(path.join(serverDir, file), snapshot);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('lights --rdb and inspect --rdb: a snapshot analysed offline', () => {
  it('lights --rdb gives the same totals as lights on the live server', async () => {
    const live = await runCli(['lights', '--redis-url', server.url, '--at', String(AT), '--json']);
    const offline = await runCli(['lights', '--rdb', snapshot, '--at', String(AT), '--json']);
    expect(offline.code, offline.stderr).toBe(0);
    // The bytes of a loaded snapshot are not the live server's on a busy fleet: it says so, and why.
    expect(offline.stderr).toContain('swc: note: --rdb bytes are a freshly loaded snapshot');
    expect(live.stderr).not.toContain('--rdb bytes');
    const a = JSON.parse(live.stdout) as ListJson;
    const b = JSON.parse(offline.stdout) as ListJson;
    expect(b.total).toEqual(a.total);
    expect(b.totals).toEqual(a.totals);
    expect(b.total).toMatchObject({ lights: 50, events: 50 * 30 });
    const bytes = (doc: ListJson) => Object.fromEntries(doc.lights.map((l) => [l.reference, l.bytes]));
    expect(bytes(b)).toEqual(bytes(a));
  });

  it('inspect --rdb reads one light of the snapshot', async () => {
    const run = await runCli(['inspect', 'light-2', '--system', 'payments', '--rdb', snapshot, '--at', String(AT), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { inspections: { totals: { successes: number }; systemName: string; lightName: string }[] };
    expect(doc.inspections[0]).toMatchObject({ totals: { successes: 30 }, systemName: 'payments', lightName: 'light-2' });
    // Its bytes are the loaded snapshot's, not the live server's: said on stderr, as lights --rdb says it.
    expect(run.stderr).toContain('swc: note: --rdb bytes are a freshly loaded snapshot');
  });

  it('the private server listens on no TCP port, only on a unix socket, and goes away afterwards', async () => {
    const rdb = await startRdbServer(snapshot);
    try {
      expect(await rdb.redis.call('CONFIG', 'GET', 'port')).toEqual(['port', '0']);
      expect(rdb.url).toMatch(/^unix:\/.*redis\.sock$/);
      expect(Number(await rdb.redis.dbsize())).toBe(Number(await redis.dbsize()));
    } finally {
      await rdb.stop();
    }
  });

  it('a truncated file, a corrupt one, and a file that is no RDB: one line each, exit 2, within seconds', async () => {
    const whole = readFileSync(snapshot);
    const truncated = path.join(dir, 'truncated.rdb');
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
    const run = await runCli(['lights', '--rdb', truncated]);
    expect(run.code).toBe(2);
    expect(run.ms).toBeLessThan(15_000);
    expect(run.stderr).toMatch(/^swc: --rdb: .*truncated\.rdb cannot be loaded \(truncated or corrupt RDB version \d+\): .+\n$/);
    const corrupt = path.join(dir, 'corrupt.rdb');
    const bytes = Buffer.from(whole);
    for (let i = 20; i < bytes.length - 10; i += 7) bytes[i] = 0xff;
    writeFileSync(corrupt, bytes);
    const bad = await runCli(['inspect', 'x', '--rdb', corrupt]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^swc: --rdb: .*corrupt\.rdb cannot be loaded \(truncated or corrupt RDB version \d+\)/);
    const text = path.join(dir, 'notes.rdb');
    writeFileSync(text, 'hello\n');
    const none = await runCli(['lights', '--rdb', text]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`swc: --rdb: ${text} is not an RDB file (it does not start with REDIS and a 4-digit version)\n`);
  });

  it('an RDB version the binary cannot load names the version, the build that would, and --redis-server', async () => {
    const newer = path.join(dir, 'newer.rdb');
    const bytes = Buffer.from(readFileSync(snapshot));
    bytes.write('0012', 5, 'latin1');
    // Any version past the running build's: 7.0 writes 10 and refuses 11 and 12.
    const version = (await redis.call('INFO', 'server')) as string;
    const major = Number(/redis_version:(\d+)\.(\d+)/.exec(version)?.[1] ?? 7);
    const minor = Number(/redis_version:(\d+)\.(\d+)/.exec(version)?.[2] ?? 0);
    if (major > 7 || (major === 7 && minor >= 4)) bytes.write('0099', 5, 'latin1');
    writeFileSync(newer, bytes);
    const run = await runCli(['lights', '--rdb', newer]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^swc: --rdb: .*newer\.rdb is RDB version (12|99); \S+ cannot load it( \(it needs Redis 7\.4 or newer\))?: give --redis-server <path to a redis-server that can>\n$/,
    );
  });

  it('--rdb with --redis-url is bad usage', async () => {
    const run = await runCli(['lights', '--rdb', snapshot, '--redis-url', server.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('swc: --rdb/--redis-url: --rdb reads a snapshot, not a server; drop one of them\n');
  });
});
