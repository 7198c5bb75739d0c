import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRdbServer } from '../../../src/redis/rdb-server.js';
import { AT, RDB_BYTES_NOTE, rdbFixture } from '../../cli/rdb-shared.js';
import { runInProcess } from '../../unit/in-process.js';

const fixture = rdbFixture();

interface ListJson {
  totals: unknown[];
  total: { lights: number; keys: number; bytes: number; events: number };
  lights: { reference: string; bytes: number; events: number }[];
}

// The spawned CLI runs inspect --rdb and a truncated file
// (test/cli/rdb.test.ts); these run the same program in-process.
describe('lights --rdb and inspect --rdb: a snapshot analysed offline', () => {
  it('lights --rdb gives the same totals as lights on the live server', async () => {
    const live = await runInProcess(['lights', '--redis-url', fixture.server.url, '--at', String(AT), '--json']);
    const offline = await runInProcess(['lights', '--rdb', fixture.snapshot, '--at', String(AT), '--json']);
    expect(offline.code, offline.stderr).toBe(0);
    // The bytes of a loaded snapshot are not the live server's on a busy fleet: it says so, and why.
    expect(offline.stderr).toContain(RDB_BYTES_NOTE);
    expect(live.stderr).not.toContain('--rdb bytes');
    const a = JSON.parse(live.stdout) as ListJson;
    const b = JSON.parse(offline.stdout) as ListJson;
    expect(b.total).toEqual(a.total);
    expect(b.totals).toEqual(a.totals);
    expect(b.total).toMatchObject({ lights: 50, events: 50 * 30 });
    const bytes = (doc: ListJson) => Object.fromEntries(doc.lights.map((l) => [l.reference, l.bytes]));
    expect(bytes(b)).toEqual(bytes(a));
  });

  it('the private server listens on no TCP port, only on a unix socket, and goes away afterwards', async () => {
    const rdb = await startRdbServer(fixture.snapshot);
    try {
      expect(await rdb.redis.call('CONFIG', 'GET', 'port')).toEqual(['port', '0']);
      expect(rdb.url).toMatch(/^unix:\/.*redis\.sock$/);
      expect(Number(await rdb.redis.dbsize())).toBe(Number(await fixture.redis.dbsize()));
    } finally {
      await rdb.stop();
    }
  });

  it('a corrupt file and a file that is no RDB: one line each, exit 2', async () => {
    const bytes = Buffer.from(readFileSync(fixture.snapshot));
    const corrupt = path.join(fixture.dir, 'corrupt.rdb');
    for (let i = 20; i < bytes.length - 10; i += 7) bytes[i] = 0xff;
    writeFileSync(corrupt, bytes);
    const bad = await runInProcess(['inspect', 'x', '--rdb', corrupt]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^swc: --rdb: .*corrupt\.rdb cannot be loaded \(truncated or corrupt RDB version \d+\)/);
    const text = path.join(fixture.dir, 'notes.rdb');
    writeFileSync(text, 'hello\n');
    const none = await runInProcess(['lights', '--rdb', text]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`swc: --rdb: ${text} is not an RDB file (it does not start with REDIS and a 4-digit version)\n`);
  });

  it('an RDB version the binary cannot load names the version, the build that would, and --redis-server', async () => {
    const newer = path.join(fixture.dir, 'newer.rdb');
    const bytes = Buffer.from(readFileSync(fixture.snapshot));
    bytes.write('0012', 5, 'latin1');
    // Any version past the running build's: 7.0 writes 10 and refuses 11 and 12.
    const version = (await fixture.redis.call('INFO', 'server')) as string;
    const major = Number(/redis_version:(\d+)\.(\d+)/.exec(version)?.[1] ?? 7);
    const minor = Number(/redis_version:(\d+)\.(\d+)/.exec(version)?.[2] ?? 0);
    if (major > 7 || (major === 7 && minor >= 4)) bytes.write('0099', 5, 'latin1');
    writeFileSync(newer, bytes);
    const run = await runInProcess(['lights', '--rdb', newer]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^swc: --rdb: .*newer\.rdb is RDB version (12|99); \S+ cannot load it( \(it needs Redis 7\.4 or newer\))?: give --redis-server <path to a redis-server that can>\n$/,
    );
  });

  it('--rdb with --redis-url is bad usage', async () => {
    const run = await runInProcess(['lights', '--rdb', fixture.snapshot, '--redis-url', fixture.server.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('swc: --rdb/--redis-url: --rdb reads a snapshot, not a server; drop one of them\n');
  });
});
