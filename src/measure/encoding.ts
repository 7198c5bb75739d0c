/**
 * Why a key left its compact encoding: the facts Redis decides it on, read
 * while the key still exists. Redis keeps a hash a listpack while it has at
 * most `hash-max-listpack-entries` fields and every field name and value is
 * at most `hash-max-listpack-value` bytes; a sorted set likewise with
 * `zset-max-listpack-*` and its members. This module only measures (the
 * longest name and value); src/bench/encoding-advice.ts compares them with
 * the server's limits.
 */
import type { Redis } from 'ioredis';
import type { KeyMemory, LongestParts } from './types.js';

/** Keys with more elements than this are not read whole: their element count already explains their encoding. */
export const LONGEST_SCAN_LIMIT = 10_000;
/** How much of a field name or member a result keeps (the length is always exact). */
const TEXT_KEPT = 64;

/** Whether a key's encoding is the big one of its type (what the listpack/intset limits push a key into). */
export function isExpanded(key: Pick<KeyMemory, 'type' | 'encoding'>): boolean {
  if (key.type === 'hash' || key.type === 'set') return key.encoding === 'hashtable';
  if (key.type === 'zset') return key.encoding === 'skiplist';
  if (key.type === 'list') return key.encoding === 'linkedlist';
  return false;
}

function longestOf(items: readonly Buffer[]): { index: number; bytes: number } {
  let index = -1;
  let bytes = -1;
  items.forEach((b, i) => {
    if (b.length > bytes) {
      bytes = b.length;
      index = i;
    }
  });
  return { index, bytes };
}

/** The longest field name and value of a hash, or member of a sorted set; undefined for other types or an empty key. */
async function longestParts(redis: Redis, key: KeyMemory): Promise<LongestParts | undefined> {
  if (key.type === 'hash') {
    const flat = (await redis.callBuffer('HGETALL', key.key)) as Buffer[];
    const names = flat.filter((_, i) => i % 2 === 0);
    const values = flat.filter((_, i) => i % 2 === 1);
    const name = longestOf(names);
    const value = longestOf(values);
    if (name.index < 0 || value.index < 0) return undefined;
    return {
      name: { text: (names[name.index] as Buffer).toString('utf8').slice(0, TEXT_KEPT), bytes: name.bytes },
      value: { field: (names[value.index] as Buffer).toString('utf8').slice(0, TEXT_KEPT), bytes: value.bytes },
    };
  }
  if (key.type === 'zset') {
    const members = (await redis.callBuffer('ZRANGE', key.key, '0', '-1')) as Buffer[];
    const member = longestOf(members);
    if (member.index < 0) return undefined;
    return { name: { text: (members[member.index] as Buffer).toString('utf8').slice(0, TEXT_KEPT), bytes: member.bytes } };
  }
  return undefined;
}

/**
 * The keys with {@link KeyMemory.longest} filled in for every hash and
 * sorted set that left listpack and has at most {@link LONGEST_SCAN_LIMIT}
 * elements. Reads only; call it while the keys exist.
 */
export async function withLongestParts(redis: Redis, keys: readonly KeyMemory[]): Promise<KeyMemory[]> {
  const out: KeyMemory[] = [];
  for (const key of keys) {
    if (!isExpanded(key) || key.elements > LONGEST_SCAN_LIMIT) {
      out.push(key);
      continue;
    }
    const longest = await longestParts(redis, key);
    out.push(longest ? { ...key, longest } : key);
  }
  return out;
}
