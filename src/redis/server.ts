import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ServerStartError, UsageError } from '../errors.js';

/** A redis-server that swc started and owns. */
export interface PrivateServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options for {@link startPrivateServer}. */
export interface PrivateServerOptions {
  /** Settings as `name=value`, passed as `--name value` (e.g. `hash-max-listpack-entries=128`; several words, several arguments). */
  readonly settings?: readonly string[];
  /** The redis-server binary; default `SWC_REDIS_SERVER` or `redis-server` on PATH. */
  readonly binary?: string;
  /** How long to wait for PING; default 10 s. */
  readonly readyTimeoutMs?: number;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills every server still running when the process exits, whatever the reason. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** Parses `name=value` settings into redis-server arguments. */
export function serverArguments(settings: readonly string[]): string[] {
  const args: string[] = [];
  for (const setting of settings) {
    const match = /^([a-z][a-z0-9-]*)=(.*)$/i.exec(setting);
    if (!match?.[1] || match[2] === undefined) {
      throw new UsageError(`--redis-server-arg: expected name=value (e.g. hash-max-listpack-entries=128), got "${setting}"`);
    }
    // Directives with several arguments (`rename-command=SCRIPT OTHER`, `save=900 1`)
    // need one argv entry each; redis-server joins them back into one line.
    const values = match[2].trim() === '' ? [''] : match[2].trim().split(/\s+/);
    args.push(`--${match[1]}`, ...values);
  }
  return args;
}

/** A free TCP port on 127.0.0.1, as the OS hands it out. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPing(port: number, child: ChildProcess, deadline: number, log: () => string): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const why = log() || `exit code ${child.exitCode}`;
      // A setting the server rejects is bad input, not a runtime failure.
      if (/Bad directive|wrong number of arguments|Invalid argument|argument must be|must be|couldn't be parsed/i.test(why)) {
        throw new UsageError(`--redis-server-arg: redis-server rejected a setting: ${why}`);
      }
      throw new ServerStartError(`redis-server exited during start-up: ${why}`);
    }
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      enableReadyCheck: false,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch (err) {
      // A password-protected server answers, which is all this waits for.
      if (err instanceof Error && /NOAUTH|WRONGPASS/.test(err.message)) return;
    } finally {
      probe.disconnect();
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new ServerStartError(`redis-server did not answer PING on port ${port} in time`);
}

/**
 * Starts a redis-server on a free loopback port with persistence off, waits
 * until it answers PING, and returns a handle to stop it. The server is also
 * killed when this process exits.
 */
export async function startPrivateServer(options: PrivateServerOptions = {}): Promise<PrivateServer> {
  const binary = options.binary ?? process.env.SWC_REDIS_SERVER ?? 'redis-server';
  const extra = serverArguments(options.settings ?? []);
  installExitHook();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-redis-'));
    const child = spawn(
      binary,
      [
        '--port', String(port),
        '--bind', '127.0.0.1',
        '--save', '',
        '--appendonly', 'no',
        '--dir', dir,
        '--daemonize', 'no',
        '--logfile', '',
        ...extra,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const spawnFailed = new Promise<never>((_, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        reject(
          err.code === 'ENOENT'
            ? new ServerStartError(
                `redis-server not found ("${binary}"): install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) or pass --redis-url redis://host:port`,
              )
            : new ServerStartError(`cannot start ${binary}: ${err.message}`, { cause: err }),
        );
      });
    });
    running.add(child);
    const cleanup = (): void => {
      running.delete(child);
      rmSync(dir, { recursive: true, force: true });
    };
    const lastLines = (): string =>
      output
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .slice(-3)
        .join(' | ');
    try {
      await Promise.race([waitForPing(port, child, Date.now() + (options.readyTimeoutMs ?? 10_000), lastLines), spawnFailed]);
    } catch (err) {
      child.kill('SIGKILL');
      cleanup();
      lastError = err;
      if (/address already in use/i.test(output)) continue;
      throw err;
    }
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          cleanup();
          resolve();
          return;
        }
        const force = setTimeout(() => child.kill('SIGKILL'), 2000);
        child.once('exit', () => {
          clearTimeout(force);
          cleanup();
          resolve();
        });
        child.kill('SIGTERM');
      });
      return stopped;
    };
    const password = (options.settings ?? []).find((s) => s.startsWith('requirepass='))?.slice('requirepass='.length);
    const auth = password ? `:${encodeURIComponent(password)}@` : '';
    return { url: `redis://${auth}127.0.0.1:${port}`, port, pid: child.pid ?? -1, stop };
  }
  throw lastError instanceof Error ? lastError : new ServerStartError('could not start redis-server');
}
