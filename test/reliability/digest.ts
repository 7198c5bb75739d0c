import type { Redis } from 'ioredis';

/** Every key under `pattern` with its DUMP payload (hex): equal digests mean byte-identical values. */
export async function digest(redis: Redis, pattern: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) out[key] = ((await redis.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('hex');
  } while (cursor !== '0');
  return out;
}

/** Keys matching `pattern`. */
export async function keysMatching(redis: Redis, pattern: string): Promise<string[]> {
  return Object.keys(await digest(redis, pattern));
}
