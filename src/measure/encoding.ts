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

/** How many of a hash's longest values {@link KeyMemory.largest} keeps. */
const LARGEST_KEPT = 5;

/** A hash's longest values, longest first (ties by field name, so runs compare), at most {@link LARGEST_KEPT}. */
async function largestValues(redis: Redis, key: KeyMemory): Promise<{ field: string; bytes: number }[]> {
  const flat = (await redis.callBuffer('HGETALL', key.key)) as Buffer[];
  const out: { field: string; bytes: number }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    out.push({ field: (flat[i] as Buffer).toString('utf8').slice(0, TEXT_KEPT), bytes: (flat[i + 1] as Buffer).length });
  }
  return out.sort((a, b) => b.bytes - a.bytes || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)).slice(0, LARGEST_KEPT);
}

/**
 * The keys with {@link KeyMemory.longest} filled in for every hash and
 * sorted set that left listpack and has at most {@link LONGEST_SCAN_LIMIT}
 * elements. Reads only; call it while the keys exist.
 */
export async function withLongestParts(redis: Redis, keys: readonly KeyMemory[]): Promise<KeyMemory[]> {
  const out: KeyMemory[] = [];
  for (const key of keys) {
    if (key.elements > LONGEST_SCAN_LIMIT) {
      out.push(key);
      continue;
    }
    // Every hash, listpack too: a comparison names the field that grew (src/compare/memory-detail.ts).
    const largest = key.type === 'hash' && key.elements > 0 ? await largestValues(redis, key) : [];
    const longest = isExpanded(key) ? await longestParts(redis, key) : undefined;
    out.push({ ...key, ...(longest ? { longest } : {}), ...(largest.length > 0 ? { largest } : {}) });
  }
  return out;
}
