import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** The prefix every key of one benchmark run lives under. */
export interface Namespace {
  /** `swc-bench:<8 hex>`: fixed length, so key sizes repeat from run to run. */
  readonly prefix: string;
  /** SCAN MATCH pattern covering every key of the run and nothing else. */
  readonly pattern: string;
}

export function createNamespace(): Namespace {
  const prefix = `swc-bench:${randomBytes(4).toString('hex')}`;
  return { prefix, pattern: `${prefix}:*` };
}

/**
 * Deletes exactly the given keys (in batches). Used per cell, with the keys
 * the layout says a light has.
 */
export async function deleteKeys(redis: Redis, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}

/**
 * Deletes every key under the run's namespace, found with SCAN (never KEYS,
 * never FLUSHDB): the safety net at the end of a run and on Ctrl-C.
 * Returns how many keys were removed.
 */
export async function deleteNamespace(redis: Redis, namespace: Namespace): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', namespace.pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) removed += await redis.del(...keys);
  } while (cursor !== '0');
  return removed;
}

/**
 * Deletes the namespace until a pass finds nothing, so a write that was still
 * in flight when the run stopped cannot leave a key behind. Returns the keys removed.
 */
export async function purgeNamespace(redis: Redis, namespace: Namespace, passes = 5): Promise<number> {
  let total = 0;
  for (let pass = 0; pass < passes; pass += 1) {
    const removed = await deleteNamespace(redis, namespace);
    total += removed;
    if (removed === 0 && pass > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return total;
}
