import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { connect, CONNECT_TIMEOUT_MS } from '../../src/redis/connect.js';
import { parseInfo } from '../../src/redis/info.js';
import { freePort, startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';

let secured: PrivateServer;
/** A connection to `secured`, open from the start: it reads the server's own count of connections received. */
let watcher: Redis;
let silent: net.Server;
let silentPort: number;
/** How many connections the silent port has accepted. */
let silentAccepted = 0;
beforeAll(async () => {
  secured = await startPrivateServer({ settings: ['requirepass=s3cret'] });
  watcher = await connect(`redis://:s3cret@127.0.0.1:${secured.port}`);
  // Accepts connections and never answers: a firewall that drops, a wrong port on a busy host.
  silent = net.createServer(() => {
    silentAccepted += 1;
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as net.AddressInfo).port;
});
afterAll(async () => {
  watcher.disconnect();
  await secured.stop();
  silent.close();
});

/** `secured`'s own count of the connections it has received (INFO stats). */
const securedConnections = async (): Promise<number> => Number(parseInfo(await watcher.info('stats')).total_connections_received);

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A redis-server that speaks only TLS, with a throw-away self-signed certificate. */
async function startTlsServer(): Promise<{ port: number; stop: () => void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-tls-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], {
    stdio: 'ignore',
  });
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      cert,
      '--tls-key-file',
      key,
      '--tls-ca-cert-file',
      cert,
      '--tls-auth-clients',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    stop: () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * doctor, bench and inspect against `url`, one after the other: each exits 3 with one line that says what to check,
 * and nothing on stdout. Where `connections` counts the connections the server (or a listener in front of it) took,
 * each command made exactly one: swc does not retry a first connection (src/redis/connect.ts), so its wait is the
 * one CONNECT_TIMEOUT_MS the line names, not a multiple of it. These are the mechanism of "fails within seconds";
 * the seconds themselves, on this machine at its load, are `npm run bench:bounds`'s.
 */
async function expectRuntimeFailure(url: string, hint: RegExp, connections?: () => number | Promise<number>): Promise<void> {
  for (const command of [['doctor'], ['bench', '--rate', '10', '--window', '60'], ['inspect', 'some-light']]) {
    const before = await connections?.();
    const result = await runCli([...command, '--redis-url', url]);
    expect(result.code, `${command[0]}: ${result.stderr}`).toBe(3);
    if (connections) expect((await connections()) - (before as number), `${command[0]}: connections`).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(hint);
  }
}

/** The line for a server that accepts and never answers names the wait swc configured. */
const NO_ANSWER = new RegExp(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`);

describe('an unusable Redis: exit 3 after one connection attempt, one line saying what to check', () => {
  it('nothing listening on the port: says connection refused', async () => {
    await expectRuntimeFailure(`redis://127.0.0.1:${await freePort()}`, /connection refused/);
  });

  it('a port that accepts and never answers: says no answer within the configured wait, after one connection', async () => {
    await expectRuntimeFailure(`redis://127.0.0.1:${silentPort}`, NO_ANSWER, () => silentAccepted);
  });

  it('wrong password: says authentication failed, check the password', async () => {
    await expectRuntimeFailure(`redis://:wrong@127.0.0.1:${secured.port}`, /authentication failed.*password/, securedConnections);
  });

  it('no password for a server that requires one: says authentication failed', async () => {
    await expectRuntimeFailure(`redis://127.0.0.1:${secured.port}`, /authentication failed/, securedConnections);
  });

  it('a database index the server lacks: says database 99 does not exist', async () => {
    await expectRuntimeFailure(`redis://:s3cret@127.0.0.1:${secured.port}/99`, /database 99 does not exist/, securedConnections);
  });

  it('rediss:// against a plain server: names the TLS mismatch and redis://', async () => {
    // The plain server answers a TLS hello with nothing swc can read, so swc may wait out its timeout too: reached
    // through a relay that counts swc's connections.
    let relayed = 0;
    const relay = net.createServer((socket) => {
      relayed += 1;
      const upstream = net.connect(secured.port, '127.0.0.1');
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    try {
      const port = (relay.address() as net.AddressInfo).port;
      await expectRuntimeFailure(`rediss://:s3cret@127.0.0.1:${port}`, new RegExp(`(TLS handshake failed|${NO_ANSWER.source}).*redis://`), () => relayed);
    } finally {
      relay.close();
    }
  });

  it.skipIf(!hasOpenssl)('redis:// against a TLS-only server (needs openssl for a certificate): names rediss://', async () => {
    const tls = await startTlsServer();
    try {
      await expectRuntimeFailure(`redis://127.0.0.1:${tls.port}`, /rediss:\/\//);
    } finally {
      tls.stop();
    }
  });
});

describe('--redis-url values that are not URLs', () => {
  const SECRET = 'Pw0nlyS3cret';

  it('a pasted password alone is refused with exit 2 and never echoed, by every command', async () => {
    const commands = [['lights'], ['doctor', '--json'], ['clean'], ['inspect', 'x'], ['verify']];
    const results = await Promise.all(commands.map((args) => runCli([...args, '--redis-url', SECRET])));
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      // The hint used to be mangled by the scrubber into "redis://***@]host".
      expect(result.stderr).toMatch(/^swc: --redis-url: not a URL \(value not shown.*with user:password@ before the host when needed\)$/m);
    }
    const fromEnv = await runCli(['lights'], { REDIS_URL: SECRET });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain(SECRET);
  });

  // A bare host:port's fix and ?db=x as a usage error are checked in-process in
  // test/integration/commands/redis-url.test.ts.
});
