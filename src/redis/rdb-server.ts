import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, mkdtempSync, openSync, readSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { EnvironmentError, ServerStartError, UsageError } from '../core/errors.js';
import { guardChild, killGroup } from './server.js';

/** The Redis release that first wrote each RDB version: the oldest build that loads a file of that version. */
const RDB_VERSION_BUILDS: Readonly<Record<number, string>> = {
  6: 'Redis 2.6',
  7: 'Redis 3.2',
  8: 'Redis 4.0',
  9: 'Redis 5.0',
  10: 'Redis 7.0',
  11: 'Redis 7.2 (or Valkey 7.2/8.0)',
  12: 'Redis 7.4',
};

/** Loading a snapshot this large or slow is not a thing to wait for forever: past this, swc gives up. */
const LOAD_TIMEOUT_MS = 10 * 60_000;

/**
 * redis-server opens its unix socket before it loads the file (and answers
 * LOADING meanwhile): a binary with no socket after this long is not
 * starting a redis-server (a wrapper that hangs, say), whatever the file.
 */
export const SOCKET_TIMEOUT_MS = 10_000;

/** A snapshot loaded into a private server that listens on a unix socket only. */
export interface RdbServer {
  readonly redis: Redis;
  /** `unix:<socket path>`, for messages. */
  readonly url: string;
  /** The RDB version the file declares. */
  readonly rdbVersion: number;
  stop(): Promise<void>;
}

/** The RDB version a file declares in its header (`REDIS0012`); a UsageError when it is not an RDB file. */
export function rdbVersionOf(file: string): number {
  let stat;
  try {
    stat = statSync(file);
  } catch (err) {
    throw new UsageError(`--rdb: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`--rdb: ${file} is not a file`);
  const header = Buffer.alloc(9);
  const fd = openSync(file, 'r');
  let read = 0;
  try {
    read = readSync(fd, header, 0, 9, 0);
  } finally {
    closeSync(fd);
  }
  const text = header.subarray(0, read).toString('latin1');
  const match = /^REDIS(\d{4})$/.exec(text);
  if (!match) throw new UsageError(`--rdb: ${file} is not an RDB file (it does not start with REDIS and a 4-digit version)`);
  return Number(match[1]);
}

/** Why redis-server refused the file, as one line for the user. */
function loadFailure(file: string, version: number, binary: string, output: string, listened: boolean): Error {
  // redis-server prints its banner or a log line before it reads the file: a
  // binary that printed neither and never listened is not a redis-server.
  if (!listened && !/redis|valkey|\d+:[CMSX] /i.test(output)) {
    const said = output.trim().split('\n').at(-1)?.trim();
    return new UsageError(
      `--redis-server: ${binary} exited at once without a redis-server's log or socket (no version line${said ? `; it said: ${said.slice(0, 200)}` : ''}): it is not a redis-server; give --redis-server <path to redis-server>`,
    );
  }
  const builds = RDB_VERSION_BUILDS[version];
  if (/Can't handle RDB format version|RDB format version \d+ is not supported|unsupported RDB version/i.test(output)) {
    return new UsageError(
      `--rdb: ${file} is RDB version ${version}; ${binary} cannot load it` +
        (builds ? ` (it needs ${builds} or newer)` : '') +
        `: give --redis-server <path to a redis-server that can>`,
    );
  }
  const lines = output
    .split('\n')
    .map((l) => l.replace(/^\d+:[A-Z] [^*#.-]*[*#.-] /, '').trim())
    .filter((l) => /rdb|load|short read|corrupt|checksum|unexpected|error|fatal|bad/i.test(l));
  const reason = lines.at(-1) ?? 'redis-server stopped while loading it';
  return new UsageError(`--rdb: ${file} cannot be loaded (truncated or corrupt RDB version ${version}): ${reason.slice(0, 200)}`);
}

/**
 * Longest unix socket path this platform takes, in bytes, less its final
 * NUL (`sun_path` is 108 bytes on Linux, 104 on macOS and the BSDs).
 */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;

/**
 * The folder the snapshot's server gets its folder (and socket) in: the
 * temp folder, or `/tmp` when the temp folder's path is too long for a unix
 * socket under it (a TMPDIR of 100 characters made every good RDB fail to
 * load, called corrupt). Refused (exit 3) when neither fits.
 */
function socketBase(): string {
  const fits = (base: string): boolean => Buffer.byteLength(path.join(base, 'swc-rdb-XXXXXX', 'redis.sock')) <= MAX_SOCKET_PATH;
  const temp = os.tmpdir();
  if (fits(temp)) return temp;
  try {
    accessSync('/tmp', constants.W_OK | constants.X_OK);
    return '/tmp';
  } catch {
    throw new EnvironmentError(
      `--rdb: the temp folder's path (${Buffer.byteLength(temp)} bytes: ${temp}) is too long for the unix socket the snapshot's server listens on (at most ${MAX_SOCKET_PATH} bytes with it), and /tmp is not writable; set TMPDIR to a shorter folder`,
    );
  }
}

/**
 * Loads an RDB snapshot into a private redis-server that listens on no TCP
 * port, only on a unix socket in a folder of its own, and connects to it: an
 * offline copy to analyse with exact MEMORY USAGE, at no cost to production.
 * A file the binary cannot load (a newer RDB version, a truncated or corrupt
 * file) is a UsageError (exit 2) in one line, never a hang.
 */
export async function startRdbServer(file: string, binary = process.env.SWC_REDIS_SERVER ?? 'redis-server'): Promise<RdbServer> {
  const absolute = path.resolve(file);
  const version = rdbVersionOf(absolute);
  const dir = mkdtempSync(path.join(socketBase(), 'swc-rdb-'));
  // The server reads the file through a link: never a copy of a large snapshot, and never written (no save).
  symlinkSync(absolute, path.join(dir, 'dump.rdb'));
  const socket = path.join(dir, 'redis.sock');
  const child: ChildProcess = spawn(
    binary,
    [
      '--port',
      '0',
      '--unixsocket',
      socket,
      '--unixsocketperm',
      '700',
      '--dir',
      dir,
      '--dbfilename',
      'dump.rdb',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ],
    // Its own process group, so the watchdog and stop reach a wrapper's children too.
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  guardChild(child, dir);
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited = false;
  let spawnError: NodeJS.ErrnoException | null = null;
  child.once('error', (err: NodeJS.ErrnoException) => (spawnError = err));
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const kill = (): void => {
    if (!exited) killGroup(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', kill);
  const fail = async (err: Error): Promise<never> => {
    kill();
    await Promise.race([exitedPromise, sleep(2000)]);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  };

  const started = Date.now();
  const deadline = started + LOAD_TIMEOUT_MS;
  let listened = false;
  let redis: Redis | null = null;
  for (;;) {
    if (spawnError !== null) {
      const code = (spawnError as NodeJS.ErrnoException).code;
      return fail(
        code === 'ENOENT'
          ? new ServerStartError(`--rdb: redis-server not found ("${binary}"): install it, or give --redis-server <path>`)
          : new ServerStartError(`--rdb: cannot start ${binary}: ${(spawnError as Error).message}`),
      );
    }
    if (exited) return fail(loadFailure(file, version, binary, output, listened));
    if (!listened && Date.now() - started > SOCKET_TIMEOUT_MS) {
      return fail(
        new ServerStartError(
          `--redis-server: ${binary} is running but opened no socket within ${SOCKET_TIMEOUT_MS / 1000} s (a redis-server opens it before loading): is it a redis-server, or a wrapper that hangs?`,
        ),
      );
    }
    if (Date.now() > deadline) return fail(new ServerStartError(`--rdb: ${file} did not load within ${LOAD_TIMEOUT_MS / 60_000} min`));
    try {
      if (redis === null || redis.status === 'end' || redis.status === 'close') {
        redis?.disconnect();
        redis = new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableReadyCheck: false });
        redis.on('error', () => undefined);
        await redis.connect();
      }
      listened = true;
      await redis.ping();
      break;
    } catch {
      // Not listening yet, or LOADING: try again shortly.
      await sleep(100);
    }
  }
  const connected = redis as Redis;
  return {
    redis: connected,
    url: `unix:${socket}`,
    rdbVersion: version,
    stop: async () => {
      connected.disconnect();
      if (!exited) killGroup(child, 'SIGTERM');
      await Promise.race([exitedPromise, sleep(3000)]);
      kill();
      process.removeListener('exit', kill);
    },
  };
}
