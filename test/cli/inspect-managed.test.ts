import { beforeAll, describe, it } from 'vitest';
import type { PrivateServer } from '../../src/redis/server.js';
import { ownServer } from '../helpers.js';
import { expectInspectJson, expectLightsJson, inspectJsonArgs, lightsJsonArgs, MEMORY_RENAMED, seed } from './inspect-managed-shared.js';
import { runCli } from './run-cli.js';

// Tables, and a server where an ACL user lacks MEMORY, INFO and CONFIG, run
// in-process (test/integration/commands/inspect-managed.test.ts); a spawn of
// each command shows the same output from the built CLI.
describe('inspect and lights on a server where MEMORY is renamed away (spawned)', () => {
  let server: PrivateServer;
  ownServer((s) => (server = s), { settings: ['rename-command=MEMORY ""'] });
  beforeAll(() => seed(server.url));

  it('show every key and count with bytes null, and say once why', async () => {
    const [json, lights] = await Promise.all([runCli(inspectJsonArgs(server.url)), runCli(lightsJsonArgs(server.url))]);
    expectInspectJson(json, [MEMORY_RENAMED]);
    expectLightsJson(lights);
  });
});
