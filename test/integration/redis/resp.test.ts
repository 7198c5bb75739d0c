import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisUnavailableError } from '../../../src/errors.js';
import { StoplightV6 } from '../../../src/layouts/stoplight-v6.js';
import { connect } from '../../../src/redis/connect.js';
import { decodeReplies, ReplyParser, RequestWriter, RespConnection, RespReplyError, type BatchErrors } from '../../../src/redis/resp.js';
import { installScripts, runScript } from '../../../src/redis/scripts.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { startPrivateServer } from '../../../src/redis/server.js';
import { createRng } from '../../../src/traffic/random.js';
import { HOUR_START, redisUrl, uniqueName } from '../../helpers.js';

/** Replies of every RESP2 shape, with errors at the top level and inside arrays. */
const STREAM = [
  '+OK\r\n',
  ':-42\r\n',
  '$5\r\nhe\r\no\r\n', // CRLF inside a bulk string is data
  '$-1\r\n',
  '$0\r\n\r\n',
  '*-1\r\n',
  '*0\r\n',
  '-ERR wrong number of arguments\r\n',
  '*3\r\n:1\r\n*2\r\n$1\r\na\r\n-ERR inside an array is data\r\n*0\r\n',
  '-NOSCRIPT No matching script. Please use EVAL.\r\n',
  `$70000\r\n${'x'.repeat(70_000)}\r\n`,
  '*2\r\n*1\r\n*1\r\n:7\r\n$-1\r\n',
].join('');
const EXPECTED = [null, null, null, null, null, null, null, 'ERR wrong number of arguments', null,
  'NOSCRIPT No matching script. Please use EVAL.', null, null];

function parseInPieces(bytes: Buffer, cuts: readonly number[]): (string | null)[] {
  const seen: (string | null)[] = [];
  const parser = new ReplyParser((error) => seen.push(error));
  // Pieces are copied into one reused buffer, as a socket hands them over.
  const scratch = Buffer.alloc(bytes.length);
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    bytes.copy(scratch, 0, from, cut);
    scratch.fill(0x21, cut - from);
    parser.feed(scratch, cut - from);
    from = cut;
  }
  return seen;
}

describe('decodeReplies (the rare path: loads, re-runs)', () => {
  it('decodes every RESP2 shape, errors as ReplyErrors also inside arrays', () => {
    const replies = decodeReplies(Buffer.from(STREAM), EXPECTED.length);
    expect(replies.slice(0, 7)).toEqual(['OK', -42, 'he\r\no', null, '', null, []]);
    expect(replies[7]).toBeInstanceOf(RespReplyError);
    expect((replies[7] as Error).message).toBe('ERR wrong number of arguments');
    const nested = replies[8] as unknown[];
    expect(nested[0]).toBe(1);
    expect(nested[1]).toEqual(['a', expect.any(RespReplyError)]);
    expect(replies[9]).toMatchObject({ name: 'ReplyError', message: 'NOSCRIPT No matching script. Please use EVAL.' });
    expect((replies[10] as string).length).toBe(70_000);
    expect(replies[11]).toEqual([[[7]], null]);
  });
});

describe('ReplyParser', () => {
  const bytes = Buffer.from(STREAM);

  it('counts top-level replies and keeps top-level error messages', () => {
    expect(parseInPieces(bytes, [])).toEqual(EXPECTED);
  });

  it('gives the same result when every byte arrives on its own', () => {
    expect(parseInPieces(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1))).toEqual(EXPECTED);
  });

  it('gives the same result for random splits', () => {
    const rng = createRng(11);
    for (let round = 0; round < 200; round += 1) {
      const cuts = new Set<number>();
      const count = 1 + Math.floor(rng.next() * 20);
      for (let i = 0; i < count; i += 1) cuts.add(1 + Math.floor(rng.next() * (bytes.length - 1)));
      expect(parseInPieces(bytes, [...cuts].sort((a, b) => a - b))).toEqual(EXPECTED);
    }
  });

  it('rejects bytes that are not RESP2', () => {
    const parser = new ReplyParser(() => undefined);
    expect(() => parser.feed(Buffer.from('HTTP/1.1 400\r\n'))).toThrow(/not a RESP2 reply/);
  });
});

describe('RequestWriter', () => {
  const v6 = new StoplightV6();
  const call = v6.recordSuccess({ name: 'naïve' }, { windowSeconds: 60, at: HOUR_START });
  const encoded = (c: ScriptCall): string => {
    const parts = ['EVALSHA', c.script.sha1, String(c.keys.length), ...c.keys, ...c.args.map(String)];
    return `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
  };

  it('encodes EVALSHA with byte lengths, and copies a repeated call', () => {
    const writer = new RequestWriter();
    const other = v6.getMetrics({ name: 'b' }, { windowSeconds: 60, at: HOUR_START });
    writer.add(call);
    writer.add(call);
    writer.add(other);
    writer.add(call);
    expect(writer.bytes().toString()).toBe(encoded(call) + encoded(call) + encoded(other) + encoded(call));
    writer.reset();
    writer.add(call);
    expect(writer.bytes().toString()).toBe(encoded(call));
  });

  it('encodes every kind of argument as its bytes: ASCII, UTF-8, whole numbers, fractions, negatives, long text', () => {
    const writer = new RequestWriter();
    const calls = [
      { ...call, args: [0, 9, 10, 600, 1_764_450_000, 2 ** 53 + 2, 1_764_450_000.25, -3, 'plain', '', 'naïve ✓', 'x'.repeat(300), 'é'.repeat(300)] },
      { ...call, keys: ['k'], args: ['a'] },
      { ...call, keys: ['other', 'keys'], args: ['a'] },
      { ...call, args: [1, 2, 3] },
    ];
    for (const c of calls) writer.add(c);
    expect(writer.bytes().toString()).toBe(calls.map(encoded).join(''));
  });

  it('re-encodes the head of a call whose keys changed since the script was last used', () => {
    const writer = new RequestWriter();
    const a = v6.recordSuccess({ name: 'a' }, { windowSeconds: 60, at: HOUR_START });
    const b = v6.recordSuccess({ name: 'b' }, { windowSeconds: 60, at: HOUR_START + 1 });
    const a2 = { ...a, keys: [...a.keys], args: [60, '7'] };
    for (const c of [a, b, a2, b]) writer.add(c);
    expect(writer.bytes().toString()).toBe([a, b, a2, b].map(encoded).join(''));
  });

  it('grows past its first buffer', () => {
    const writer = new RequestWriter();
    const big = { ...call, args: ['y'.repeat(40_000), 1] };
    for (let i = 0; i < 3; i += 1) writer.add(i === 1 ? big : call);
    expect(writer.bytes().toString()).toBe(encoded(call) + encoded(big) + encoded(call));
  });
});

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
      await expect(RespConnection.open({ ...own.options, password: 'wrong' })).rejects.toThrow(
        /cannot open a load connection to .*WRONGPASS/,
      );
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
    const killedAt = Date.now();
    process.kill(server.pid, 'SIGKILL');
    await expect(pending).rejects.toThrow(RedisUnavailableError);
    // Far below the 10 s reply timeout: the close itself failed the batch.
    expect(Date.now() - killedAt).toBeLessThan(3000);
    await expect(raw.send(Buffer.from('*1\r\n$4\r\nPING\r\n'), 1)).rejects.toThrow(RedisUnavailableError);
    await server.stop();
  });

  it('fails a batch that gets no reply within the reply timeout', async () => {
    const server = await startPrivateServer();
    const raw = await RespConnection.open({ host: '127.0.0.1', port: server.port }, { replyTimeoutMs: 400 });
    process.kill(server.pid, 'SIGSTOP');
    try {
      const sentAt = Date.now();
      await expect(raw.send(Buffer.from('*1\r\n$4\r\nPING\r\n'), 1)).rejects.toThrow(/no reply within/);
      expect(Date.now() - sentAt).toBeLessThan(3000);
    } finally {
      process.kill(server.pid, 'SIGCONT');
      await server.stop();
    }
  });

  it('cannot open a connection to a port nobody listens on', async () => {
    const server = await startPrivateServer();
    await server.stop();
    await expect(RespConnection.open({ host: '127.0.0.1', port: server.port })).rejects.toThrow(
      /cannot open a load connection .*ECONNREFUSED/,
    );
  });
});
