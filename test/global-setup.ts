import type { TestProject } from 'vitest/node';
import { startPrivateServer } from '../src/redis/server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** One real redis-server for the whole run (or REDIS_URL when set), stopped afterwards. */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return undefined;
  }
  const server = await startPrivateServer();
  project.provide('redisUrl', server.url);
  return () => server.stop();
}
