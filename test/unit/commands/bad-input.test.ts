import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// Every case must fail before anything is sent to Redis. Two witnesses check
// that: a listener standing in for a Redis URL counts the connections it gets,
// and a stand-in for redis-server records every private server it was asked to
// start (and starts none: this lane has no redis-server). The one case that
// redis-server itself must judge is in test/cli/bad-input.test.ts.
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-bad-input-'));
const starts = path.join(dir, 'starts');
const recorder = path.join(dir, 'redis-server');
writeFileSync(recorder, `#!/bin/sh\necho "$$" >> '${starts}'\nexit 1\n`);
chmodSync(recorder, 0o755);
let connections = 0;
let witness: net.Server;
let witnessUrl = '';
beforeAll(async () => {
  witness = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((r) => witness.listen(0, '127.0.0.1', r));
  witnessUrl = `redis://127.0.0.1:${(witness.address() as net.AddressInfo).port}`;
});
afterAll(() => {
  witness.close();
  rmSync(dir, { recursive: true, force: true });
});
const serversStarted = (): number => {
  try {
    return readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

/** A scenario file with these fields, for the cases that check file fields. */
function scenario(name: string, fields: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(fields));
  return file;
}
const TOO_MUCH_IN_FLIGHT = scenario('in-flight.json', { throughput: { connections: 1000, pipeline: 1000 } });
const SOME_IN_FLIGHT = scenario('some-in-flight.json', { throughput: { connections: 100, pipeline: 100 } });
const NO_EVENTS = scenario('no-events.json', { rates: [0.001], windows: [60] });

/**
 * [arguments, the flag (or word) the one-line message must name, extra
 * environment].
 * `URL` stands for a listener that must get no connection.
 */
const CASES: [string[], string, NodeJS.ProcessEnv?][] = [
  [['bench', '--rate', '0'], '--rate'],
  [['bench', '--rate', '-5'], '--rate'],
  [['bench', '--rate', 'abc'], '--rate'],
  [['bench', '--rate', ''], '--rate'],
  [['bench', '--rate', '10,,20'], '--rate'],
  [['bench', '--rate', '1000000'], '--rate'],
  [['bench', '--rate', 'NaN'], '--rate'],
  [['bench', '--window', '0'], '--window'],
  [['bench', '--window', '-1'], '--window'],
  [['bench', '--window', '5x'], '--window'],
  [['bench', '--window', '2d'], '--window'],
  [['bench', '--window', ''], '--window'],
  [['bench', '--window', '1m,'], '--window'],
  [['bench', '--layout', 'nope'], '--layout'],
  [['bench', '--layout', 'stoplight-v5,bogus'], '--layout'],
  [['bench', '--failure-rate', '1.5'], '--failure-rate'],
  [['bench', '--failure-rate', '-0.1'], '--failure-rate'],
  [['bench', '--failure-rate', 'half'], '--failure-rate'],
  [['bench', '--lights', '0'], '--lights'],
  [['bench', '--lights', '2.5'], '--lights'],
  [['bench', '--lights', '100000'], '--lights'],
  [['bench', '--duration', '0'], '--duration'],
  [['bench', '--duration', '30d'], '--duration'],
  [['bench', '--duration', 'soon'], '--duration'],
  [['bench', '--preset', 'nope'], '--preset'],
  [['bench', '--seed', '-1'], '--seed'],
  [['bench', '--seed', '1.5'], '--seed'],
  [['bench', '--seed', '99999999999'], '--seed'],
  [['bench', '--format', 'xml'], '--format'],
  [['bench', '--connections', '0'], '--connections'],
  [['bench', '--connections', '5000'], '--connections'],
  [['bench', '--pipeline', '0'], '--pipeline'],
  [['bench', '--ops', '0'], '--ops'],
  [['bench', '--time', '0'], '--time'],
  [['bench', '--ops', '10', '--time', '1'], '--ops'],
  [['bench', '--window', '1.5s'], '--window'],
  [['bench', '--redis-url', 'http://localhost'], '--redis-url'],
  [['bench', '--redis-url', 'notaurl'], '--redis-url'],
  [['bench', '--redis-url', 'redis://localhost:99999'], '--redis-url'],
  [['bench', '--redis-url', 'redis://localhost/abc'], '--redis-url'],
  [['bench', '--redis-server-arg', 'novalue'], '--redis-server-arg'],
  [['bench', '--redis-url', 'URL', '--redis-server-arg', 'maxmemory=1mb'], '--redis-server-arg'],
  [['bench', '--rate', '100000', '--window', '1d', '--lights', '10'], '--rate'],
  [['bench', '--bogus'], '--bogus'],
  [['bench'], 'REDIS_URL', { REDIS_URL: 'ftp://example', SWC_USE_REDIS_URL: '1' }],
  [['lights'], 'REDIS_URL', { REDIS_URL: 'ftp://example' }],
  [['doctor', '--redis-url', 'x://y'], '--redis-url'],
  [['bench', '--json', '--format', 'csv'], '--format'],
  [['bench', '--no-throughput', '--connections', '8'], '--connections'],
  [['inspect', 'x', '--window', '2w'], '--window'],
  [['doctor', '--redis-server-arg', '=x'], '--redis-server-arg'],
  [['inspect'], 'light'],
  [['inspect', 'x', '--window', '0'], '--window'],
  [['inspect', 'x', '--at', 'abc'], '--at'],
  [['inspect', 'x', '--limit', '-1'], '--limit'],
  [['inspect', 'x', '--layout', 'bogus'], '--layout'],
  [['inspect', 'x', '--redis-url', 'nope'], '--redis-url'],
  [['lights', '--redis-url', 'nope'], '--redis-url'],
  [['nope'], 'nope'],
  [
    ['bench', '--connections', '1000', '--pipeline', '10000'],
    '--connections/--pipeline: 1,000 connections × 10,000 calls per batch = 10,000,000 calls in flight; at most 50,000',
  ],
  [['bench', '--connections', '101', '--pipeline', '500'], '--connections/--pipeline'],
  [['bench', '--scenario', TOO_MUCH_IN_FLIGHT], 'throughput.connections/throughput.pipeline'],
  [['bench', '--scenario', SOME_IN_FLIGHT, '--pipeline', '10000'], '--connections/--pipeline: 100 connections × 10,000'],
  [['bench', '--rate', '0.001', '--window', '60'], '--rate/--window: rate 0.001/s for 60 s rounds to 0 events per light'],
  [['bench', '--rate', '0.01', '--window', '1h', '--duration', '10'], '--rate/--duration'],
  [['bench', '--scenario', NO_EVENTS], 'no-events.json: rates/windows/duration or --rate/--window: rate 0.001/s for 60 s'],
  [['bench', '--redis-server-arg', 'daemonize=yes'], '--redis-server-arg: daemonize'],
  [['bench', '--redis-server-arg', 'Dir=/tmp'], '--redis-server-arg: dir'],
];

describe('bad input: exit 2, one line naming the flag, nothing sent to Redis and no server started', () => {
  it.each(CASES.map(([args, flag, env]) => [args.join(' ').replace(dir, '…'), flag.split(':')[0], args, flag, env ?? {}] as const))(
    'swc %s: exit 2 naming %s',
    async (_label, _named, args, flag, env) => {
      const started = serversStarted();
      const before = connections;
      const result = await runInProcess(
        args.map((a) => (a === 'URL' ? witnessUrl : a)),
        { SWC_REDIS_SERVER: recorder, ...env },
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(flag);
      expect(lines[0]).toMatch(/^swc: /);
      expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
      expect(connections - before, 'connections to the --redis-url listener').toBe(0);
      expect(serversStarted() - started, 'private servers started').toBe(0);
    },
  );
});
