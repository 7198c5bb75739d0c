import { describe, expect, it } from 'vitest';
import { ServerStartError, UsageError } from '../../src/errors.js';
import { connect, openSession } from '../../src/redis/connect.js';
import { serverArguments, startPrivateServer } from '../../src/redis/server.js';
import { alive } from '../helpers.js';

describe('private redis-server', () => {
  it('starts on a free loopback port with persistence off and stops', async () => {
    const server = await startPrivateServer({ settings: ['hash-max-listpack-entries=128'] });
    const redis = await connect(server.url);
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.config('GET', 'save')).toEqual(['save', '']);
    expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await redis.config('GET', 'hash-max-listpack-entries')).toEqual(['hash-max-listpack-entries', '128']);
    redis.disconnect();
    expect(alive(server.pid)).toBe(true);
    await server.stop();
    await server.stop();
    expect(alive(server.pid)).toBe(false);
  });

  it('reports a setting redis-server rejects as bad input, in one line', async () => {
    for (const setting of ['hash-max-listpack-entries=lots', 'no-such-directive=1']) {
      const error = await startPrivateServer({ settings: [setting] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/^--redis-server-arg: redis-server rejected a setting: .*(integer|Bad directive)/);
    }
  });

  it('says how to install redis-server when it is missing', async () => {
    const error = await startPrivateServer({ binary: '/nonexistent/redis-server' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as Error).message).toMatch(/apt-get install -y redis-server.*--redis-url/);
  });

  it('rejects malformed settings before starting anything', () => {
    expect(() => serverArguments(['no-equals-sign'])).toThrow(UsageError);
  });

  it('a session stops its private server when closed, also after an error in between', async () => {
    const session = await openSession();
    const pid = session.server?.pid ?? -1;
    expect(alive(pid)).toBe(true);
    try {
      await session.redis.call('NO-SUCH-COMMAND');
    } catch {
      // the error a command might hit mid-run
    } finally {
      await session.close();
    }
    expect(alive(pid)).toBe(false);
  });
});
