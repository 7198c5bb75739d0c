import type { Redis } from 'ioredis';
import { isRefusal, memoryUsage } from '../layouts/inspection-keys.js';
import { KEY_NAMES, type ClaimedKey, type ClientKeyKind } from './key-names.js';
import { ttlFindingOf, type TtlFinding } from './ttl.js';

/** Keys read per pipeline: many small round trips on a server with many keys. */
const BATCH = 500;
/** Bytes of a string read to tell a counter (GETRANGE 0..31): a counter is at most 20 digits; a longer string is someone else's. */
const COUNTER_BYTES = 32;

/** One key of a rate-limiter package, as lights and inspect show it. */
export interface ClientKeyListing {
  /** The npm package whose naming the key has. */
  readonly package: string;
  readonly key: string;
  readonly prefix: string;
  readonly client: string;
  /** @upstash/ratelimit: the fixed window's number. */
  readonly window?: number;
  /** @fastify/rate-limit: the route of a per-route limit. */
  readonly scope?: string;
  readonly kind: ClientKeyKind;
  /** counter: its value; log: its members (one per decision kept). */
  readonly count: number;
  /** PTTL in ms (for a counter, the window left); null: the key has no TTL. */
  readonly ttlMs: number | null;
  /** log: the oldest and newest member's time, ms since the epoch (the scores are microseconds). */
  readonly oldestMs?: number;
  readonly newestMs?: number;
  /** MEMORY USAGE; null when the server refuses MEMORY. */
  readonly bytes: number | null;
}

/** What reading the package keys found. */
export interface ClientKeysRead {
  readonly keys: ClientKeyListing[];
  /** Keys with no TTL, or a TTL past the package's window plus slack (with a window given). */
  readonly ttlFindings: TtlFinding[];
  /** The server's maxmemory-policy: read only when there is a finding to show it with; null when not read or refused. */
  readonly maxmemoryPolicy: string | null;
  /** Keys under a package's names that are not its (another type, a string that is no counter), one line each. */
  readonly skipped: string[];
  /** What the server would not tell (MEMORY, CONFIG). */
  readonly unavailable: string[];
}

/** How a reading is judged. */
export interface ClientKeyOptions {
  /** The window the packages were given, in ms (`--window`): a TTL past the package's longest for it is a finding. */
  readonly windowMs?: number | null;
  /** MEMORY USAGE exact however large the key (a server of swc's own). */
  readonly exactMemory?: boolean;
}

/** The server's maxmemory-policy, or null (and why) when CONFIG GET is refused. */
export async function readMaxmemoryPolicy(redis: Redis): Promise<{ policy: string | null; unavailable: string | null }> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    return { policy: reply[1] ?? null, unavailable: null };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return { policy: null, unavailable: 'maxmemory-policy not known: the server refused CONFIG GET' };
  }
}

/** A sorted-set reply `[member, score]` as ms since the epoch (the packages score by microseconds). */
function scoreMs(reply: unknown): number | undefined {
  return Array.isArray(reply) && reply.length === 2 ? Math.floor(Number(reply[1]) / 1000) : undefined;
}

/**
 * Reads the keys a package's names claimed, read-only and in batches:
 * TYPE and PTTL of each; GETRANGE of a counter's first bytes; ZCARD and the
 * first and last member of a log; MEMORY USAGE. A key of another type than
 * its package keeps, or a string that is not an integer, is skipped (a
 * key of the application's own under a short prefix). A key with no TTL is
 * a finding, and so, when `windowMs` is given, is a TTL past the package's
 * longest for it; CONFIG GET maxmemory-policy is then read once to show
 * with them.
 */
export async function readClientKeys(redis: Redis, claimed: readonly ClaimedKey[], options: ClientKeyOptions = {}): Promise<ClientKeysRead> {
  const keys: ClientKeyListing[] = [];
  const skipped: string[] = [];
  const unavailable: string[] = [];
  const pttls: number[] = [];
  for (let i = 0; i < claimed.length; i += BATCH) {
    const batch = claimed.slice(i, i + BATCH);
    const head = redis.pipeline();
    for (const c of batch) head.type(c.key).pttl(c.key);
    const heads = ((await head.exec()) ?? []).map(([err, value]) => (err ? null : value));
    const body = redis.pipeline();
    const expected = batch.map((c) => KEY_NAMES[c.packageName]);
    batch.forEach((c, j) => {
      const naming = expected[j];
      const type = heads[2 * j];
      if (naming?.redisType === 'string' && type === 'string')
        body
          .getrange(c.key, 0, COUNTER_BYTES - 1)
          .echo('')
          .echo('');
      else if (naming?.redisType === 'zset' && type === 'zset') body.zcard(c.key).zrange(c.key, 0, 0, 'WITHSCORES').zrange(c.key, -1, -1, 'WITHSCORES');
      else body.echo('').echo('').echo('');
    });
    const bodies = ((await body.exec()) ?? []).map(([err, value]) => (err ? null : value));
    const mine: { c: ClaimedKey; j: number; count: number }[] = [];
    batch.forEach((c, j) => {
      const naming = expected[j];
      const type = heads[2 * j];
      if (type === 'none' || type === null || naming === undefined) return;
      if (type !== naming.redisType) {
        skipped.push(`${c.key} is a ${String(type)}, not the ${naming.redisType} ${c.packageName} keeps: not listed`);
        return;
      }
      if (naming.redisType === 'string') {
        const text = String(bodies[3 * j] ?? '');
        if (!/^-?\d{1,19}$/.test(text)) {
          skipped.push(`${c.key} holds no integer: not a ${c.packageName} counter, not listed`);
          return;
        }
        mine.push({ c, j, count: Number(text) });
      } else mine.push({ c, j, count: Number(bodies[3 * j]) });
    });
    const memory = await memoryUsage(
      redis,
      mine.map(({ c, count }) => ({ key: c.key, elements: KEY_NAMES[c.packageName]?.redisType === 'zset' ? count : 0 })),
      options.exactMemory ? Number.POSITIVE_INFINITY : undefined,
    );
    if (memory.unavailable !== null) unavailable.push(memory.unavailable);
    mine.forEach(({ c, j, count }, m) => {
      const naming = KEY_NAMES[c.packageName];
      const pttl = Number(heads[2 * j + 1]);
      pttls.push(pttl);
      const oldestMs = naming?.redisType === 'zset' ? scoreMs(bodies[3 * j + 1]) : undefined;
      const newestMs = naming?.redisType === 'zset' ? scoreMs(bodies[3 * j + 2]) : undefined;
      keys.push({
        package: c.packageName,
        key: c.key,
        prefix: c.prefix,
        ...c.parts,
        kind: naming?.kind ?? 'counter',
        count,
        ttlMs: pttl >= 0 ? pttl : null,
        ...(oldestMs !== undefined ? { oldestMs } : {}),
        ...(newestMs !== undefined ? { newestMs } : {}),
        bytes: memory.bytes[m] ?? null,
      });
    });
  }
  const windowMs = options.windowMs ?? null;
  const judge = (policy: string | null): TtlFinding[] =>
    keys
      .map((k, i) =>
        ttlFindingOf({
          key: k.key,
          pttl: pttls[i] as number,
          windowMs,
          longestMs: windowMs === null ? null : (KEY_NAMES[k.package]?.longestTtlMs(windowMs) ?? null),
          policy,
          package: k.package,
        }),
      )
      .filter((f): f is TtlFinding => f !== null);
  let maxmemoryPolicy: string | null = null;
  let ttlFindings = judge(null);
  if (ttlFindings.length > 0) {
    const read = await readMaxmemoryPolicy(redis);
    maxmemoryPolicy = read.policy;
    if (read.unavailable !== null) unavailable.push(read.unavailable);
    ttlFindings = judge(maxmemoryPolicy);
  }
  return { keys, ttlFindings, maxmemoryPolicy, skipped, unavailable };
}

/**
 * The TTL findings of keys a run's package wrote (`bench --client`, `verify
 * --client`): PTTL of each, in batches, judged against `longestMs` (the
 * package's window plus its slack, e.g. ttlBoundMs in ttl.ts); the server's
 * maxmemory-policy is read once when there is a finding (null when refused). Read-only.
 */
export async function readTtlFindings(
  redis: Redis,
  keys: readonly string[],
  judge: { readonly windowMs: number; readonly longestMs: number; readonly package?: string },
): Promise<TtlFinding[]> {
  const pttls: number[] = [];
  for (let i = 0; i < keys.length; i += BATCH) {
    const pipeline = redis.pipeline();
    for (const key of keys.slice(i, i + BATCH)) pipeline.pttl(key);
    for (const [err, value] of (await pipeline.exec()) ?? []) pttls.push(err ? -2 : Number(value));
  }
  const findings = (policy: string | null): TtlFinding[] =>
    keys
      .map((key, i) =>
        ttlFindingOf({
          key,
          pttl: pttls[i] ?? -2,
          windowMs: judge.windowMs,
          longestMs: judge.longestMs,
          policy,
          ...(judge.package !== undefined ? { package: judge.package } : {}),
        }),
      )
      .filter((f): f is TtlFinding => f !== null);
  const first = findings(null);
  return first.length === 0 ? first : findings((await readMaxmemoryPolicy(redis)).policy);
}
