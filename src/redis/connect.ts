import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { RedisUnavailableError, ServerStateError, UsageError } from '../core/errors.js';
import { probeRefusal } from './resp.js';
import { startPrivateServer, type PrivateServer } from './server.js';

/** Options for {@link connect}. */
export interface ConnectOptions {
  /** Give up on the first connection after this long; default 3000 ms (a user waits at most about 5 s, start-up included). */
  readonly timeoutMs?: number;
  /** Fail a command that gets no reply for this long; default 30000 ms. */
  readonly commandTimeoutMs?: number;
  /** The flag the URL came from, for error messages; default `--redis-url`. */
  readonly flag?: string;
}

/** Checks a Redis URL without connecting; throws a UsageError naming the flag (the URL in it redacted). */
export function parseRedisUrl(url: string, flag = '--redis-url'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // An unparseable value is not echoed: it may be a pasted password, which
    // no redaction can tell from a host. A bare host:port gets its fix.
    const bare = /^[\w.-]+:\d{1,5}$/.test(url) ? `; did you mean redis://${url}?` : '';
    throw new UsageError(
      `${flag}: not a URL (value not shown, it may hold a password; expected redis://host:port/db or rediss://…, with user:password@ before the host when needed)${bare}`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new UsageError(`${flag}: unsupported scheme "${parsed.protocol}" (expected redis:// or rediss://)`);
  }
  if (!parsed.hostname) throw new UsageError(`${flag}: no host in "${redactUrl(url)}"`);
  if (parsed.port && (Number(parsed.port) < 1 || Number(parsed.port) > 65535)) {
    throw new UsageError(`${flag}: port must be 1..65535, got ${parsed.port}`);
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) {
    throw new UsageError(`${flag}: database must be a whole number (…/0 to …/15 by default), got "/${redactUrl(db)}"`);
  }
  // Redis reads the index as a 32-bit integer: a larger one gets its raw "value is out of range".
  const index = db !== '' ? db : (parsed.searchParams.get('db') ?? '');
  if (/^\d+$/.test(index) && Number(index) > MAX_DB_INDEX) {
    throw new UsageError(
      `${flag}: database must be a whole number from 0 to ${MAX_DB_INDEX} (…/0 to …/15 by default), got ${index.length > 20 ? `${index.slice(0, 20)}…` : index}`,
    );
  }
  // ioredis reads ?db= when the path names none; a bad one would reach Redis as SELECT x.
  const dbParam = parsed.searchParams.get('db');
  if (db === '' && dbParam !== null && !/^\d+$/.test(dbParam)) {
    throw new UsageError(`${flag}: database must be a whole number (?db=0 to ?db=15 by default), got "?db=${redactUrl(dbParam)}"`);
  }
  return parsed;
}

/** The largest database index Redis accepts in SELECT (INT_MAX). */
const MAX_DB_INDEX = 2_147_483_647;

/** What stands in for a secret in anything swc shows. */
export const REDACTED = '***';

/**
 * Query parameters whose value is a secret (`?password=…` is read by ioredis
 * as the password). Matched on the name, case-insensitively, anywhere in it,
 * so `masterPassword` and `auth_token` are covered too.
 */
const SECRET_PARAM = /pass|pwd|token|secret|auth|key|cred|sig/i;

/**
 * Masks secrets in text that is not a well-formed URL: everything before the
 * last `@` of each `//…@` or leading `…@` part (user-info), and the value of
 * every `name=value` whose name looks like a secret. Conservative on purpose:
 * an unparseable URL gives no reliable way to tell a host from a password.
 */
function redactLoosely(text: string): string {
  return text
    .split(/(\s+)/)
    .map((word) => {
      // Keep the scheme, mask the user-info: from just after `//` (or the
      // word's start) to the last `@`, since a password may hold `@`, `/` or `:`.
      const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(word)?.[0] ?? (word.startsWith('//') ? '//' : '');
      let rest = word.slice(scheme.length);
      const at = rest.lastIndexOf('@');
      if (at >= 0) rest = `${REDACTED}${rest.slice(at)}`;
      rest = rest.replace(/([?&;#]|^)([^=&;#?]*)=([^&;#]*)/g, (m, lead: string, name: string) => (SECRET_PARAM.test(name) ? `${lead}${name}=${REDACTED}` : m));
      return scheme + rest;
    })
    .join('');
}

/**
 * A URL (or anything meant as one) with every secret masked, for messages,
 * reports and JSON: the password in user-info (`redis://:pw@h`,
 * `redis://user:pw@h`; a lone user-info part, which some write as the
 * password, too), secret-looking query parameters (`?password=`, `?token=`)
 * and the fragment. Text that does not parse as a URL is masked conservatively
 * (see the README section on secrets) and never returned raw.
 */
export function redactUrl(url: string | URL): string {
  const text = url.toString();
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return redactLoosely(text);
  }
  let userinfo = '';
  if (parsed.password) userinfo = `${parsed.username}:${REDACTED}@`;
  else if (parsed.username) userinfo = `${REDACTED}@`;
  const params = [...parsed.searchParams].map(
    ([name, value]) => `${encodeURIComponent(name)}=${SECRET_PARAM.test(name) ? REDACTED : encodeURIComponent(value)}`,
  );
  const search = params.length > 0 ? `?${params.join('&')}` : '';
  const hash = parsed.hash ? `#${REDACTED}` : '';
  // host and pathname cannot hold `@` once parsed; the loose pass is a
  // second guard for schemes whose parsing is looser than redis:'s.
  return `${parsed.protocol}//${userinfo}${parsed.host}${redactLoosely(parsed.pathname)}${search}${hash}`;
}

/**
 * Where a URL points, without credentials: `host:port db N` (`127.0.0.1:6379
 * db 0`), for hints that must name the server exactly. Unparseable text gives
 * its redacted form.
 */
export function describeTarget(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url.toString());
  } catch {
    return redactUrl(url);
  }
  const db = parsed.pathname.replace(/^\//, '') || (parsed.searchParams.get('db') ?? '0');
  return `${parsed.hostname}:${parsed.port || '6379'} db ${/^\d+$/.test(db) ? db : '0'}`;
}

/**
 * The secrets a URL carries (user-info password or lone user name,
 * secret-looking query values), also from text that does not parse, so a
 * caller can scrub them from any message as a last guard.
 */
export function secretsOf(url: string): string[] {
  const found = new Set<string>();
  const add = (s: string | undefined): void => {
    if (!s) return;
    found.add(s);
    try {
      found.add(decodeURIComponent(s));
    } catch {
      // not percent-encoded text; the raw form is enough
    }
  };
  try {
    const parsed = new URL(url);
    add(parsed.password || parsed.username);
    for (const [name, value] of parsed.searchParams) if (SECRET_PARAM.test(name)) add(value);
  } catch {
    const info = /(?:^|\/\/)([^\s]*)@/.exec(url)?.[1];
    if (info !== undefined) add(info.includes(':') ? info.slice(info.indexOf(':') + 1) : info);
    for (const m of url.matchAll(/([^=&;#\s?]*)=([^&;#\s]*)/g)) if (SECRET_PARAM.test(m[1] ?? '')) add(m[2]);
  }
  return [...found].filter((s) => s.length > 0);
}

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
  const timeoutMs = options.timeoutMs ?? 3000;
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
