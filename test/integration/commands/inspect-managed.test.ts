import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { expectEverythingButBytes, MEMORY_RENAMED, seed } from '../../cli/inspect-managed-shared.js';
import { runInProcess } from '../../unit/in-process.js';

// The spawned CLI runs inspect --json and lights --json on the first server
// (test/cli/inspect-managed.test.ts); every case runs here in-process.
describe('inspect and lights on a server where MEMORY is renamed away', () => {
  let server: PrivateServer;
  beforeAll(async () => {
    server = await startPrivateServer({ settings: ['rename-command=MEMORY ""'] });
    await seed(server.url);
  });
  afterAll(() => server.stop());

  it('show every key, count and metadata with bytes n/a, and say once why', async () => {
    await expectEverythingButBytes(runInProcess, server.url, [MEMORY_RENAMED]);
  });
});

describe('inspect and lights as an ACL user without MEMORY, INFO and CONFIG', () => {
  let server: PrivateServer;
  let url: string;
  beforeAll(async () => {
    server = await startPrivateServer();
    await seed(server.url);
    const admin = new Redis(server.url);
    await admin.call('ACL', 'SETUSER', 'reader', 'on', '>reader-pw', '~*', '&*', '+@all', '-memory', '-info', '-config');
    admin.disconnect();
    url = server.url.replace('redis://', 'redis://reader:reader-pw@');
  });
  afterAll(() => server.stop());

  it('show everything else, with bytes n/a and listpack limits unknown, each said once', async () => {
    await expectEverythingButBytes(runInProcess, url, [
      /^swc: note: bytes unavailable: the server refused MEMORY USAGE \(NOPERM/,
      /^swc: note: listpack limits unknown: the server refused CONFIG GET \(NOPERM/,
    ]);
  });
});
