/** A server that answers HTTP, or only +PONG, is "not a Redis server" within seconds, from every command. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';

const fakes: net.Server[] = [];
const ports: Record<string, number> = {};

/** A TCP server answering `reply` to every chunk it gets. */
async function fake(reply: string): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on('data', () => socket.write(reply));
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

describe('not a Redis server', () => {
  it.each([
    ['doctor', []],
    ['inspect', ['some-light']],
    ['lights', []],
    ['clean', []],
    ['bench', ['--rate', '1', '--window', '30']],
    ['verify', ['--calls', '10']],
  ])('swc %s: exit 3 within 10 s naming it, for an HTTP server and a +PONG-only one', async (verb, extra) => {
    for (const [kind, pattern] of [
      ['http', /not a Redis server \(its reply is not the Redis protocol/],
      ['pong', /not a Redis server \(it answered ECHO swc-[0-9a-f]+ with "PONG"\)/],
    ] as const) {
      const result = await runCli([verb, ...extra, '--redis-url', `redis://127.0.0.1:${ports[kind]}`], {}, 30_000);
      expect(result.code, `${verb} ${kind}: ${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(pattern);
      // Before: inspect hung 60 s, clean 30 s, doctor called the checks ok.
      expect(result.ms).toBeLessThan(10_000);
    }
  });
});
