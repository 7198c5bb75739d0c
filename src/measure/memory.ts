import type { Redis } from 'ioredis';
import { parseInfo } from '../redis/info.js';
import type { LightKey } from '../layouts/types.js';
import type { KeyMemory } from './types.js';

/** `INFO memory` used_memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number(parseInfo(await redis.info('memory')).used_memory ?? 0);
}

/**
 * Measures each existing key: type, encoding, element count and
 * `MEMORY USAGE … SAMPLES 0` (exact; the default samples 5 elements of a
 * hashtable or skiplist and extrapolates). Keys that do not exist are left out.
 */
export async function measureKeys(redis: Redis, keys: readonly LightKey[]): Promise<KeyMemory[]> {
  if (keys.length === 0) return [];
  const probe = redis.pipeline();
  for (const { key } of keys) {
    probe.type(key);
    probe.object('ENCODING', key);
    probe.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
  }
  const replies = (await probe.exec()) ?? [];
  const measured: { role: string; key: string; type: string; encoding: string; bytes: number }[] = [];
  keys.forEach(({ key, role }, i) => {
    const [typeReply, encodingReply, bytesReply] = [replies[3 * i], replies[3 * i + 1], replies[3 * i + 2]];
    const type = String(typeReply?.[1] ?? 'none');
    if (type === 'none') return;
    if (bytesReply?.[0]) throw bytesReply[0];
    measured.push({ role, key, type, encoding: String(encodingReply?.[1] ?? 'unknown'), bytes: Number(bytesReply?.[1] ?? 0) });
  });
  const counts = redis.pipeline();
  for (const { key, type } of measured) {
    if (type === 'hash') counts.hlen(key);
    else if (type === 'zset') counts.zcard(key);
    else if (type === 'set') counts.scard(key);
    else if (type === 'list') counts.llen(key);
    else counts.exists(key);
  }
  const lengths = (await counts.exec()) ?? [];
  return measured.map((m, i) => ({ ...m, elements: Number(lengths[i]?.[1] ?? 0) }));
}
