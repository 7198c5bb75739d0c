import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startCli } from './run-cli.js';

describe('swc demo on its private server', () => {
  it('serves its lights until Ctrl-C, then the server is gone (exit 130)', async () => {
    const run = startCli(['demo']);
    const deadline = Date.now() + 50_000;
    while (!/Ctrl-C stops the server/.test(run.stdout()) && Date.now() < deadline && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    const url = /export REDIS_URL=(redis:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout())?.[1];
    expect(url, run.stderr()).toBeDefined();
    const redis = new Redis(url as string, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    await redis.connect();
    expect(await redis.exists('stoplight:v5:metadata:legacy-ldap')).toBe(1);
    redis.disconnect();
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(130);
    const after = new Redis(url as string, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    after.on('error', () => undefined);
    await expect(after.connect()).rejects.toThrow();
    after.disconnect();
  });
});
