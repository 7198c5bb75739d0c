import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';

let secured: PrivateServer;
let silent: net.Server;
let silentPort: number;
/** When the silent port last accepted a connection (ms since the epoch). */
let silentAcceptedAt = 0;
beforeAll(async () => {
  secured = await startPrivateServer({ settings: ['requirepass=s3cret'] });
  // Accepts connections and never answers: a firewall that drops, a wrong port on a busy host.
  silent = net.createServer(() => {
    silentAcceptedAt = Date.now();
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await secured.stop();
  silent.close();
});

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
 * doctor, bench and inspect against `url`, one after the other. Each bound is
 * swc's own, beyond this machine's start-up of the moment: a `swc --version`
 * spawned just before (a full run's load has stretched a start past 6 s,
 * which a fixed total failed on). Without `connectedAt`: under 4 s beyond it.
 * With `connectedAt` (a server that accepts and never answers): from swc's
 * connection there to its exit under 4 s (its 3 s wait, then the line and
 * the exit), and under 8 s beyond the start-up in all.
 */
async function expectRuntimeFailure(url: string, hint: RegExp, connectedAt?: () => number): Promise<void> {
  for (const command of [['doctor'], ['bench', '--rate', '10', '--window', '60'], ['inspect', 'some-light']]) {
    const startup = (await runCli(['--version'])).ms;
    const spawned = Date.now();
    const result = await runCli([...command, '--redis-url', url]);
    expect(result.code, `${command[0]}: ${result.stderr}`).toBe(3);
    if (connectedAt) {
      expect(connectedAt()).toBeGreaterThanOrEqual(spawned);
      expect(spawned + result.ms - connectedAt()).toBeLessThan(4000);
      expect(result.ms - startup).toBeLessThan(8000);
    } else {
      expect(result.ms - startup).toBeLessThan(4000);
    }
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(hint);
  }
}

describe('an unusable Redis: exit 3 within 4 s beyond start-up (a silent port: 4 s from the connection), one line saying what to check', () => {
  it('nothing listening on the port: says connection refused', async () => {
    await expectRuntimeFailure(`redis://127.0.0.1:${await freePort()}`, /connection refused/);
  });

  it('a port that accepts and never answers: says no answer within 3 s', async () => {
    await expectRuntimeFailure(`redis://127.0.0.1:${silentPort}`, /no answer within \d s/, () => silentAcceptedAt);
  });

  it('wrong password: says the server refused the password in the URL', async () => {
    await expectRuntimeFailure(
      `redis://:badpass@127.0.0.1:${secured.port}`,
      /the server refused the user name and password in the URL \(wrong password, or no such user\)/,
    );
  });

  it('no password for a server that requires one: says the URL has none (a message of its own, not the wrong-password one)', async () => {
    await expectRuntimeFailure(`redis://127.0.0.1:${secured.port}`, /the server requires a password and the URL has none \(put :<password>@ before the host/);
  });

  it('a database index the server lacks: says database 99 does not exist', async () => {
    await expectRuntimeFailure(`redis://:s3cret@127.0.0.1:${secured.port}/99`, /database 99 does not exist/);
  });

  it('rediss:// against a plain server: names the TLS mismatch and redis://', async () => {
    // The plain server answers a TLS hello with nothing swc can read, so swc may wait out its 3 s too: reached through
    // a relay that notes when swc connects, the bound is swc's own, as for the silent port.
    let connectedAt = 0;
    const relay = net.createServer((socket) => {
      connectedAt = Date.now();
      const upstream = net.connect(secured.port, '127.0.0.1');
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    try {
      const port = (relay.address() as net.AddressInfo).port;
      await expectRuntimeFailure(`rediss://:s3cret@127.0.0.1:${port}`, /(TLS handshake failed|no answer within \d s).*redis:\/\//, () => connectedAt);
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
