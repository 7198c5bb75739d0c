/**
 * TCP servers that are not Redis, in the test process: one answers HTTP, one
 * only +PONG. Shared by test/cli/safety/not-redis.test.ts (spawned swc) and
 * test/integration/commands/not-redis.test.ts (in-process).
 */
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * How many whole RESP commands `buffer` holds from its start, and where the rest begins. A client may send
 * several commands in one TCP chunk (a pipeline), so answering once per chunk would leave the later ones
 * unanswered and turn "not a Redis server" into a timeout; a +PONG-only server answers every command.
 */
function wholeCommands(buffer: string): { count: number; rest: string } {
  let at = 0;
  let count = 0;
  for (;;) {
    const head = /^\*(\d+)\r\n/.exec(buffer.slice(at));
    if (!head) break;
    let cursor = at + head[0].length;
    let whole = true;
    for (let i = 0; i < Number(head[1]); i += 1) {
      const bulk = /^\$(\d+)\r\n/.exec(buffer.slice(cursor));
      if (!bulk || buffer.length < cursor + bulk[0].length + Number(bulk[1]) + 2) {
        whole = false;
        break;
      }
      cursor += bulk[0].length + Number(bulk[1]) + 2;
    }
    if (!whole) break;
    at = cursor;
    count += 1;
  }
  return { count, rest: buffer.slice(at) };
}

/** A TCP server answering `reply` to every RESP command it gets (and once to anything that is not RESP). */
async function fake(reply: string): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let pending = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      pending += chunk;
      if (!pending.startsWith('*')) {
        pending = '';
        socket.write(reply);
        return;
      }
      const { count, rest } = wholeCommands(pending);
      pending = rest;
      for (let i = 0; i < count; i += 1) socket.write(reply);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The two kinds of fake, and how swc must name each. */
export const FAKES = [
  ['http', 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n', /not a Redis server \(its reply is not the Redis protocol/],
  ['pong', '+PONG\r\n', /not a Redis server \(it answered ECHO swc-[0-9a-f]+ with "PONG"\)/],
] as const;

export type FakeKind = (typeof FAKES)[number][0];

/** Every command that connects, with the arguments it needs besides the URL. */
export const VERBS: readonly (readonly [string, readonly string[]])[] = [
  ['doctor', []],
  ['inspect', ['some-light']],
  ['lights', []],
  ['clean', []],
  ['bench', ['--rate', '1', '--window', '30']],
  ['verify', ['--calls', '10']],
];

/** Starts one fake of each kind before the file's tests and closes them after; returns their URLs, filled in once started. */
export function notRedisServers(): Record<FakeKind, string> {
  const urls = {} as Record<FakeKind, string>;
  const servers: net.Server[] = [];
  beforeAll(async () => {
    for (const [kind, reply] of FAKES) {
      const server = await fake(reply);
      servers.push(server);
      urls[kind] = `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    }
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });
  return urls;
}
