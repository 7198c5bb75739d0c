import { describe, expect, it } from 'vitest';
import type { PrivateServer } from '../../../src/redis/server.js';
import { ownServer } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';

// A server of this file's own: the listing must not see other files' runs.
let server: PrivateServer;
ownServer((s) => {
  server = s;
});

// What a SIGKILLed or running bench leaves is in test/cli/clean.test.ts.
describe('swc clean', () => {
  it('says so when there is nothing to clean', async () => {
    const result = await runInProcess(['clean', '--redis-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('no swc-bench:* namespaces on this server\n');
  });
});
