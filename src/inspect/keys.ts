import type { Redis } from 'ioredis';
import type { ServerInfo } from '../redis/info.js';
import { keySlot } from '../redis/slot.js';
import type { Counts, InspectionSummary, KeyInspection, KeyLimits } from './types.js';

/** Elements per HSCAN / ZRANGE / SCAN call: no single call walks a large key. */
export const PAGE_SIZE = 1000;

/**
 * `MEMORY USAGE … SAMPLES 0` walks every element in one call; above this many
 * elements Redis is asked to sample instead, so a huge 5.x hour key does not
 * block the server. The figure is then marked as not exact.
 */
export const EXACT_MEMORY_MAX_ELEMENTS = 100_000;

/** A key the layout expects, before it is read. */
export interface KeySpec {
  readonly key: string;
  readonly role: string;
  readonly expectedType: 'hash' | 'zset';
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
 */
export async function describeKeys(redis: Redis, specs: readonly KeySpec[]): Promise<KeyHeader[]> {
  const types = await keyTypes(
    redis,
    specs.map((s) => s.key),
  );
  const pipeline = redis.pipeline();
  specs.forEach((spec, i) => {
    const matches = types[i] === spec.expectedType;
    pipeline.call('OBJECT', 'ENCODING', spec.key);
    pipeline.ttl(spec.key);
    if (!matches) pipeline.echo('');
    else if (spec.expectedType === 'hash') pipeline.hlen(spec.key);
    else pipeline.zcard(spec.key);
  });
  const replies = await exec(pipeline);
  const headers: KeyHeader[] = specs.map((spec, i) => {
    const type = types[i] ?? 'none';
    const wrongType = type !== spec.expectedType;
    const ttl = Number(replies[3 * i + 1]);
    return {
      key: spec.key,
      role: spec.role,
      expectedType: spec.expectedType,
      type,
      wrongType,
      encoding: wrongType ? null : String(replies[3 * i]),
      elements: wrongType ? null : Number(replies[3 * i + 2]),
      bytes: null,
      bytesExact: true,
      ttlSeconds: ttl >= 0 ? ttl : null,
      slot: keySlot(spec.key),
    };
  });
  const memory = redis.pipeline();
  for (const header of headers) {
    const exact = (header.elements ?? 0) <= EXACT_MEMORY_MAX_ELEMENTS;
    if (exact) memory.call('MEMORY', 'USAGE', header.key, 'SAMPLES', '0');
    else memory.call('MEMORY', 'USAGE', header.key);
  }
  const bytes = await exec(memory);
  return headers.map((header, i) => ({
    ...header,
    bytes: bytes[i] === null ? null : Number(bytes[i]),
    bytesExact: (header.elements ?? 0) <= EXACT_MEMORY_MAX_ELEMENTS,
  }));
}

/** The longest string seen so far, in bytes. */
export class Longest {
  bytes = 0;
  label: string | null = null;

  see(text: string, label: string): void {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.bytes) {
      this.bytes = bytes;
      this.label = label;
    }
  }
}

/** The limits that apply to a key of `header`'s type, with the longest element seen. */
export function limitsOf(header: KeyHeader, server: ServerInfo, longest: Longest): KeyLimits | null {
  if (header.wrongType) return null;
  const prefix = header.expectedType === 'hash' ? 'hash' : 'zset';
  const entriesSetting = `${prefix}-max-listpack-entries` as const;
  const valueSetting = `${prefix}-max-listpack-value` as const;
  return {
    entriesSetting,
    entriesLimit: server.config[entriesSetting],
    valueSetting,
    valueLimit: server.config[valueSetting],
    longestBytes: longest.bytes,
    longest: longest.label,
  };
}

/** Every field and value of a hash, read with HSCAN in pages. */
export async function readHash(redis: Redis, key: string): Promise<Map<string, string>> {
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

/**
 * Every member of a sorted set with its score, in score order, read by rank
 * in pages (ZRANGE by index is O(log N) to reach a page, unlike LIMIT offsets).
 */
export async function readSortedSet(
  redis: Redis,
  key: string,
  onPage: (members: string[], scores: number[]) => void,
): Promise<void> {
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
export async function fingerprint(redis: Redis, specs: readonly KeySpec[]): Promise<string> {
  const pipeline = redis.pipeline();
  for (const spec of specs) {
    pipeline.type(spec.key);
    // On a key of the wrong type these fail; the error text still fingerprints it.
    if (spec.expectedType === 'hash') {
      pipeline.hlen(spec.key);
      pipeline.hmget(spec.key, 'total_successes', 'total_failures', 'consecutive_successes', 'consecutive_errors');
    } else {
      pipeline.zcard(spec.key);
      pipeline.zrange(spec.key, -1, -1, 'WITHSCORES');
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
  specs: () => readonly KeySpec[],
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
  if (raw === undefined) return { fields: record, lastError: null, lastErrorInvalid: false };
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
  window: Counts,
  keys: readonly KeyInspection[],
  per: { readonly windowSeconds: number | null } | { readonly heldEvents: number },
): InspectionSummary {
  const events = window.successes + window.failures;
  const bytes = keys.reduce((sum, key) => sum + (key.bytes ?? 0), 0);
  return {
    errorRate: events === 0 ? null : window.failures / events,
    bytes,
    bytesPerWindowSecond: 'windowSeconds' in per && per.windowSeconds !== null ? bytes / per.windowSeconds : null,
    bytesPerEvent: 'heldEvents' in per && per.heldEvents > 0 ? bytes / per.heldEvents : null,
  };
}
