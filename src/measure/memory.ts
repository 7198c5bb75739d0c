import type { Redis } from 'ioredis';
import { classifyRedisError } from '../redis/errors.js';
import { parseInfo } from '../redis/info.js';
import { RequestWriter, RespConnection } from '../redis/resp.js';
import type { LightKey } from '../layouts/types.js';
import type { KeyMemory } from './types.js';

/** `INFO memory` used_memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number(parseInfo(await redis.info('memory')).used_memory ?? 0);
}

/** Lookups per pipeline while settling a key. */
const SETTLE_BATCH = 4096;
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
async function settle(connection: RespConnection, key: string, type: string, elements: number): Promise<void> {
  const name = type === 'hash' ? 'HEXISTS' : 'ZSCORE';
  let left = 2 * elements + 16;
  // One lookup encoded once and repeated: the client's cost stays far below the server's.
  const per = Math.min(left, SETTLE_BATCH);
  const writer = new RequestWriter();
  for (let i = 0; i < per; i += 1) writer.command([name, key, ABSENT]);
  const full = Buffer.from(writer.bytes());
  const size = full.length / per;
  while (left > 0) {
    const n = Math.min(left, per);
    const errors = await connection.send(n === per ? full : full.subarray(0, n * size), n);
    const message = errors?.find((e) => e !== null);
    if (message) throw classifyRedisError(message, { command: name, keys: [key] });
    left -= n;
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
  const unsettled = counted.filter((k) => (k.type === 'hash' && k.encoding === 'hashtable') || (k.type === 'zset' && k.encoding === 'skiplist'));
  if (unsettled.length > 0) {
    // Tens of thousands of lookups: on a lean socket of their own, not through ioredis.
    const connection = await RespConnection.open(redis.options);
    try {
      for (const k of unsettled) await settle(connection, k.key, k.type, k.elements);
    } finally {
      connection.close();
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
