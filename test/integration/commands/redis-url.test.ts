import { describe, expect, it } from 'vitest';
import { redisUrl } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

// Through the same program and error path as the CLI, without a process each;
// test/cli/connection.test.ts keeps the spawned cases.
describe('--redis-url values that are not URLs (in-process)', () => {
  const SECRET = 'Pw0nlyS3cret';

  it('a bare host:port gets its fix', async () => {
    const result = await runInProcess(['lights', '--redis-url', '127.0.0.1:6379']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean redis://127.0.0.1:6379?');
  });

  it('?db=x is a usage error (exit 2), not a raw "ERR value is not an integer" from Redis (exit 3)', async () => {
    const url = new URL(redisUrl());
    url.search = `?db=x&password=${SECRET}`;
    const result = await runInProcess(['lights', '--redis-url', url.toString()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^swc: --redis-url: database must be a whole number \(\?db=0 to \?db=15 by default\), got "\?db=x"$/m);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });
});
