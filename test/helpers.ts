import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, type TestContext } from 'vitest';
import { findValgrind } from '../src/measure/callgrind.js';
import { parseCommandCalls } from '../src/measure/commandstats.js';
import { connect } from '../src/redis/connect.js';
import { startPrivateServer, type PrivateServer, type PrivateServerOptions } from '../src/redis/server.js';

/** The URL of this test worker's own server (from global setup). */
export function redisUrl(): string {
  const urls = inject('redisUrls');
  const worker = Number(process.env.VITEST_POOL_ID ?? '1');
  const url = urls[(Math.max(1, worker) - 1) % urls.length];
  if (url === undefined) throw new Error('global setup provided no test server');
  return url;
}

/** A connection to the test server, closed after the file's tests. */
export async function testRedis(): Promise<Redis> {
  const redis = await connect(redisUrl());
  afterAll(() => redis.disconnect());
  return redis;
}

/** A light name no other test uses. */
export function uniqueName(label = 'light'): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/** 2025-11-29T21:00:00Z: an hour boundary, so hour keys are predictable. */
export const HOUR_START = 1_764_450_000 - (1_764_450_000 % 3600);

/**
 * Whether a process with this PID still runs. A zombie (killed, not yet
 * reaped) counts as gone: when swc exits right after killing its server, the
 * server is reparented to PID 1, and a container's PID 1 may never reap it.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; the comm may hold spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * The redis-servers a PID-recording wrapper started, in order: each line of
 * `pidFile` is `<pid> <arguments…>` (the wrapper writes `echo "$$ $*"`).
 */
export function recordedServers(pidFile: string): { pid: number; args: string[] }[] {
  let text = '';
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, ...args] = line.split(' ');
      return { pid: Number(pid), args };
    });
}

/**
 * Runs `body` against a redis-server of its own (for a test that changes
 * server settings, kills the server or must not see other tests' keys), then
 * closes the connection and stops the server, also when `body` throws.
 */
export async function withPrivateServer<T>(options: PrivateServerOptions, body: (server: PrivateServer, redis: Redis) => Promise<T>): Promise<T> {
  const server = await startPrivateServer(options);
  let redis: Redis | undefined;
  try {
    redis = await connect(server.url);
    return await body(server, redis);
  } finally {
    redis?.disconnect();
    await server.stop();
  }
}

/**
 * A redis-server of the calling file's own, for all its tests (a file that
 * flushes scripts, or whose listings must not see other files' keys):
 * started before them, handed to `use` (which may seed it; `timeoutMs` for a
 * long seed), stopped after them.
 */
export function ownServer(use: (server: PrivateServer, redis: Redis) => unknown, options: PrivateServerOptions = {}, timeoutMs?: number): void {
  let server: PrivateServer | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await startPrivateServer(options);
    redis = await connect(server.url);
    await use(server, redis);
  }, timeoutMs);
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
}

/**
 * A redis-server of one test's own, stopped (and its connection closed) when
 * that test finishes: runs on one server take turns, so tests that each
 * have one can run at once (`describe.concurrent`).
 */
export async function testServer(
  { onTestFinished }: Pick<TestContext, 'onTestFinished'>,
  options: PrivateServerOptions = {},
): Promise<{ server: PrivateServer; redis: Redis }> {
  const server = await startPrivateServer(options);
  const redis = await connect(server.url).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  onTestFinished(async () => {
    redis.disconnect();
    await server.stop();
  });
  return { server, redis };
}

/**
 * Makes an ACL user `name` (password `pw`) on the server `admin` is connected
 * to, with `rules` (`~app:*`, `+@all`, `-info`, …), and returns `serverUrl` as
 * that user.
 */
export async function aclUserUrl(admin: Redis, serverUrl: string, name: string, rules: readonly string[]): Promise<string> {
  await admin.call('ACL', 'SETUSER', name, 'on', '>pw', ...rules);
  const url = new URL(serverUrl);
  url.username = name;
  url.password = 'pw';
  return url.toString();
}

/** Every key under `pattern` with its DUMP payload (hex): equal digests mean byte-identical values. */
export async function digest(redis: Redis, pattern: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) out[key] = ((await redis.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('hex');
  } while (cursor !== '0');
  return out;
}

/** Keys matching `pattern`. */
export async function keysMatching(redis: Redis, pattern: string): Promise<string[]> {
  return Object.keys(await digest(redis, pattern));
}

/** Calls of one command (lower case, as `cmdstat_<name>`) the server counted since its start or the last CONFIG RESETSTAT. */
export async function commandCalls(redis: Redis, command: string): Promise<number> {
  return parseCommandCalls(await redis.info('commandstats')).get(command) ?? 0;
}

/** The 200k-key application fill lives in test/app-keys.ts (no vitest there), so benchmark scripts share it. */
export { populateAppKeys } from './app-keys.js';

/**
 * Nothing of a run still works on the server `redis` (a connection opened before the run) talks to: it answers
 * PING, and SCRIPT KILL finds no script running (NOTBUSY). The mechanism of "the server answers at once", without
 * timing it: a script still running would make SCRIPT KILL stop it, or refuse (UNKILLABLE).
 */
export async function expectServerIdle(redis: Redis): Promise<void> {
  expect(await redis.ping()).toBe('PONG');
  await expect(redis.call('SCRIPT', 'KILL')).rejects.toThrow(/NOTBUSY/);
}

/** What {@link fileServers} returns. */
export interface FileServers {
  /** A temp folder of the file's own, removed after its tests. */
  readonly dir: string;
  /** Starts a redis-server (stopped after the file's tests) and opens a connection to it (closed then). */
  start(options?: PrivateServerOptions): Promise<{ server: PrivateServer; url: string; redis: Redis }>;
  /** Closes `redis` after the file's tests too. */
  track(redis: Redis): Redis;
}

/**
 * Servers a file's tests start as they need them (each test its own, so they can run at once), all stopped with
 * their connections after the file's tests, and a temp folder (`swc-<label>-…`) removed then.
 */
export function fileServers(label: string): FileServers {
  const dir = mkdtempSync(path.join(tmpdir(), `swc-${label}-`));
  const servers: PrivateServer[] = [];
  const clients: Redis[] = [];
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const track = (redis: Redis): Redis => {
    clients.push(redis);
    return redis;
  };
  return {
    dir,
    track,
    start: async (options = {}) => {
      const server = await startPrivateServer(options);
      servers.push(server);
      return { server, url: server.url, redis: track(await connect(server.url)) };
    },
  };
}

/** Every command the server at `url` receives from now on (under MONITOR), until the returned stop is called. */
export async function monitor(url: string): Promise<{ seen: string[][]; stop: () => void }> {
  const watcher = await connect(url);
  const m = await watcher.monitor();
  const seen: string[][] = [];
  m.on('monitor', (_time: string, args: string[]) => seen.push(args));
  return {
    seen,
    stop: () => {
      m.disconnect();
      watcher.disconnect();
    },
  };
}

/** Fills a user's server with 200 keys of five types (`app:*`), and leaves `headroom` bytes under maxmemory with `policy` when both are given. */
export async function fillUsersServer(redis: Redis, policy?: string, headroom?: number): Promise<void> {
  for (let i = 0; i < 40; i += 1) {
    await redis.set(`app:str:${i}`, `value ${i}`.repeat(20));
    await redis.hset(`app:hash:${i}`, 'f', String(i), 'g', 'x'.repeat(100));
    await redis.zadd(`app:zset:${i}`, i, `m${i}`, i + 1, `n${i}`);
    await redis.rpush(`app:list:${i}`, 'a', 'b', 'c');
    await redis.sadd(`app:set:${i}`, 'a', String(i));
  }
  if (policy !== undefined && headroom !== undefined) {
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    await redis.call('CONFIG', 'SET', 'maxmemory', String(used + headroom), 'maxmemory-policy', policy);
  }
}

/** `count` connections to the test Redis, opened before the file's tests and closed after them. */
export function fileConnections(count: number): Redis[] {
  const connections: Redis[] = [];
  beforeAll(async () => {
    for (let i = 0; i < count; i += 1) connections.push(await connect(redisUrl()));
  });
  afterAll(() => {
    for (const c of connections) c.disconnect();
  });
  return connections;
}

/** Whether valgrind is at hand (tests of --instructions that need it are skipped without). */
export const hasValgrind = ((): boolean => {
  try {
    findValgrind();
    return true;
  } catch {
    return false;
  }
})();

/** Writes to `file` the JSON of `source` after `edit` changed it; returns `file`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test edits parsed JSON at any depth
export function editedJson(source: string, file: string, edit: (m: Record<string, any>) => void): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  const json = JSON.parse(readFileSync(source, 'utf8')) as Record<string, any>;
  edit(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
  return file;
}
