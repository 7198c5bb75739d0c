import { describe, expect, it } from 'vitest';
import { ServerStartError, UsageError } from '../../../src/core/errors.js';
import { connect, openSession } from '../../../src/redis/connect.js';
import { existsSync } from 'node:fs';
import { checkServerSetting, killPrivateServersNow, serverArguments, startPrivateServer } from '../../../src/redis/server.js';
import { alive } from '../../helpers.js';

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

  it('refuses settings that would detach, expose or move the server, in any case and with a leading --', () => {
    for (const [setting, name] of [
      ['daemonize=yes', 'daemonize'],
      ['--Bind=0.0.0.0', 'bind'],
      ['PROTECTED-MODE=no', 'protected-mode'],
      ['unixsocketperm=777', 'unixsocketperm'],
      ['tls-replication=yes', 'tls-replication'],
      ['appenddirname=/tmp/x', 'appenddirname'],
      ['enable-debug-command=yes', 'enable-debug-command'],
      ['cluster-config-file=/tmp/nodes.conf', 'cluster-config-file'],
    ]) {
      expect(() => checkServerSetting(setting as string)).toThrow(
        new RegExp(`^--redis-server-arg: ${name} is not allowed on the private server \\(.+\\); use --redis-url`),
      );
    }
    // A value cannot smuggle a second directive in.
    expect(() => serverArguments(['maxmemory=1mb --dir /'])).toThrow(/maxmemory: the value must not hold "--" words/);
    expect(() => serverArguments(['maxmemory=1mb\ndir /'])).toThrow(/control characters/);
  });

  it("refuses a maxclients too low for swc's own connections, naming the least it takes", () => {
    for (const value of ['1', '31', 'lots', '-5']) {
      expect(() => checkServerSetting(`maxclients=${value}`)).toThrow(
        new RegExp(`^--redis-server-arg: maxclients must be a whole number of at least 32 on the private server, got "${value}" \\(swc itself opens`),
      );
    }
    expect(checkServerSetting('maxclients=32')).toBe('maxclients=32');
  });

  it('keeps tuning settings, normalised to lower case without dashes', () => {
    expect(serverArguments(['--Hash-Max-Listpack-Entries=128'])).toEqual(['--hash-max-listpack-entries', '128']);
    expect(serverArguments(['rename-command=FLUSHALL ""', 'maxmemory-policy=allkeys-lru'])).toEqual([
      '--rename-command',
      'FLUSHALL',
      '""',
      '--maxmemory-policy',
      'allkeys-lru',
    ]);
  });

  it('allowAnySetting lets a test start a replica, still refusing malformed settings', async () => {
    expect(() => serverArguments(['replicaof=127.0.0.1 6379'])).toThrow(/replicaof is not allowed/);
    expect(serverArguments(['replicaof=127.0.0.1 6379'], { allowAnySetting: true })).toEqual(['--replicaof', '127.0.0.1', '6379']);
    expect(() => serverArguments(['novalue'], { allowAnySetting: true })).toThrow(/expected name=value/);
    const primary = await startPrivateServer();
    const replica = await startPrivateServer({ settings: [`replicaof=127.0.0.1 ${primary.port}`], allowAnySetting: true });
    const redis = await connect(replica.url);
    try {
      expect(await redis.info('replication')).toMatch(/role:slave/);
    } finally {
      redis.disconnect();
      await replica.stop();
      await primary.stop();
    }
  });

  it('killPrivateServersNow kills every running server and removes its folder at once (the exit hook)', async () => {
    const server = await startPrivateServer();
    const redis = await connect(server.url);
    const folder = ((await redis.config('GET', 'dir')) as string[])[1] as string;
    redis.disconnect();
    expect(existsSync(folder)).toBe(true);
    killPrivateServersNow();
    expect(existsSync(folder)).toBe(false);
    await server.stop();
    expect(alive(server.pid)).toBe(false);
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
