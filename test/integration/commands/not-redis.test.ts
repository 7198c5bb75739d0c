/**
 * A server that answers HTTP, or only +PONG, is "not a Redis server" within seconds, from every command,
 * through the same program and error path as the CLI, in the test process (where the fakes run too).
 * test/cli/safety/not-redis.test.ts spawns each command once.
 */
import { describe, expect, it } from 'vitest';
import { FAKES, notRedisServers, VERBS } from '../../not-redis-fakes.js';
import { runInProcess } from '../../unit/in-process.js';

const urls = notRedisServers();

describe('not a Redis server (in-process)', () => {
  it.each(VERBS)('swc %s: exit 3 at the handshake naming it, for an HTTP server and a +PONG-only one', async (verb, extra) => {
    for (const [kind, , pattern] of FAKES) {
      const result = await runInProcess([verb, ...extra, '--redis-url', urls[kind]]);
      // Refused by connect()'s handshake (PING, then ECHO of a random word), which the line names: before, inspect
      // hung 60 s on a SCAN cursor that never ended, clean 30 s, and doctor called the checks ok.
      expect(result.code, `${verb} ${kind}: ${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(pattern);
      expect(result.stderr).toMatch(/not a Redis server/);
    }
  });
});
