import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateServer, type PrivateServer } from '../../../src/redis/server.js';
import { redisUrl } from '../../helpers.js';
import { runInProcess } from '../../unit/in-process.js';
import { everyCommand, expectNoSecret, PASSWORD } from '../../unit/secrets-cases.js';

let locked: PrivateServer;
beforeAll(async () => {
  // A server whose password is not PASSWORD: every attempt below is a wrong password.
  locked = await startPrivateServer({ settings: ['requirepass=another-one'] });
});
afterAll(async () => {
  await locked.stop();
});

// The spawned CLI checks only what a process alone shows, per command: a
// closed port and the client's warnings (test/cli/secrets.test.ts); every
// wrong-password form runs here through the same program and error path,
// without a process each.
describe('a password in a Redis URL is never printed (in-process, every command)', () => {
  it.each([
    ['in user-info', (port: number) => `redis://:${PASSWORD}@127.0.0.1:${port}`],
    ['with a user name', (port: number) => `redis://default:${PASSWORD}@127.0.0.1:${port}`],
    ['as ?password=', (port: number) => `redis://127.0.0.1:${port}?password=${PASSWORD}`],
  ])('wrong password %s: exit 3', async (_, url) => {
    await everyCommand(url(locked.port), 3);
  });

  it('a host that does not resolve, password in user-info and in the query: exit 3', async () => {
    await everyCommand(`redis://u:${PASSWORD}@no-such-host.invalid:6379?password=${PASSWORD}`, 3);
  });

  it('doctor names the server redacted, in its header and in its JSON', async () => {
    const host = new URL(redisUrl()).host;
    const url = `redis://:${PASSWORD}@${host}/0?password=${PASSWORD}`;
    const human = await runInProcess(['doctor', '--redis-url', url]);
    expectNoSecret(human, human.stdout);
    expect(human.stdout).toContain(`redis://:***@${host}/0?password=***`);
    const json = await runInProcess(['doctor', '--json'], { REDIS_URL: url });
    expectNoSecret(json, json.stdout);
    expect((JSON.parse(json.stdout) as { redis: { url: string } }).redis.url).toContain('password=***');
  });
});
