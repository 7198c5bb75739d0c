import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ServerStartError, UsageError } from '../core/errors.js';
import { checkServerSetting, wellFormed } from './server-settings.js';

/** A redis-server that swc started and owns. */
export interface PrivateServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Starts another private server with the same binary and settings (its own
   * port and folder); `under` runs it under a wrapper (valgrind, for counting
   * instructions) with a longer start-up allowance.
   */
  startSibling(under?: Pick<PrivateServerOptions, 'wrapper' | 'readyTimeoutMs'>): Promise<PrivateServer>;
  /** The folder the server works in (removed by stop): a wrapper's output files go here. */
  readonly dir?: string;
  /** Settles when the server's process has ended, for any reason (a {@link stop} too): how it ended. */
  readonly exited?: Promise<{ readonly code: number | null; readonly signal: string | null }>;
}

/** Options for {@link startPrivateServer}. */
export interface PrivateServerOptions {
  /** Settings as `name=value`, passed as `--name value` (e.g. `hash-max-listpack-entries=128`; several words, several arguments). */
  readonly settings?: readonly string[];
  /** The redis-server binary; default `SWC_REDIS_SERVER` or `redis-server` on PATH. */
  readonly binary?: string;
  /** How long to wait for PING; default 10 s. */
  readonly readyTimeoutMs?: number;
  /**
   * Lets settings through that {@link checkServerSetting} refuses (a test
   * that needs a replica, say); still only well-formed ones. The CLI never
   * sets it: `--redis-server-arg` is always checked.
   */
  readonly allowAnySetting?: boolean;
  /**
   * A command the server runs under, before the binary (`valgrind
   * --tool=callgrind …`); `{dir}` in its words becomes the server's temp
   * folder. The process is still the server's own pid (valgrind runs the
   * program in its own process).
   */
  readonly wrapper?: readonly string[];
}

/** Every server this process started and has not stopped yet, with the folder to remove after it. */
const running = new Map<ChildProcess, string>();
let exitHookInstalled = false;

/**
 * Kills every server still running and removes its folder, synchronously.
 * Runs on `exit` whatever the reason, also on a second Ctrl-C that does not
 * wait for the orderly stop.
 */
export function killPrivateServersNow(): void {
  for (const [child, dir] of running) {
    killGroup(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  running.clear();
}

/**
 * Signals a child swc spawned `detached` (so it leads a process group of its
 * own) and everything in that group: a `--redis-server` wrapper script's
 * redis-server, valgrind's server. Falls back to the child alone.
 */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/**
 * Arms a watchdog for a child swc spawned `detached`: a SIGKILL of swc runs
 * no handler, but the watchdog holds the read end of a pipe from swc, sees it
 * close when swc dies however it dies, kills the child's whole process group
 * and removes `dir`. The watchdog has its own process group, so a terminal's
 * Ctrl-C does not reach it; when the child exits it kills the rest of the
 * child's group (a wrapper's orphan) and the watchdog, so it never acts late.
 */
export function guardChild(child: ChildProcess, dir: string): void {
  if (child.pid === undefined) return;
  const watchdog = spawn('sh', ['-c', 'read _; kill -9 "-$1" 2>/dev/null; kill -9 "$1" 2>/dev/null; rm -rf "$2"', 'swc-watchdog', String(child.pid), dir], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.once('exit', () => {
    killGroup(child, 'SIGKILL');
    watchdog.kill('SIGKILL');
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killPrivateServersNow);
}

export { checkServerSetting, MIN_PRIVATE_MAXCLIENTS } from './server-settings.js';

/** Settings whose value is a secret: passed as one word, and never shown in a start-up error. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(['requirepass', 'masterauth']);

/** The values of secret settings among `settings`, to mask in redis-server's output. */
function secretsOf(settings: readonly string[]): string[] {
  return settings
    .map((s) => /^(?:--)?([a-z][a-z0-9-]*)=(.*)$/is.exec(s))
    .filter((m): m is RegExpExecArray => m !== null && SECRET_SETTINGS.has((m[1] ?? '').toLowerCase()) && (m[2] ?? '').trim() !== '')
    .map((m) => (m[2] as string).trim());
}

/** Parses `name=value` settings into redis-server arguments, refusing the ones {@link checkServerSetting} refuses. */
export function serverArguments(settings: readonly string[], { allowAnySetting = false } = {}): string[] {
  const args: string[] = [];
  const check = allowAnySetting ? wellFormed : checkServerSetting;
  for (const setting of settings.map(check)) {
    const eq = setting.indexOf('=');
    const value = setting.slice(eq + 1).trim();
    // Directives with several arguments (`rename-command=SCRIPT OTHER`, `save=900 1`)
    // need one argv entry each; redis-server joins them back into one line.
    // A secret is one word whatever it holds (a password with a space): redis-server quotes each argv word back into the line.
    const name = setting.slice(0, eq);
    args.push(`--${name}`, ...(value === '' ? [''] : SECRET_SETTINGS.has(name) ? [value] : value.split(/\s+/)));
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

async function waitForPing(port: number, child: ChildProcess, deadline: number, log: () => string, userSettings: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.signalCode !== null ? `killed by ${child.signalCode}` : `exit code ${child.exitCode}`;
      const why = log();
      // A setting the server rejects is bad input, not a runtime failure; with no setting given, the server itself died.
      if (userSettings > 0 && /Bad directive|wrong number of arguments|Invalid argument|argument must be|must be|couldn't be parsed/i.test(why)) {
        throw new UsageError(`--redis-server-arg: redis-server rejected a setting: ${why}`);
      }
      throw new ServerStartError(
        `redis-server died at start (${how}) before it answered PING: ${why ? `its last log line: ${why.split(' | ').at(-1)}` : 'it wrote no log line'}`,
      );
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
  const extra = serverArguments(options.settings ?? [], { allowAnySetting: options.allowAnySetting ?? false });
  installExitHook();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-redis-'));
    const wrapper = (options.wrapper ?? []).map((word) => word.replaceAll('{dir}', dir));
    const child = spawn(
      wrapper[0] ?? binary,
      [
        ...(wrapper.length > 0 ? [...wrapper.slice(1), binary] : []),
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--logfile',
        '',
        ...extra,
      ],
      // Its own process group, so the watchdog (and stop) reach a wrapper's
      // children too; a wrapper's temp files (valgrind's) go to its folder.
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: wrapper.length > 0 ? { ...process.env, TMPDIR: dir } : process.env },
    );
    guardChild(child, dir);
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
    running.set(child, dir);
    const cleanup = (): void => {
      running.delete(child);
      rmSync(dir, { recursive: true, force: true });
    };
    const secrets = secretsOf(options.settings ?? []);
    const lastLines = (): string =>
      secrets
        .reduce((text, secret) => text.split(secret).join('***'), output)
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .slice(-3)
        .join(' | ');
    try {
      await Promise.race([waitForPing(port, child, Date.now() + (options.readyTimeoutMs ?? 10_000), lastLines, (options.settings ?? []).length), spawnFailed]);
    } catch (err) {
      killGroup(child, 'SIGKILL');
      cleanup();
      lastError = err;
      if (/address already in use/i.test(output)) continue;
      throw err;
    }
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          cleanup();
          resolve();
          return;
        }
        const force = setTimeout(() => killGroup(child, 'SIGKILL'), 2000);
        child.once('exit', () => {
          clearTimeout(force);
          cleanup();
          resolve();
        });
        killGroup(child, 'SIGTERM');
      });
      return stopped;
    };
    const password = (options.settings ?? [])
      .map(wellFormed)
      .find((s) => s.startsWith('requirepass='))
      ?.slice('requirepass='.length)
      .trim();
    const auth = password ? `:${encodeURIComponent(password)}@` : '';
    return {
      url: `redis://${auth}127.0.0.1:${port}`,
      port,
      pid: child.pid ?? -1,
      stop,
      dir,
      exited,
      startSibling: (under) => startPrivateServer({ ...options, ...under }),
    };
  }
  throw lastError instanceof Error ? lastError : new ServerStartError('could not start redis-server');
}
