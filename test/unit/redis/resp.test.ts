import { describe, expect, it } from 'vitest';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { decodeReplies, ReplyParser, RequestWriter, RespReplyError } from '../../../src/redis/resp.js';
import { createRng } from '../../../src/traffic/random.js';
import { HOUR_START } from '../../helpers.js';

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
const EXPECTED = [null, null, null, null, null, null, null, 'ERR wrong number of arguments', null, 'NOSCRIPT No matching script. Please use EVAL.', null, null];

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
    expect(
      parseInPieces(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(EXPECTED);
  });

  it('gives the same result for random splits', () => {
    const rng = createRng(11);
    for (let round = 0; round < 200; round += 1) {
      const cuts = new Set<number>();
      const count = 1 + Math.floor(rng.next() * 20);
      for (let i = 0; i < count; i += 1) cuts.add(1 + Math.floor(rng.next() * (bytes.length - 1)));
      expect(
        parseInPieces(
          bytes,
          [...cuts].sort((a, b) => a - b),
        ),
      ).toEqual(EXPECTED);
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
