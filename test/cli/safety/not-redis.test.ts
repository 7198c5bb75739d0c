/** A server that answers HTTP, or only +PONG, is "not a Redis server" within seconds, from every command. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run-cli.js';

const fakes: net.Server[] = [];
const ports: Record<string, number> = {};

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
async function fake(reply: string): Promise<number> {
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
  fakes.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  ports.http = await fake('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  ports.pong = await fake('+PONG\r\n');
});
afterAll(() => {
  for (const s of fakes) s.close();
});

// The fakes answer every connection alike: the commands are spawned at once.
describe.concurrent('not a Redis server', () => {
  it.each([
    ['doctor', []],
    ['inspect', ['some-light']],
    ['lights', []],
    ['clean', []],
    ['bench', ['--rate', '1', '--window', '30']],
    ['verify', ['--calls', '10']],
  ])('swc %s: exit 3 within 10 s naming it, for an HTTP server and a +PONG-only one', async (verb, extra) => {
    const kinds = [
      ['http', /not a Redis server \(its reply is not the Redis protocol/],
      ['pong', /not a Redis server \(it answered ECHO swc-[0-9a-f]+ with "PONG"\)/],
    ] as const;
    const results = await Promise.all(kinds.map(([kind]) => runCli([verb, ...extra, '--redis-url', `redis://127.0.0.1:${ports[kind]}`], {}, 30_000)));
    kinds.forEach(([kind, pattern], i) => {
      const result = results[i]!;
      expect(result.code, `${verb} ${kind}: ${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(pattern);
      // Before: inspect hung 60 s, clean 30 s, doctor called the checks ok.
      expect(result.ms).toBeLessThan(10_000);
    });
  });
});
