import type { Redis } from 'ioredis';
import { expect, type TestContext } from 'vitest';
import type { PrivateServer } from '../../src/redis/server.js';
import { digest, keysMatching, testServer } from '../helpers.js';

/*
 * Servers and keys for the preflight refusals: test/cli/safety-preflight.test.ts
 * (spawned) and test/integration/commands/safety-preflight.test.ts (in-process).
 */

/** A server and a connection of the test's own, stopped when it finishes (the tests run at once), and its URL. */
export async function server(
  context: Pick<TestContext, 'onTestFinished'>,
  settings: string[] = [],
): Promise<{ server: PrivateServer; redis: Redis; url: string }> {
  const { server: s, redis } = await testServer(context, { settings });
  return { server: s, redis, url: s.url };
}

/** 300 keys of somebody else's: strings, hashes and sorted sets, some with a TTL. */
export async function seedUserKeys(redis: Redis): Promise<void> {
  const pipeline = redis.pipeline();
  for (let i = 0; i < 300; i += 1) {
    if (i % 3 === 0) pipeline.set(`app:s:${i}`, `value ${i}`.repeat(4));
    else if (i % 3 === 1) pipeline.hset(`app:h:${i}`, { a: String(i), b: 'x'.repeat(20) });
    else pipeline.zadd(`app:z:${i}`, i, `m${i}`);
    if (i % 10 === 0) pipeline.expire(`app:s:${i}`, 3600);
  }
  await pipeline.exec();
}

/** What must hold after every case: the user's keys unchanged, none of swc's left. */
export async function expectUntouched(redis: Redis, before: Record<string, string>): Promise<void> {
  expect(await digest(redis, 'app:*')).toEqual(before);
  expect(await keysMatching(redis, 'swc-bench:*')).toEqual([]);
}
