/**
 * A server that answers HTTP, or only +PONG, is "not a Redis server" within seconds, from every command:
 * a spawned process per command here (its kind of fake alternates), every command against both kinds
 * in-process in test/integration/commands/not-redis.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FAKES, notRedisServers, VERBS } from '../../not-redis-fakes.js';
import { runCli } from '../run-cli.js';

const urls = notRedisServers();

// The fakes answer every connection alike: the commands are spawned at once.
describe.concurrent('not a Redis server', () => {
  it.each(VERBS.map(([verb, extra], i) => [verb, FAKES[i % FAKES.length]![0], extra] as const))(
    'swc %s against the %s fake: exit 3 at the handshake naming it, as a process',
    async (verb, kind, extra) => {
      const [, , pattern] = FAKES.find(([name]) => name === kind)!;
      const result = await runCli([verb, ...extra, '--redis-url', urls[kind]], {}, 30_000);
      expect(result.code, `${verb} ${kind}: ${result.stderr}`).toBe(3);
      // Refused by connect()'s handshake, which the line names: before, inspect hung 60 s, clean 30 s, and doctor
      // called the checks ok. (runCli's 30 s is a guard against a hang, not a speed bound.)
      expect(result.signal).toBeNull();
      expect(result.stderr).toMatch(pattern);
    },
  );
});
