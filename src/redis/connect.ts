import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { RedisUnavailableError, ServerStateError, UsageError } from '../core/errors.js';
import { capConnection, type CommandCap } from './command-cap.js';
import { parseRedisUrl, redactUrl } from './url.js';
import { probeRefusal } from './resp.js';
import { READ_ONLY_ACL } from './read-only-acl.js';
import { startPrivateServer, type PrivateServer } from './server.js';

/** How long {@link connect} waits for a first connection and its handshake by default (a user waits at most about 5 s, start-up included). */
export const CONNECT_TIMEOUT_MS = 3000;

/** Options for {@link connect}. */
export interface ConnectOptions {
  /** Give up on the first connection after this long; default {@link CONNECT_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Fail a command that gets no reply for this long; default 30000 ms. */
  readonly commandTimeoutMs?: number;
  /** The flag the URL came from, for error messages; default `--redis-url`. */
  readonly flag?: string;
  /** Every command of the connection (and of lean connections opened from it) waits its turn under this cap (`--max-ops`). */
  readonly cap?: CommandCap;
}

export { describeTarget, parseRedisUrl, REDACTED, redactUrl, secretsOf } from './url.js';
export { READ_ONLY_ACL } from './read-only-acl.js';

/** Turns a connection failure into one line that says what to check. */
function explain(url: URL, err: unknown, timeoutMs: number): RedisUnavailableError {
  const where = redactUrl(url);
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  let hint: string;
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) {
    hint = 'connection refused: nothing listens there (is redis-server running? is the port right?)';
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || /ENOTFOUND|EAI_AGAIN/.test(message)) {
    hint = `host "${url.hostname}" not found (check the host name)`;
  } else if (/WRONGPASS|NOAUTH|invalid password|AUTH/i.test(message)) {
    hint = 'authentication failed (check the user name and password in the URL)';
  } else if (/^NOPERM/.test(message)) {
    // A user without PING (e.g. `+@read` alone): name the grant, and the whole read-only set.
    const denied = /run the '([^']+)' command/i.exec(message)?.[1]?.toLowerCase();
    const user = url.username ? decodeURIComponent(url.username) : 'default';
    hint =
      `Redis ACL denies user "${user}" ${denied ? `the ${denied.toUpperCase()} command` : 'a command swc sends first'}: ` +
      `grant ${denied ? `+${denied}` : 'it'} (ACL SETUSER ${user} ${denied ? `+${denied}` : '<command>'}); ` +
      `a read-only user for lights, inspect and doctor needs ${READ_ONLY_ACL} (docs/operator.md) (Redis said: ${message})`;
  } else if (/DB index is out of range|invalid DB index/i.test(message)) {
    hint = `database ${url.pathname.replace(/^\//, '')} does not exist (check the /<db> part of the URL)`;
  } else if (/wrong version number|EPROTO|SSL|TLS|certificate/i.test(message + code)) {
    hint =
      url.protocol === 'rediss:'
        ? `TLS handshake failed (${message}); if the server does not use TLS, use redis:// instead of rediss://`
        : `the server answered with TLS or garbage (${message}); if it uses TLS, use rediss://`;
  } else if (/timed? ?out|ETIMEDOUT/i.test(message + code)) {
    hint = `no answer within ${Math.round(timeoutMs / 1000)} s (check host, port and firewall; ` + `a TLS server needs rediss://, a plain one redis://)`;
  } else if (/Connection is closed|ECONNRESET|socket closed/i.test(message + code)) {
    hint = 'the server closed the connection during the handshake (a TLS server needs rediss://; ' + 'also check protected-mode and ACLs)';
  } else {
    hint = message;
  }
  return new RedisUnavailableError(`cannot use Redis at ${where}: ${hint}`, { cause: err });
}

/**
 * Connects to `url` and fails fast (within `timeoutMs`) with a message that
 * says what to check. Once connected, the client reconnects for a few seconds
 * after a drop and then fails pending commands, so a dead server ends a run
 * instead of hanging it.
 */
export async function connect(url: string, options: ConnectOptions = {}): Promise<Redis> {
  const parsed = parseRedisUrl(url, options.flag);
  const timeoutMs = options.timeoutMs ?? CONNECT_TIMEOUT_MS;
  let established = false;
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: options.commandTimeoutMs ?? 30_000,
    maxRetriesPerRequest: 2,
    enableAutoPipelining: false,
    // The ready check runs INFO, which managed servers may deny (ACL -info);
    // ioredis then prints a warning of its own. The PING below checks readiness.
    enableReadyCheck: false,
    // Before the first success: no retries. After: about 3 s of retries.
    retryStrategy: (times) => (!established || times > 12 ? null : Math.min(50 * times, 400)),
    reconnectOnError: () => false,
  };
  if (parsed.protocol === 'rediss:') redisOptions.tls = {};
  const redis = new Redis(url, redisOptions);
  // Before the first command: the handshake counts against the cap too.
  if (options.cap) capConnection(redis, options.cap);
  let lastError: unknown;
  redis.on('error', (err: unknown) => {
    lastError = err;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    // A server that refuses writes after a failed RDB save refuses PING too
    // (MISCONF), yet it answers and serves reads: inspect and lights work on
    // it, and a write says what is wrong, classified, where it is refused.
    await redis.ping().catch((err: unknown) => {
      if (!(err instanceof Error && /^MISCONF\b/.test(err.message))) throw err;
    });
    // Something that answers PING with +PONG is not yet a Redis (a stub, a proxy in the wrong
    // mode): ECHO of a random word must come back as it was, or every later reply is nonsense
    // (a SCAN whose cursor never ends). An error reply (ACL -echo) still speaks Redis.
    const token = `swc-${randomBytes(6).toString('hex')}`;
    const echoed = await Promise.race([
      redis.echo(token).catch((err: unknown) => (err instanceof Error && err.name === 'ReplyError' ? token : Promise.reject(err))),
      new Promise<string>((resolve) => setTimeout(() => resolve(''), timeoutMs).unref()),
    ]);
    if (echoed !== token) throw new NotRedisError(`it answered ECHO ${token} with ${echoed === '' ? 'nothing' : JSON.stringify(String(echoed).slice(0, 40))}`);
    // ioredis reports a failed SELECT only as an event and carries on in db 0;
    // select explicitly so a wrong index fails instead of writing elsewhere.
    const db = parsed.pathname.replace(/^\//, '');
    if (db !== '') await redis.select(Number(db));
    established = true;
    return redis;
  } catch (err) {
    redis.disconnect();
    const text = err instanceof Error ? err.message : String(err);
    const protocol = /Protocol error/.test(text) || /Protocol error/.test(String(lastError));
    if (err instanceof NotRedisError || protocol) {
      throw new RedisUnavailableError(
        `cannot use Redis at ${redactUrl(parsed)}: not a Redis server (${err instanceof NotRedisError ? err.message : 'its reply is not the Redis protocol: an HTTP server, or TLS behind redis://?'}); check the host and port`,
      );
    }
    const reason = err instanceof Error && /Connection is closed|timed out/.test(err.message) && lastError ? lastError : err;
    // A full server (maxclients) says why only as it accepts, and ioredis drops that line: listen for it.
    const refusal = /Connection is closed|EPIPE|ECONNRESET/.test(String(reason)) ? await probeRefusal(redis.options) : undefined;
    if (refusal instanceof ServerStateError) throw refusal.at(`at ${redactUrl(parsed)}`);
    throw explain(parsed, reason, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@link connect} throws inside when the peer is not a Redis server. */
class NotRedisError extends Error {}

/** A connection plus, when swc started one, the private server behind it. */
export interface Session {
  readonly redis: Redis;
  /** The URL connected to (credentials included). */
  readonly url: string;
  /** Set when swc started the server itself and will stop it in {@link close}. */
  readonly server?: PrivateServer;
  /** Opens another connection to the same server (for concurrent clients). */
  connectAnother(): Promise<Redis>;
  /** Disconnects every connection and stops the private server, if any. Safe to call twice. */
  close(): Promise<void>;
}

/** Options for {@link openSession}. */
export interface SessionOptions extends ConnectOptions {
  /** A server to use; when absent, a private redis-server is started. */
  readonly redisUrl?: string;
  /** Settings for the private server (`name=value`); rejected with a URL. */
  readonly serverSettings?: readonly string[];
}

/** Connects to `redisUrl`, or starts a private redis-server when none is given. */
export async function openSession(options: SessionOptions = {}): Promise<Session> {
  const settings = options.serverSettings ?? [];
  if (options.redisUrl !== undefined) parseRedisUrl(options.redisUrl, options.flag);
  if (options.redisUrl !== undefined && settings.length > 0) {
    throw new UsageError('--redis-server-arg: only applies to the private server; drop it or drop --redis-url');
  }
  const server = options.redisUrl === undefined ? await startPrivateServer({ settings }) : undefined;
  const url = options.redisUrl ?? (server as PrivateServer).url;
  const connections: Redis[] = [];
  const open = async (): Promise<Redis> => {
    const redis = await connect(url, options);
    connections.push(redis);
    return redis;
  };
  let redis: Redis;
  try {
    redis = await open();
  } catch (err) {
    await server?.stop();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    redis,
    url,
    ...(server ? { server } : {}),
    connectAnother: open,
    close: () => {
      closed ??= (async () => {
        for (const connection of connections) connection.disconnect();
        await server?.stop();
      })();
      return closed;
    },
  };
}
