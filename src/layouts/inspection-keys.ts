import type { Redis } from 'ioredis';
import { ENCODING_SETTINGS, type EncodingSetting } from '../redis/info.js';
import { keySlot } from '../redis/slot.js';
import type { LightKey } from './kit/keys.js';
import type { KeySearch } from './types.js';
import { scanOnce } from '../redis/scan.js';
import type { Counts, EncodingLimits, InspectionSummary, JudgeOptions, KeyInspection, KeyLimits, WindowView } from './inspection.js';

/** Elements per HSCAN / ZRANGE / SCAN call: no single call walks a large key. */
export const PAGE_SIZE = 1000;

/**
 * `MEMORY USAGE … SAMPLES 0` walks every element in one call; above this many
 * elements Redis is asked to sample instead, so a huge 5.x hour key does not
 * block the server. The figure is then marked as not exact.
 */
export const EXACT_MEMORY_MAX_ELEMENTS = 100_000;

/** The command that counts a key's elements, by type. */
const SIZE_COMMAND: Readonly<Record<string, string>> = {
  hash: 'HLEN',
  zset: 'ZCARD',
  set: 'SCARD',
  list: 'LLEN',
  stream: 'XLEN',
  string: 'STRLEN',
};

/**
 * Whether a reply error means the server will not run the command for us
 * (renamed away, denied by ACL, disabled on a managed service) rather than
 * that something broke.
 */
export function isRefusal(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /unknown command|unknown subcommand|NOPERM|no permissions|not allowed|is disabled/i.test(message);
}

/** A refused command's reply, shortened for a one-line note. */
function refusalText(err: unknown): string {
  // Redis quotes the refused call's arguments (key names): the note is said once for all keys.
  const message = ((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '').replace(/, with args beginning with:.*$/, '');
  return message.length > 160 ? `${message.slice(0, 157)}...` : message;
}

/** The note shown once when MEMORY USAGE is refused. */
function bytesUnavailable(err: unknown): string {
  return `bytes unavailable: the server refused MEMORY USAGE (${refusalText(err)})`;
}

/**
 * The server's listpack limits with CONFIG GET; all null, with a note, when
 * the server refuses CONFIG (managed services often do).
 */
export async function readEncodingLimits(redis: Redis): Promise<{ limits: EncodingLimits; unavailable: string | null }> {
  const limits = Object.fromEntries(ENCODING_SETTINGS.map((name) => [name, null])) as Record<EncodingSetting, number | null>;
  try {
    const reply = (await redis.call('CONFIG', 'GET', '*-max-listpack-*')) as string[];
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const name = reply[i] as EncodingSetting;
      if ((ENCODING_SETTINGS as readonly string[]).includes(name)) limits[name] = Number(reply[i + 1]);
    }
    return { limits, unavailable: null };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return { limits, unavailable: `listpack limits unknown: the server refused CONFIG GET (${refusalText(err)})` };
  }
}

/**
 * `MEMORY USAGE` of keys, exact (`SAMPLES 0`) up to
 * {@link EXACT_MEMORY_MAX_ELEMENTS} elements and sampled above. When the
 * server refuses MEMORY, every figure is null and `unavailable` says why.
 */
export async function memoryUsage(
  redis: Redis,
  keys: readonly { readonly key: string; readonly elements: number | null }[],
  exactMaxElements = EXACT_MEMORY_MAX_ELEMENTS,
): Promise<{ bytes: (number | null)[]; exact: boolean[]; unavailable: string | null }> {
  const exact = keys.map((k) => (k.elements ?? 0) <= exactMaxElements);
  if (keys.length === 0) return { bytes: [], exact, unavailable: null };
  const pipeline = redis.pipeline();
  keys.forEach((k, i) => {
    if (exact[i]) pipeline.call('MEMORY', 'USAGE', k.key, 'SAMPLES', '0');
    else pipeline.call('MEMORY', 'USAGE', k.key);
  });
  const replies = (await pipeline.exec()) ?? [];
  let unavailable: string | null = null;
  const bytes = replies.map(([err, value]) => {
    if (err) {
      if (!isRefusal(err)) throw err;
      unavailable ??= bytesUnavailable(err);
      return null;
    }
    return value === null ? null : Number(value);
  });
  return { bytes, exact, unavailable };
}

/** What {@link describeKeys} learns without reading the contents. */
export type KeyHeader = Omit<KeyInspection, 'limits'>;

/** TYPE of each key, in one round trip; `none` for a missing key. */
export async function keyTypes(redis: Redis, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.type(key);
  return (await exec(pipeline)).map(String);
}

/** Runs a pipeline and returns its replies, throwing the first error. */
export async function exec(pipeline: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/**
 * Type, encoding, element count, bytes, TTL and slot of keys that exist.
 * A key whose type is not the expected one is described but not counted.
 * Bytes are null (and `unavailable` says why) when the server refuses MEMORY.
 */
export async function describeKeys(redis: Redis, specs: readonly LightKey[]): Promise<{ headers: KeyHeader[]; unavailable: string | null }> {
  const types = await keyTypes(
    redis,
    specs.map((s) => s.key),
  );
  const pipeline = redis.pipeline();
  specs.forEach((spec, i) => {
    const size = SIZE_COMMAND[spec.type];
    pipeline.call('OBJECT', 'ENCODING', spec.key);
    pipeline.ttl(spec.key);
    if (types[i] !== spec.type || size === undefined) pipeline.echo('');
    else pipeline.call(size, spec.key);
  });
  const replies = await exec(pipeline);
  const headers = specs.map((spec, i) => {
    const type = types[i] ?? 'none';
    const wrongType = type !== spec.type;
    const ttl = Number(replies[3 * i + 1]);
    const counted = !wrongType && SIZE_COMMAND[type] !== undefined;
    return {
      key: spec.key,
      role: spec.role,
      expectedType: spec.type,
      type,
      wrongType,
      encoding: wrongType ? null : String(replies[3 * i]),
      elements: counted ? Number(replies[3 * i + 2]) : null,
      ttlSeconds: ttl >= 0 ? ttl : null,
      slot: keySlot(spec.key),
    };
  });
  const memory = await memoryUsage(redis, headers);
  return {
    headers: headers.map((header, i) => ({ ...header, bytes: memory.bytes[i] ?? null, bytesExact: memory.exact[i] ?? true })),
    unavailable: memory.unavailable,
  };
}

/** The longest string seen so far, in bytes. */
export class Longest {
  bytes = 0;
  label: string | null = null;

  see(text: string, label: string): void {
    // A value left on the server ({@link notRead}) counts at its real size.
    const bytes = notReadBytes(text) ?? Buffer.byteLength(text, 'utf8');
    if (bytes > this.bytes) {
      this.bytes = bytes;
      this.label = label;
    }
  }
}

/** The listpack limits that apply to a hash or sorted set, with the longest element seen; null for other keys. */
export function limitsOf(header: KeyHeader, limits: EncodingLimits, longest: Longest): KeyLimits | null {
  if (header.wrongType || (header.type !== 'hash' && header.type !== 'zset')) return null;
  const entriesSetting = `${header.type}-max-listpack-entries` as const;
  const valueSetting = `${header.type}-max-listpack-value` as const;
  return {
    entriesSetting,
    entriesLimit: limits[entriesSetting],
    valueSetting,
    valueLimit: limits[valueSetting],
    longestBytes: longest.bytes,
    longest: longest.label,
  };
}

/** The largest hash value swc reads off a server; a longer one is named by its length ({@link notRead}) and left on the server. */
export const MAX_READ_VALUE_BYTES = 64 * 1024;
/** Hashes up to this size (MEMORY USAGE) are read with HSCAN as they are. */
const SMALL_HASH_BYTES = 1024 * 1024;
/** Above this many bytes per field on average, a large hash holds big values: its fields are sized one by one first. */
const BIG_VALUE_AVERAGE_BYTES = 512;

/** The size a {@link notRead} placeholder names, or null for any other text. */
export function notReadBytes(text: string): number | null {
  const match = NOT_READ.exec(text);
  return match ? Number((match[1] as string).replace(/,/g, '')) : null;
}
const NOT_READ = /^\[not read: ([\d,]+) bytes, over swc's [\d,]+-byte read bound\]$/;

/** What stands for a value over {@link MAX_READ_VALUE_BYTES} that was not read. */
export const notRead = (bytes: number): string =>
  `[not read: ${bytes.toLocaleString('en-US')} bytes, over swc's ${MAX_READ_VALUE_BYTES.toLocaleString('en-US')}-byte read bound]`;

/**
 * Every field and value of a hash, read with HSCAN in pages. A hash over
 * 1 MiB whose fields average over 512 bytes (an 8 MB `last_error_json` in a
 * metadata hash) is read field by field instead (HRANDFIELD for the names,
 * HSTRLEN for each size, HMGET of those under the bound): a value over
 * {@link MAX_READ_VALUE_BYTES} is never pulled off the server, its length
 * stands in its place ({@link notRead}).
 */
export async function readHash(redis: Redis, key: string): Promise<Map<string, string>> {
  const bounded = await readHashBounded(redis, key);
  if (bounded) return bounded;
  const fields = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', PAGE_SIZE);
    // HSCAN may return a field twice while the hash rehashes; the map keeps one.
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string);
    cursor = next;
  } while (cursor !== '0');
  return fields;
}

/** {@link readHash}'s field-by-field read of a hash with big values, or null when HSCAN is fine (or a command it needs is refused). */
async function readHashBounded(redis: Redis, key: string): Promise<Map<string, string> | null> {
  try {
    const bytes = Number(await redis.call('MEMORY', 'USAGE', key));
    if (!(bytes > SMALL_HASH_BYTES)) return null;
    const count = await redis.hlen(key);
    if (count === 0 || bytes / count <= BIG_VALUE_AVERAGE_BYTES) return null;
    const names = (await redis.call('HRANDFIELD', key, String(count))) as string[];
    const sizing = redis.pipeline();
    for (const name of names) sizing.hstrlen(key, name);
    const sizes = ((await sizing.exec()) ?? []).map(([err, n]) => (err ? 0 : Number(n)));
    const fields = new Map<string, string>();
    const small = names.filter((name, i) => {
      const size = sizes[i] ?? 0;
      if (size > MAX_READ_VALUE_BYTES) fields.set(name, notRead(size));
      return size <= MAX_READ_VALUE_BYTES;
    });
    for (let i = 0; i < small.length; i += PAGE_SIZE) {
      const page = small.slice(i, i + PAGE_SIZE);
      const values = await redis.hmget(key, ...page);
      // A field deleted in between is left out, as HSCAN would.
      page.forEach((name, j) => {
        const value = values[j];
        if (value !== null && value !== undefined) fields.set(name, value);
      });
    }
    return fields;
  } catch {
    return null;
  }
}

/**
 * Every member of a sorted set with its score, in score order, read by rank
 * in pages (ZRANGE by index is O(log N) to reach a page, unlike LIMIT offsets).
 */
export async function readSortedSet(redis: Redis, key: string, onPage: (members: string[], scores: number[]) => void): Promise<void> {
  for (let start = 0; ; start += PAGE_SIZE) {
    const flat = await redis.zrange(key, start, start + PAGE_SIZE - 1, 'WITHSCORES');
    const members: string[] = [];
    const scores: number[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      members.push(flat[i] as string);
      scores.push(Number(flat[i + 1]));
    }
    onPage(members, scores);
    if (flat.length < 2 * PAGE_SIZE) return;
  }
}

/** The default {@link KeySearch}: one paced SCAN pass of its own per pattern, as swc lights makes. */
export function scanSearch(redis: Redis): KeySearch {
  return async (pattern) => {
    const found: string[] = [];
    await scanOnce(redis, [pattern], (key) => found.push(key));
    return found;
  };
}

/** Every key matching a SCAN pattern (each call bounded by COUNT). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', PAGE_SIZE);
    for (const key of batch) keys.add(key);
    cursor = next;
  } while (cursor !== '0');
  return [...keys].sort();
}

/**
 * Cheap facts that change with every write to the keys: element counts, and
 * the counters of hashes. Equal before and after a read means no write (that
 * these show) landed in between.
 */
export async function fingerprint(redis: Redis, specs: readonly LightKey[]): Promise<string> {
  const pipeline = redis.pipeline();
  for (const spec of specs) {
    pipeline.type(spec.key);
    // On a key of the wrong type these fail; the error text still fingerprints it.
    if (spec.type === 'hash') {
      pipeline.hlen(spec.key);
      if (spec.watchFields && spec.watchFields.length > 0) pipeline.hmget(spec.key, ...spec.watchFields);
    } else if (spec.type === 'zset') {
      pipeline.zcard(spec.key);
      pipeline.zrange(spec.key, -1, -1, 'WITHSCORES');
    } else {
      const size = SIZE_COMMAND[spec.type];
      if (size !== undefined) pipeline.call(size, spec.key);
    }
  }
  const replies = (await pipeline.exec()) ?? [];
  return JSON.stringify(replies.map(([err, value]) => (err ? String(err.message) : value)));
}

/**
 * Reads until the keys look the same before and after (at most `attempts`
 * times), so a server under write load gives a view of one moment or says
 * it could not.
 */
export async function readConsistently<T>(
  redis: Redis,
  specs: () => readonly LightKey[],
  read: () => Promise<T>,
  attempts = 3,
): Promise<{ result: T; consistent: boolean }> {
  let result: T | undefined;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const before = await fingerprint(redis, specs());
    result = await read();
    const after = await fingerprint(redis, specs());
    if (before === after) return { result, consistent: true };
  }
  return { result: result as T, consistent: false };
}

/** `last_error_json` and the other metadata fields, decoded. */
export function decodeMetadata(fields: Map<string, string>): {
  fields: Record<string, string>;
  lastError: unknown;
  lastErrorInvalid: boolean;
} {
  const record = Object.fromEntries([...fields].sort(([a], [b]) => a.localeCompare(b)));
  const raw = fields.get('last_error_json');
  // Left on the server for its size: not read, so neither parsed nor called invalid.
  if (raw === undefined || notReadBytes(raw) !== null) return { fields: record, lastError: null, lastErrorInvalid: false };
  try {
    return { fields: record, lastError: JSON.parse(raw) as unknown, lastErrorInvalid: false };
  } catch {
    return { fields: record, lastError: null, lastErrorInvalid: true };
  }
}

/** Integer of a Redis reply, 0 when missing or not a number. */
export function count(value: string | undefined): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** The summary line's figures. */
export function summarize(
  window: Counts | null,
  keys: readonly KeyInspection[],
  per: { readonly windowSeconds: number | null } | { readonly heldEvents: number },
): InspectionSummary {
  const events = window === null ? 0 : window.successes + window.failures;
  const bytes = keys.some((key) => key.bytes === null) ? null : keys.reduce((sum, key) => sum + (key.bytes ?? 0), 0);
  return {
    errorRate: window === null || events === 0 ? null : window.failures / events,
    bytes,
    bytesPerWindowSecond: bytes !== null && 'windowSeconds' in per && per.windowSeconds !== null ? bytes / per.windowSeconds : null,
    bytesPerEvent: bytes !== null && 'heldEvents' in per && per.heldEvents > 0 ? bytes / per.heldEvents : null,
  };
}

/** The window as reports show it: `(at - seconds, at]`, or everything when there is no window. */
export function windowOf(judge: JudgeOptions): WindowView {
  return {
    lengthSeconds: judge.windowSeconds,
    at: judge.at,
    clock: judge.clock,
    fromSecond: judge.windowSeconds === null ? null : judge.at - judge.windowSeconds + 1,
    source: judge.windowSeconds === null ? 'none' : 'given',
  };
}
