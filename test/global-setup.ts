import type { TestProject } from 'vitest/node';
import { startPrivateServer } from '../src/redis/server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One server per test worker (index: VITEST_POOL_ID - 1), so files running at once never share a server. */
    redisUrls: string[];
  }
}

/**
 * Real redis-servers for the whole run, one per test worker (or REDIS_URL
 * for every worker when set), stopped afterwards. Runs on one server take
 * turns and some tests check the whole server (no run key left behind), so
 * two files running at once each get a server of their own.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  if (process.env.REDIS_URL) {
    project.provide(
      'redisUrls',
      Array.from({ length: workers }, () => process.env.REDIS_URL as string),
    );
    return undefined;
  }
  const servers = await Promise.all(Array.from({ length: workers }, () => startPrivateServer()));
  project.provide(
    'redisUrls',
    servers.map((s) => s.url),
  );
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
}
