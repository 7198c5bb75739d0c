/**
 * Memory per client of a package: every key under the run's prefix that
 * names one of a phase's client ids, measured with exact `MEMORY USAGE …
 * SAMPLES 0` (src/measure/memory.ts), summed per client; and each key's TTL.
 */
import type { Redis } from 'ioredis';
import { measureKeys } from './memory.js';

/** The keys a package made for a phase's clients. */
export interface ClientMemory {
  /** Clients the phase sent traffic for. */
  readonly clients: number;
  /** Keys found for them, and their MEMORY USAGE in total. */
  readonly keys: number;
  readonly bytes: number;
  /** bytes / clients, and keys / clients. */
  readonly bytesPerClient: number;
  readonly keysPerClient: number;
  /** Each kind of key (type and encoding) with how many there were. */
  readonly kinds: readonly { readonly type: string; readonly encoding: string; readonly keys: number }[];
  /** TTLs of those keys: how many had none (PTTL -1), and the longest left (ms). */
  readonly withoutTtl: readonly string[];
  readonly maxTtlMs: number | null;
  /** The key with the longest TTL left (the one a TTL past the package's bound is shown by); null when none has one. */
  readonly longestTtlKey: string | null;
}

/** Every key under `prefix` (SCAN, so a shared server is not blocked). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  // A glob's special characters in the prefix are escaped.
  const match = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return [...new Set(keys)];
}

/**
 * The client a key belongs to: the package's own reading of its name, else the
 * one of `ids` the name contains (ids are fixed-width, none inside another).
 */
export function ownerOf(key: string, prefix: string, ids: ReadonlySet<string>, clientOfKey: (key: string, prefix: string) => string | null): string | null {
  const named = clientOfKey(key, prefix);
  if (named !== null && ids.has(named)) return named;
  for (const id of ids) if (key.includes(id)) return id;
  return null;
}

/** Measures the keys under `prefix` that belong to `ids`. */
export async function measureClientMemory(
  redis: Redis,
  prefix: string,
  ids: readonly string[],
  clientOfKey: (key: string, prefix: string) => string | null,
): Promise<ClientMemory> {
  const wanted = new Set(ids);
  const owned = (await keysUnder(redis, prefix)).filter((key) => ownerOf(key, prefix, wanted, clientOfKey) !== null).sort();
  const measured = await measureKeys(
    redis,
    owned.map((key) => ({ key, role: 'client' })),
  );
  const ttls = redis.pipeline();
  for (const k of measured) ttls.pttl(k.key);
  const replies = (await ttls.exec()) ?? [];
  const withoutTtl: string[] = [];
  let maxTtlMs: number | null = null;
  let longestTtlKey: string | null = null;
  measured.forEach((k, i) => {
    const ttl = Number(replies[i]?.[1] ?? -2);
    if (ttl === -1) withoutTtl.push(k.key);
    else if (ttl >= 0 && (maxTtlMs === null || ttl > maxTtlMs)) {
      maxTtlMs = ttl;
      longestTtlKey = k.key;
    }
  });
  const kinds = new Map<string, { type: string; encoding: string; keys: number }>();
  for (const k of measured) {
    const name = `${k.type}/${k.encoding}`;
    const kind = kinds.get(name) ?? { type: k.type, encoding: k.encoding, keys: 0 };
    kind.keys += 1;
    kinds.set(name, kind);
  }
  const bytes = measured.reduce((sum, k) => sum + k.bytes, 0);
  const clients = Math.max(1, ids.length);
  return {
    clients: ids.length,
    keys: measured.length,
    bytes,
    bytesPerClient: bytes / clients,
    keysPerClient: measured.length / clients,
    kinds: [...kinds.values()],
    withoutTtl,
    maxTtlMs,
    longestTtlKey,
  };
}
