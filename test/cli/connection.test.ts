import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS } from '../../src/redis/connect.js';
import { freePort, startPrivateServer, type PrivateServer } from '../../src/redis/server.js';
import { runCli } from './run-cli.js';

let secured: PrivateServer;
beforeAll(async () => {
  secured = await startPrivateServer({ settings: ['requirepass=s3cret'] });
});
afterAll(async () => {
  await secured.stop();
});

/**
 * A listener on a port of its own that counts the connections it accepts: it relays each to the port `to`, or,
 * without one, never answers (a firewall that drops, a wrong port on a busy host). Each command gets its own, so the
 * commands (and the tests) run at once and each count is still one command's.
 */
async function counting(to?: number): Promise<{ port: number; accepted: () => number; close: () => void }> {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    if (to === undefined) return;
    const upstream = net.connect(to, '127.0.0.1');
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, accepted: () => accepted, close: () => server.close() };
}

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
  // Until the port takes a connection; the deadline is a guard against waiting for ever, wide for a loaded machine
  // (100 tries 50 ms apart were about 5 s).
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
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

/** Where one command is pointed: its URL, how many connections it has made there (when that can be counted), what to close after it. */
interface Target {
  readonly url: string;
  readonly connections?: () => number;
  readonly close?: () => void;
}

/** A target behind a counting listener of its own (see counting): `url(port)` is the URL through it. */
const counted =
  (url: (port: number) => string, to?: () => number): (() => Promise<Target>) =>
  async () => {
    const listener = await counting(to?.());
    return { url: url(listener.port), connections: listener.accepted, close: listener.close };
  };

/**
 * doctor, bench and inspect, each against a target of its own from `target`: each exits 3 with one line that says
 * what to check, and nothing on stdout. Where the target counts the connections it took, each command made exactly
 * one: swc does not retry a first connection (src/redis/connect.ts), so its wait is the one CONNECT_TIMEOUT_MS the
 * line names, not a multiple of it. These are the mechanism of "fails within seconds"; the seconds themselves, on
 * this machine at its load, are `npm run bench:bounds`'s. `atOnce`: the three commands run at once, for a target
 * that only makes swc wait out its timeout; one after the other where a server answers, whose handshake must come
 * within that timeout (many spawns at once on a loaded machine once made it late).
 */
async function expectRuntimeFailure(target: () => Promise<Target>, hint: RegExp, atOnce = false): Promise<void> {
  const commands = [['doctor'], ['bench', '--rate', '10', '--window', '60'], ['inspect', 'some-light']];
  const one = async (command: string[]): Promise<void> => {
    const { url, connections, close } = await target();
    try {
      const result = await runCli([...command, '--redis-url', url]);
      expect(result.code, `${command[0]}: ${result.stderr}`).toBe(3);
      if (connections) expect(connections(), `${command[0]}: connections`).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(hint);
    } finally {
      close?.();
    }
  };
  if (atOnce) await Promise.all(commands.map(one));
  else for (const command of commands) await one(command);
}

/** The line for a server that accepts and never answers names the wait swc configured. */
const NO_ANSWER = new RegExp(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`);

// Every command of every case has its port, server or counting listener of its own. The cases where swc waits out
// its timeout (a silent port, a TLS mismatch) run at once, with their commands at once, first; then the others, one
// command at a time.
describe('an unusable Redis: exit 3 after one connection attempt, one line saying what to check', () => {
  it.concurrent('a port that accepts and never answers: says no answer within the configured wait, after one connection', async () => {
    await expectRuntimeFailure(
      counted((port) => `redis://127.0.0.1:${port}`),
      NO_ANSWER,
      true,
    );
  });

  it.concurrent('rediss:// against a plain server: names the TLS mismatch and redis://', async () => {
    // The plain server answers a TLS hello with nothing swc can read, so swc may wait out its timeout too.
    await expectRuntimeFailure(
      counted(
        (port) => `rediss://:s3cret@127.0.0.1:${port}`,
        () => secured.port,
      ),
      new RegExp(`(TLS handshake failed|${NO_ANSWER.source}).*redis://`),
      true,
    );
  });

  it.concurrent('redis:// against a TLS-only server (needs openssl for a certificate): names rediss://', async (context) => {
    context.skip(!hasOpenssl, 'no openssl for a certificate');
    const tls = await startTlsServer();
    try {
      await expectRuntimeFailure(async () => ({ url: `redis://127.0.0.1:${tls.port}` }), /rediss:\/\//, true);
    } finally {
      tls.stop();
    }
  });

  it('nothing listening on the port: says connection refused', async () => {
    await expectRuntimeFailure(async () => ({ url: `redis://127.0.0.1:${await freePort()}` }), /connection refused/);
  });

  it('wrong password: says the server refused the password in the URL', async () => {
    await expectRuntimeFailure(
      counted(
        (port) => `redis://:badpass@127.0.0.1:${port}`,
        () => secured.port,
      ),
      /the server refused the user name and password in the URL \(wrong password, or no such user\)/,
    );
  });

  it('no password for a server that requires one: says the URL has none (a message of its own, not the wrong-password one)', async () => {
    await expectRuntimeFailure(
      counted(
        (port) => `redis://127.0.0.1:${port}`,
        () => secured.port,
      ),
      /the server requires a password and the URL has none \(put :<password>@ before the host/,
    );
  });

  it('a database index the server lacks: says database 99 does not exist', async () => {
    await expectRuntimeFailure(
      counted(
        (port) => `redis://:s3cret@127.0.0.1:${port}/99`,
        () => secured.port,
      ),
      /database 99 does not exist/,
    );
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
