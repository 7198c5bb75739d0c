import type { Redis } from 'ioredis';
import { parseInfo } from '../redis/info.js';

/** How long to wait for the server's lazy-free thread by default. */
export const LAZYFREE_BOUND_MS = 5000;

/** `lazyfree_pending_objects` of INFO memory; null when INFO is refused or the server has no such field (before 6.2). */
export async function lazyfreePending(redis: Redis): Promise<number | null> {
  const text = await redis.info('memory').catch(() => null);
  if (text === null) return null;
  const value = parseInfo(text).lazyfree_pending_objects;
  return value === undefined ? null : Number(value);
}

/**
 * Waits until the server's background thread has freed every object a DEL
 * handed it (lazyfree_pending_objects is 0), at most `boundMs`; returns
 * whether it got there (true also when the server cannot say).
 *
 * Why: with lazyfree-lazy-user-del (Valkey 8 and later default to yes, as do
 * servers configured so), DEL of a large key only unlinks it and a
 * background thread frees it afterwards. Measured on Valkey 8.0.1: right
 * after DEL of ten 6,000-member sorted sets used_memory was still 850 KB
 * above where it settled, with 2 objects pending. The previous cell's clean-up
 * then lands in the next cell's used_memory delta as a fall. Waiting here,
 * before a cell's first reading, keeps the fall out, on every build, whatever
 * its lazy-free settings are.
 */
export async function settleLazyFree(servers: readonly Redis[], boundMs = LAZYFREE_BOUND_MS): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const pending = await Promise.all(servers.map(lazyfreePending));
    if (pending.every((p) => p === null || p === 0)) return true;
    if (Date.now() >= deadline) return false;
    // The thread frees a large key within milliseconds: short steps keep a cell's wait short.
    await new Promise((r) => setTimeout(r, 2));
  }
}
