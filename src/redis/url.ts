import { UsageError } from '../core/errors.js';

// Reading and redacting Redis URLs, without a client: the CLI checks a
// --redis-url and scrubs messages with these before anything connects.

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
