import type { Redis } from 'ioredis';
import { parseInfo } from '../redis/info.js';
import type { LightKey } from '../layouts/types.js';
import type { KeyMemory } from './types.js';

/** `INFO memory` used_memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number(parseInfo(await redis.info('memory')).used_memory ?? 0);
}

/** Lookups per pipeline while settling a key. */
const SETTLE_BATCH = 1000;
/** A field or member no layout writes: looking it up changes nothing but the rehash progress. */
const ABSENT = '\u0000swc-settle';

/**
 * Finishes any incremental rehash of a hashtable or skiplist key. Redis grows
 * a dict by allocating a second table and moving one bucket per later lookup;
 * until the move ends, MEMORY USAGE counts both tables. How many lookups the
 * move takes depends on the per-process hash seed, so without this the same
 * traffic measures one old table (e.g. 1024 bytes) more in some runs than in
 * others. Each lookup moves at least one bucket (or skips ten empty ones), and
 * a table that grew is at most twice its elements, so 2 × elements + 16
 * lookups always finish it.
 */
async function settle(redis: Redis, key: string, type: string, elements: number): Promise<void> {
  let left = 2 * elements + 16;
  while (left > 0) {
    const batch = redis.pipeline();
    for (let i = 0; i < Math.min(left, SETTLE_BATCH); i += 1) {
      if (type === 'hash') batch.hexists(key, ABSENT);
      else batch.zscore(key, ABSENT);
    }
    left -= SETTLE_BATCH;
    const replies = (await batch.exec()) ?? [];
    const failed = replies.find(([err]) => err);
    if (failed?.[0]) throw failed[0];
  }
}

/**
 * Measures each existing key: type, encoding, element count and
 * `MEMORY USAGE … SAMPLES 0` (exact; the default samples 5 elements of a
 * hashtable or skiplist and extrapolates). Hashtable and skiplist keys are
 * settled first (see {@link settle}) so the figure does not depend on how far
 * a rehash got. Keys that do not exist are left out.
 */
export async function measureKeys(redis: Redis, keys: readonly LightKey[]): Promise<KeyMemory[]> {
  if (keys.length === 0) return [];
  const probe = redis.pipeline();
  for (const { key } of keys) {
    probe.type(key);
    probe.object('ENCODING', key);
  }
  const replies = (await probe.exec()) ?? [];
  const found: { role: string; key: string; type: string; encoding: string }[] = [];
  keys.forEach(({ key, role }, i) => {
    const type = String(replies[2 * i]?.[1] ?? 'none');
    if (type === 'none') return;
    found.push({ role, key, type, encoding: String(replies[2 * i + 1]?.[1] ?? 'unknown') });
  });
  const counts = redis.pipeline();
  for (const { key, type } of found) {
    if (type === 'hash') counts.hlen(key);
    else if (type === 'zset') counts.zcard(key);
    else if (type === 'set') counts.scard(key);
    else if (type === 'list') counts.llen(key);
    else counts.exists(key);
  }
  const lengths = (await counts.exec()) ?? [];
  const counted = found.map((f, i) => ({ ...f, elements: Number(lengths[i]?.[1] ?? 0) }));
  for (const k of counted) {
    if ((k.type === 'hash' && k.encoding === 'hashtable') || (k.type === 'zset' && k.encoding === 'skiplist')) {
      await settle(redis, k.key, k.type, k.elements);
    }
  }
  const sizes = redis.pipeline();
  for (const { key } of counted) sizes.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
  const bytes = (await sizes.exec()) ?? [];
  return counted.map((k, i) => {
    const [err, value] = bytes[i] ?? [null, 0];
    if (err) throw err;
    return { role: k.role, key: k.key, type: k.type, encoding: k.encoding, elements: k.elements, bytes: Number(value ?? 0) };
  });
}
