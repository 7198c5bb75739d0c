import { beforeAll, describe, it } from 'vitest';
import type { PrivateServer } from '../../../src/redis/server.js';
import { aclUserUrl, ownServer } from '../../helpers.js';
import { expectEverythingButBytes, MEMORY_RENAMED, seed, seededServer } from '../../cli/inspect-managed-shared.js';
import { runInProcess } from '../../unit/in-process.js';

// The spawned CLI runs inspect --json and lights --json on the first server
// (test/cli/inspect-managed.test.ts); every case runs here in-process.
describe('inspect and lights on a server where MEMORY is renamed away', () => {
  let server: PrivateServer;
  ownServer((s) => (server = s), { settings: ['rename-command=MEMORY ""'] });
  beforeAll(() => seed(server.url));

  it('show every key, count and metadata with bytes n/a, and say once why', async () => {
    await expectEverythingButBytes(runInProcess, server.url, [MEMORY_RENAMED]);
  });
});

describe('inspect and lights as an ACL user without MEMORY, INFO and CONFIG', () => {
  let url: string;
  seededServer(async (server, admin) => {
    url = await aclUserUrl(admin, server.url, 'reader', ['~*', '&*', '+@all', '-memory', '-info', '-config']);
  });

  it('show everything else, with bytes n/a and listpack limits unknown, each said once', async () => {
    await expectEverythingButBytes(runInProcess, url, [
      /^swc: note: bytes unavailable: the server refused MEMORY USAGE \(NOPERM/,
      /^swc: note: listpack limits unknown: the server refused CONFIG GET \(NOPERM/,
    ]);
  });
});
