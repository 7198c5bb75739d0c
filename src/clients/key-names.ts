import { UsageError } from '../core/errors.js';
import type { ClientKeyNames } from './types.js';

/**
 * How each package names its keys, read from the package's own code (the
 * version in swc's devDependencies): the default prefix, how the prefix and
 * the client id are joined, what else a key's name carries (a window's
 * number, a route), what the key holds, and the longest TTL the package puts
 * on a key for a given window. lights, inspect and the adapters read it here;
 * no package is loaded to read a key.
 */

/** What a key's name says, beyond the prefix. */
export interface ClientKeyParts {
  /** The client id the package was called with (an IP, a user id, …). */
  readonly client: string;
  /** `@upstash/ratelimit`: the fixed window's number (the window's start is this times the window). */
  readonly window?: number;
  /** `@fastify/rate-limit`: the route of a per-route limit (`GET/path`), or `handler` for a limit made with `fastify.rateLimit()`. */
  readonly scope?: string;
}

/** What a package keeps under a key. */
export type ClientKeyKind =
  /** A string holding an integer: the decisions counted in the key's window, which ends with the key's TTL. */
  | 'counter'
  /** A sorted set of one member per decision, scored by its time in microseconds (a sliding log). */
  | 'log';

/** The full naming of a package's keys. */
export interface ClientKeyNaming extends ClientKeyNames {
  readonly packageName: string;
  readonly kind: ClientKeyKind;
  /** The Redis type of such a key (`string` or `zset`); a key of another type is not the package's. */
  readonly redisType: 'string' | 'zset';
  /** A SCAN glob that every key under `prefix` matches; null when the prefix alone cannot find them (an empty prefix). */
  globOf(prefix: string): string | null;
  /** The client id and the rest of what the key's name says; null when the key is not this package's. */
  partsOfKey(key: string, prefix: string): ClientKeyParts | null;
  /** The longest TTL, in ms, the package itself sets on a key for a window of `windowMs` (its stated slack included). */
  longestTtlMs(windowMs: number): number;
  /** Where the default prefix comes from, in a few words (docs and the JSON). */
  readonly prefixNote: string;
}

/** A glob matching `text` literally. */
const globLiteral = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/** `<prefix><sep><id>`: the shape of most packages' keys. */
function joined(key: string, prefix: string, separator: string): string | null {
  const head = `${prefix}${separator}`;
  if (head === '' || !key.startsWith(head) || key.length === head.length) return null;
  return key.slice(head.length);
}

/** Builds an entry whose clientOfKey is partsOfKey's client. */
function naming(entry: Omit<ClientKeyNaming, 'clientOfKey'>): ClientKeyNaming {
  return { ...entry, clientOfKey: (key, prefix) => entry.partsOfKey(key, prefix)?.client ?? null };
}

/**
 * rate-limiter-flexible (RateLimiterRedis): `keyPrefix` defaults to `rlflx`;
 * a key is `<keyPrefix>:<id>` (the id alone when keyPrefix is empty), a
 * counter of points consumed, set with `EX <duration>` in whole seconds
 * (`duration: 0` writes no TTL: the key lives forever). A block
 * (`blockDuration`) rewrites the same key with the block's TTL.
 */
const rateLimiterFlexible = naming({
  packageName: 'rate-limiter-flexible',
  defaultPrefix: 'rlflx',
  prefixNote: 'option keyPrefix, default "rlflx", joined to the id with ":"',
  kind: 'counter',
  redisType: 'string',
  globOf: (prefix) => (prefix === '' ? null : `${globLiteral(prefix)}:*`),
  partsOfKey: (key, prefix) => {
    const client = joined(key, prefix, ':');
    return client === null ? null : { client };
  },
  longestTtlMs: (windowMs) => windowMs,
});

/**
 * rate-limit-redis (express-rate-limit's store): `prefix` defaults to `rl:`
 * and is put in front of the id as is; a counter set with `PX <windowMs>`.
 */
const rateLimitRedis = naming({
  packageName: 'rate-limit-redis',
  defaultPrefix: 'rl:',
  prefixNote: 'option prefix, default "rl:", put in front of the id as is',
  kind: 'counter',
  redisType: 'string',
  globOf: (prefix) => (prefix === '' ? null : `${globLiteral(prefix)}*`),
  partsOfKey: (key, prefix) => {
    const client = joined(key, prefix, '');
    return client === null ? null : { client };
  },
  longestTtlMs: (windowMs) => windowMs,
});

/** The key of a per-route limit: an HTTP method, the route's URL, a dash, the id. */
const FASTIFY_ROUTE = /^([A-Z]+)(\/.*)-([^-]+)$/;
/** `fastify.rateLimit(options)` / `createRateLimit(options)`: a child store with an empty route, so method and URL print as "undefined". */
const FASTIFY_HANDLER = 'undefinedundefined-';

/**
 * @fastify/rate-limit's Redis store: `nameSpace` defaults to
 * `fastify-rate-limit-` and is put in front of the id as is (global limit);
 * a route with its own limit puts `<METHOD><url>-` between them. A counter
 * set with `PEXPIRE <timeWindow>` on its first hit (and again after the
 * limit with `continueExceeding`; with `exponentialBackoff` the TTL doubles
 * past the limit, by design longer than the window).
 */
const fastifyRateLimit = naming({
  packageName: '@fastify/rate-limit',
  defaultPrefix: 'fastify-rate-limit-',
  prefixNote: 'option nameSpace, default "fastify-rate-limit-", put in front of the id as is; a per-route limit adds "<METHOD><url>-"',
  kind: 'counter',
  redisType: 'string',
  globOf: (prefix) => (prefix === '' ? null : `${globLiteral(prefix)}*`),
  partsOfKey: (key, prefix) => {
    const rest = joined(key, prefix, '');
    if (rest === null) return null;
    if (rest.startsWith(FASTIFY_HANDLER) && rest.length > FASTIFY_HANDLER.length) return { client: rest.slice(FASTIFY_HANDLER.length), scope: 'handler' };
    const route = FASTIFY_ROUTE.exec(rest);
    // The id is what follows the route's last dash: a URL may hold dashes, an IP never does.
    if (route) return { client: route[3] as string, scope: `${route[1] as string}${route[2] as string}` };
    return { client: rest };
  },
  longestTtlMs: (windowMs) => windowMs,
});

/** Keys @upstash/ratelimit keeps under its prefix that are no client's window. */
const UPSTASH_OTHER = /^(denyList:|ipDenyListStatus$|dynamic:global$)/;

/**
 * @upstash/ratelimit (slidingWindow and fixedWindow, one region): `prefix`
 * defaults to `@upstash/ratelimit`; a key is `<prefix>:<id>:<n>` where n is
 * the fixed window's number, floor(now / window). A counter; slidingWindow
 * sets `PEXPIRE 2 × window + 1000` on a window's first hit (so it is read as
 * the previous window during the next one, plus a second), fixedWindow
 * `PEXPIRE window`.
 */
const upstashRatelimit = naming({
  packageName: '@upstash/ratelimit',
  defaultPrefix: '@upstash/ratelimit',
  prefixNote: 'option prefix, default "@upstash/ratelimit", then ":<id>:<window number>"',
  kind: 'counter',
  redisType: 'string',
  globOf: (prefix) => (prefix === '' ? null : `${globLiteral(prefix)}:*`),
  partsOfKey: (key, prefix) => {
    const rest = joined(key, prefix, ':');
    if (rest === null || UPSTASH_OTHER.test(rest)) return null;
    const cut = rest.lastIndexOf(':');
    if (cut <= 0) return null;
    const window = rest.slice(cut + 1);
    if (!/^\d{1,15}$/.test(window)) return null;
    return { client: rest.slice(0, cut), window: Number(window) };
  },
  longestTtlMs: (windowMs) => 2 * windowMs + 1000,
});

/**
 * ratelimiter: every key is `limit:<id>`; the package has no prefix option.
 * A sorted set with one member per decision, member and score both the time
 * in microseconds, `PEXPIRE <duration>` on every call.
 */
const ratelimiter = naming({
  packageName: 'ratelimiter',
  defaultPrefix: 'limit:',
  prefixNote: 'fixed "limit:" in front of the id (no option)',
  kind: 'log',
  redisType: 'zset',
  globOf: (prefix) => (prefix === '' ? null : `${globLiteral(prefix)}*`),
  partsOfKey: (key, prefix) => {
    const client = joined(key, prefix, '');
    return client === null ? null : { client };
  },
  longestTtlMs: (windowMs) => windowMs,
});

/**
 * rolling-rate-limiter (RedisRateLimiter): `namespace` is put in front of the
 * id as is. It has no default: its types require one, and JavaScript that
 * leaves it out writes keys starting with the text "undefined". A sorted set
 * of one random UUID per decision scored by the time in microseconds,
 * `EXPIRE` of the interval rounded up to whole seconds on every call.
 */
const rollingRateLimiter = naming({
  packageName: 'rolling-rate-limiter',
  defaultPrefix: 'undefined',
  prefixNote: 'option namespace, required by its types, put in front of the id as is; left out, keys start with "undefined"',
  kind: 'log',
  redisType: 'zset',
  globOf: (prefix) => (prefix === '' ? null : `${globLiteral(prefix)}*`),
  partsOfKey: (key, prefix) => {
    const client = joined(key, prefix, '');
    return client === null ? null : { client };
  },
  longestTtlMs: (windowMs) => Math.ceil(windowMs / 1000) * 1000,
});

/** How each package names its keys, by npm package name: the one place lights, inspect and the adapters read it from. */
export const KEY_NAMES: Readonly<Record<string, ClientKeyNaming>> = {
  'rate-limiter-flexible': rateLimiterFlexible,
  'rate-limit-redis': rateLimitRedis,
  '@fastify/rate-limit': fastifyRateLimit,
  '@upstash/ratelimit': upstashRatelimit,
  ratelimiter,
  'rolling-rate-limiter': rollingRateLimiter,
};

/** The key-name members of a package's adapter (`defaultPrefix`, `clientOfKey`), from its entry above. */
export function keyNamesOf(packageName: string): ClientKeyNames {
  const names = KEY_NAMES[packageName];
  if (!names) throw new Error(`no key names for ${packageName}`);
  return { defaultPrefix: names.defaultPrefix, clientOfKey: names.clientOfKey };
}

/** A key claimed by a package under its default prefix (or one given with `--client-prefix`). */
export interface ClaimedKey {
  readonly key: string;
  readonly packageName: string;
  readonly prefix: string;
  readonly parts: ClientKeyParts;
}

/** A prefix an application set for a package (`--client-prefix <package>=<prefix>`). */
export interface ClientPrefix {
  readonly packageName: string;
  readonly prefix: string;
}

/** A package's short name, as `--client` takes it: `@fastify/rate-limit` is `fastify-rate-limit`. */
const shortName = (packageName: string): string => packageName.replace(/^@/, '').replace('/', '-');

/** `--client-prefix <package>=<prefix>`: the package by its npm or short name, and a prefix SCAN can find. */
export function parseClientPrefix(text: string): ClientPrefix {
  const cut = text.indexOf('=');
  const name = cut < 0 ? text : text.slice(0, cut);
  const naming = Object.values(KEY_NAMES).find((n) => n.packageName === name || shortName(n.packageName) === name);
  const names = Object.keys(KEY_NAMES).join(', ');
  if (cut < 0 || !naming) throw new UsageError(`--client-prefix: expected <package>=<prefix>, the package one of ${names}; got "${text}"`);
  const prefix = text.slice(cut + 1);
  if (naming.globOf(prefix) === null)
    throw new UsageError(`--client-prefix: ${naming.packageName} needs a non-empty prefix (its keys are then found by it); got "${text}"`);
  return { packageName: naming.packageName, prefix };
}

/** Every package's default prefix, then the ones given. */
function prefixesOf(extra: readonly ClientPrefix[]): ClientPrefix[] {
  return [...Object.values(KEY_NAMES).map((n) => ({ packageName: n.packageName, prefix: n.defaultPrefix })), ...extra];
}

/** The SCAN globs of every package's keys under its default prefix and the prefixes given. */
export function defaultClientGlobs(extra: readonly ClientPrefix[] = []): string[] {
  return [
    ...new Set(
      prefixesOf(extra)
        .map((p) => KEY_NAMES[p.packageName]?.globOf(p.prefix) ?? null)
        .filter((g): g is string => g !== null),
    ),
  ];
}

/**
 * The package whose naming a key has under its default prefix or one given,
 * and what its name says; null for any other key. The longest matching
 * prefix wins (none of the defaults is a prefix of another's keys, but a
 * given prefix may be).
 */
export function claimClientKey(key: string, extra: readonly ClientPrefix[] = []): ClaimedKey | null {
  let best: ClaimedKey | null = null;
  for (const { packageName, prefix } of prefixesOf(extra)) {
    const parts = KEY_NAMES[packageName]?.partsOfKey(key, prefix) ?? null;
    if (parts === null) continue;
    if (best === null || prefix.length > best.prefix.length) best = { key, packageName, prefix, parts };
  }
  return best;
}
