import type { Redis } from 'ioredis';
import { beforeAll } from 'vitest';
import { StoplightV6 } from '../../src/layouts/stoplight/v6.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import type { PrivateServer } from '../../src/redis/server.js';
import { ownServer } from '../helpers.js';

/**
 * The keyspace test/cli/lights-scan.test.ts (spawned) and
 * test/integration/commands/lights-scan.test.ts (in-process) scan: many keys
 * of the application and a few lights, on a private server whose command
 * statistics count only what the tests do.
 */

/** Other keys of the application: lights must walk them once, and only once. */
export const OTHER_KEYS = 120_000;
export const LIGHTS = 50;

export interface ScanFixture {
  server: PrivateServer;
  redis: Redis;
}

/** Fills a private server before the file's tests; stops it after them. */
export function scanFixture(): ScanFixture {
  const fixture = {} as ScanFixture;
  // DEBUG POPULATE fills the keyspace in one call; only a private server of the test's own allows it.
  ownServer((server, redis) => Object.assign(fixture, { server, redis }), { settings: ['enable-debug-command=yes'], allowAnySetting: true });
  beforeAll(async () => {
    await fixture.redis.call('DEBUG', 'POPULATE', String(OTHER_KEYS), 'app:session');
    const v6 = new StoplightV6();
    await installScripts(fixture.redis, v6.scripts);
    const now = Number((await fixture.redis.time())[0]);
    await execPipeline(
      fixture.redis,
      Array.from({ length: LIGHTS }, (_, i) => v6.recordSuccess({ name: `light-${i}`, system: 'payments' }, { at: now - 1, windowSeconds: 60 })),
    );
  });
  return fixture;
}
