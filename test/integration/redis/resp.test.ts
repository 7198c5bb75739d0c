import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisUnavailableError } from '../../../src/core/errors.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { connect } from '../../../src/redis/connect.js';
import { RequestWriter, RespConnection, type BatchErrors } from '../../../src/redis/resp.js';
import { installScripts, runScript } from '../../../src/redis/scripts.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { startPrivateServer } from '../../../src/redis/server.js';
import { HOUR_START, redisUrl, uniqueName } from '../../helpers.js';

describe('RespConnection', () => {
  const v6 = new StoplightV6();
  let redis: Redis;
  let connection: RespConnection;

  beforeAll(async () => {
    redis = await connect(redisUrl());
    await installScripts(redis, v6.scripts);
    connection = await RespConnection.open(redis.options);
  });
  afterAll(() => {
    connection.close();
    redis.disconnect();
  });

  const encode = (calls: readonly ScriptCall[]): Buffer => {
    const writer = new RequestWriter();
    for (const call of calls) writer.add(call);
    return Buffer.from(writer.bytes());
  };

  it('runs a batch of calls and resolves once every reply is in', async () => {
    const light = { name: uniqueName('resp') };
    const calls = Array.from({ length: 50 }, (_, i) => v6.recordSuccess(light, { windowSeconds: 60, at: HOUR_START + i }));
    expect(await connection.send(encode(calls), calls.length)).toBeNull();
    const metrics = await runScript(redis, v6.getMetrics(light, { windowSeconds: 60, at: HOUR_START + 49 }));
    expect(v6.parseMetrics(metrics).successes).toBe(50);
  });

  it('reports each error reply at its call and keeps going', async () => {
    const light = { name: uniqueName('wrongtype') };
    await redis.set(v6.metricsKey(light), 'not a hash');
    const good = v6.recordSuccess({ name: uniqueName('good') }, { windowSeconds: 60, at: HOUR_START });
    const bad = v6.recordSuccess(light, { windowSeconds: 60, at: HOUR_START });
    const unknown = { ...good, script: { ...good.script, sha1: 'f'.repeat(40) } };
    const errors = (await connection.send(encode([good, bad, good, unknown, good]), 5)) as BatchErrors;
    expect(errors?.map((e) => (e === null ? null : e.split(' ')[0]))).toEqual([null, 'WRONGTYPE', null, 'NOSCRIPT', null]);
    expect(await connection.send(encode([good]), 1)).toBeNull();
  });

  it('answers batches sent before the one ahead answered, in order, each with its own errors', async () => {
    const light = { name: uniqueName('queued') };
    const good = v6.recordSuccess(light, { windowSeconds: 60, at: HOUR_START });
    const unknown = { ...good, script: { ...good.script, sha1: 'e'.repeat(40) } };
    const batches = [[good, good], [good, unknown, good], [good], [unknown]];
    const sent = batches.map((calls) => connection.send(encode(calls), calls.length));
    expect(connection.inFlight).toBe(4);
    const errors = await Promise.all(sent);
    expect(errors.map((e) => e?.map((x) => (x === null ? null : x.split(' ')[0])) ?? null)).toEqual([null, [null, 'NOSCRIPT', null], null, ['NOSCRIPT']]);
    expect(connection.inFlight).toBe(0);
    const metrics = await runScript(redis, v6.getMetrics(light, { windowSeconds: 60, at: HOUR_START }));
    expect(v6.parseMetrics(metrics).successes).toBe(5);
  });

  it('reads replies that span many socket reads', async () => {
    const key = uniqueName('big');
    await redis.set(key, 'z'.repeat(300_000));
    const get = `*2\r\n$3\r\nGET\r\n$${key.length}\r\n${key}\r\n`;
    expect(await connection.send(Buffer.from(get.repeat(5)), 5)).toBeNull();
    await redis.del(key);
  });

  it('authenticates and selects the database of the URL', async () => {
    const server = await startPrivateServer({ settings: ['requirepass=s3cret'] });
    const own = await connect(`redis://:s3cret@127.0.0.1:${server.port}/3`);
    try {
      const raw = await RespConnection.open(own.options);
      expect(await raw.send(Buffer.from('*3\r\n$3\r\nSET\r\n$4\r\nhere\r\n$1\r\n1\r\n'), 1)).toBeNull();
      raw.close();
      expect(await own.get('here')).toBe('1');
      await expect(RespConnection.open({ ...own.options, password: 'wrong' })).rejects.toThrow(/cannot open a load connection to .*WRONGPASS/);
      await expect(RespConnection.open({ ...own.options, password: undefined })).rejects.toThrow(/NOAUTH/);
    } finally {
      own.disconnect();
      await server.stop();
    }
  });

  it('fails a batch at once when the server dies, and every batch after it', async () => {
    const server = await startPrivateServer();
    const raw = await RespConnection.open({ host: '127.0.0.1', port: server.port });
    // A call that waits for ever: the server dies while it is in flight.
    const pending = raw.send(Buffer.from('*3\r\n$5\r\nBLPOP\r\n$7\r\nnothing\r\n$1\r\n0\r\n'), 1);
    process.kill(server.pid, 'SIGKILL');
    // The close itself failed the batch, not the reply timeout (whose error says "no reply within").
    await expect(pending).rejects.toThrow(RedisUnavailableError);
    await expect(pending).rejects.toThrow(/(the connection was closed|ECONNRESET)$/);
    await expect(raw.send(Buffer.from('*1\r\n$4\r\nPING\r\n'), 1)).rejects.toThrow(RedisUnavailableError);
    await server.stop();
  });

  it('fails a batch that gets no reply within the reply timeout', async () => {
    const server = await startPrivateServer();
    const raw = await RespConnection.open({ host: '127.0.0.1', port: server.port }, { replyTimeoutMs: 400 });
    process.kill(server.pid, 'SIGSTOP');
    try {
      // The configured timeout fired (its error names it), not a close.
      await expect(raw.send(Buffer.from('*1\r\n$4\r\nPING\r\n'), 1)).rejects.toThrow(/no reply within 400 ms$/);
    } finally {
      process.kill(server.pid, 'SIGCONT');
      await server.stop();
    }
  });

  it('cannot open a connection to a port nobody listens on', async () => {
    const server = await startPrivateServer();
    await server.stop();
    await expect(RespConnection.open({ host: '127.0.0.1', port: server.port })).rejects.toThrow(/cannot open a load connection .*ECONNREFUSED/);
  });
});
