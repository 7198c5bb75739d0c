import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { StoplightV5 } from '../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import type { PrivateServer } from '../../src/redis/server.js';
import type { ScriptCall } from '../../src/lua/source.js';
import { HOUR_START, ownServer } from '../helpers.js';

/**
 * The snapshot that test/cli/rdb.test.ts (spawned) and
 * test/integration/commands/rdb.test.ts (in-process) analyse with --rdb:
 * 40 lights in stoplight-v6 and 10 in stoplight-v5, 30 events each.
 */

export const AT = HOUR_START + 900;

export interface RdbFixture {
  /** The private server the snapshot was saved from, still running with the same keys. */
  server: PrivateServer;
  redis: Redis;
  /** A folder of the test's own for files made from the snapshot. */
  dir: string;
  /** A copy of the snapshot. */
  snapshot: string;
}

/** Fills a private server and copies its snapshot before the file's tests; stops the server after them. */
export function rdbFixture(): RdbFixture {
  const fixture = {} as RdbFixture;
  ownServer((server, redis) => Object.assign(fixture, { server, redis }));
  beforeAll(async () => {
    const v5 = new StoplightV5();
    const v6 = new StoplightV6();
    await installScripts(fixture.redis, [...v5.scripts, ...v6.scripts]);
    const calls: ScriptCall[] = [];
    for (let i = 0; i < 40; i += 1) {
      for (let e = 0; e < 30; e += 1) {
        const options = { at: AT - 300 + e * 10, windowSeconds: 300 };
        calls.push(v6.recordSuccess({ name: `light-${i}`, system: i % 2 === 0 ? 'payments' : 'default' }, options));
        if (i < 10) calls.push(v5.recordSuccess({ name: `old-${i}` }, options));
      }
    }
    await execPipeline(fixture.redis, calls);
    // SAVE writes the snapshot into the private server's own folder; the test keeps a copy.
    await fixture.redis.call('SAVE');
    const [, serverDir] = (await fixture.redis.call('CONFIG', 'GET', 'dir')) as [string, string];
    const [, file] = (await fixture.redis.call('CONFIG', 'GET', 'dbfilename')) as [string, string];
    fixture.dir = mkdtempSync(path.join(os.tmpdir(), 'swc-rdb-test-'));
    fixture.snapshot = path.join(fixture.dir, 'dump.rdb');
    copyFileSync(path.join(serverDir, file), fixture.snapshot);
  });
  afterAll(() => {
    if (fixture.dir) rmSync(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}

/** What lights and inspect say on stderr about the bytes of a loaded snapshot. */
export const RDB_BYTES_NOTE = 'swc: note: --rdb bytes are a freshly loaded snapshot';
