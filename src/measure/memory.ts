import type { Redis } from 'ioredis';
import { classifyRedisError } from '../redis/errors.js';
import { parseInfo } from '../redis/info.js';
import { RequestWriter, RespConnection, type BatchErrors } from '../redis/resp.js';
import type { LightKey } from '../layouts/types.js';
import type { KeyMemory } from './types.js';

/** `INFO memory` used_memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number(parseInfo(await redis.info('memory')).used_memory ?? 0);
}

/** Lookups per command while settling a key (HMGET and ZMSCORE take many fields or members). */
const SETTLE_PER_COMMAND = 1000;
/** Commands per pipelined batch while settling a key. */
const SETTLE_BATCH = 16;
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
 * lookups always finish it. They go as HMGET / ZMSCORE with many absent
 * fields or members each (every one a lookup of its own), two batches in
 * flight: a thousandth of the commands one lookup each would take; a server
 * without ZMSCORE (before 6.2) gets one ZSCORE per lookup.
 */
async function settle(connection: RespConnection, key: string, type: string, elements: number): Promise<void> {
  const total = 2 * elements + 16;
  const many = type === 'hash' ? 'HMGET' : 'ZMSCORE';
  const done = await lookups(connection, key, many, Math.min(SETTLE_PER_COMMAND, total), total);
  if (done < total) await lookups(connection, key, type === 'hash' ? 'HEXISTS' : 'ZSCORE', 1, total - done);
}

/**
 * Sends `total` lookups of ABSENT in `key`, `per` to a command; returns how
 * many were done: all, or none when the server lacks the command (the
 * caller falls back). Any other error reply throws, typed.
 */
async function lookups(connection: RespConnection, key: string, name: string, per: number, total: number): Promise<number> {
  const writer = new RequestWriter();
  const commands = Math.ceil(total / per);
  const batch = Math.min(commands, SETTLE_BATCH);
  for (let i = 0; i < batch; i += 1) writer.command([name, key, ...Array.from({ length: per }, () => ABSENT)]);
  const full = Buffer.from(writer.bytes());
  const size = full.length / batch;
  const check = (errors: BatchErrors): boolean => {
    const message = errors?.find((e) => e !== null);
    if (!message) return true;
    if (/^ERR unknown command/i.test(message) && per > 1) return false;
    throw classifyRedisError(message, { command: name, keys: [key] });
  };
  // Whole commands only: the last batch may do up to one command's lookups more than asked, which changes nothing.
  const first = connection.send(full, batch);
  if (!check(await first)) return 0;
  let left = commands - batch;
  const inFlight: Promise<BatchErrors>[] = [];
  try {
    while (left > 0 || inFlight.length > 0) {
      while (left > 0 && inFlight.length < 2) {
        const n = Math.min(left, batch);
        inFlight.push(connection.send(n === batch ? full : full.subarray(0, n * size), n));
        left -= n;
      }
      check(await (inFlight.shift() as Promise<BatchErrors>));
    }
  } finally {
    // After a failure, the batch still in flight fails when the caller closes the connection.
    for (const pending of inFlight) pending.catch(() => undefined);
  }
  return total;
}

/**
 * Measures each existing key: type, encoding, element count and
 * `MEMORY USAGE … SAMPLES 0` (exact; the default samples 5 elements of a
 * hashtable or skiplist and extrapolates). Hashtable and skiplist keys are
 * settled first (see {@link settle}) so the figure does not depend on how far
 * a rehash got. Keys that do not exist are left out.
 */
export async function measureKeys(redis: Redis, keys: readonly Pick<LightKey, 'key' | 'role'>[]): Promise<KeyMemory[]> {
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

/**
 * A name for a copy of `key`: the same length (a key's name counts in its
 * MEMORY USAGE, by its allocation), the same hash tag and the same prefix,
 * with the last character changed. Null when that character closes a hash
 * tag (changing it would move the copy to another slot).
 */
export function copyNameOf(key: string): string | null {
  const last = key.at(-1);
  if (last === undefined || last === '}') return null;
  return `${key.slice(0, -1)}${last === '#' ? '$' : '#'}`;
}

/** Replies that mean "this server or user has no COPY": the caller measures another way. */
const NO_COPY = /^(ERR unknown command|NOPERM)/i;

/**
 * `MEMORY USAGE … SAMPLES 0` of `count` server-side copies of `key`, made
 * and deleted one at a time in one pipeline (COPY, MEMORY USAGE, DEL) under
 * {@link copyNameOf}'s name. COPY builds a sorted set's skiplist anew, node
 * by node, so each copy draws every node's random level afresh: its usage
 * is another draw of what the key's own skiplist drew once. Null when the
 * server has no COPY (before 6.2) or refuses it to this user, when the key
 * has no copy name, or when the name is taken (COPY without REPLACE leaves
 * an existing key alone). Any other error reply throws, typed.
 */
export async function copiesUsage(redis: Redis, key: string, count: number): Promise<number[] | null> {
  const copy = copyNameOf(key);
  if (copy === null) return null;
  if (count <= 0) return [];
  // The pipeline deletes the name after each COPY: a key already there (another key of the light) is left alone.
  if ((await redis.exists(copy)) !== 0) return null;
  const pipeline = redis.pipeline();
  for (let i = 0; i < count; i += 1) {
    pipeline.call('COPY', key, copy);
    pipeline.call('MEMORY', 'USAGE', copy, 'SAMPLES', '0');
    pipeline.del(copy);
  }
  const replies = (await pipeline.exec()) ?? [];
  const usages: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const [copyErr, copied] = replies[3 * i] ?? [null, 0];
    if (copyErr) {
      if (NO_COPY.test(copyErr.message)) return null;
      throw classifyRedisError(copyErr, { command: 'COPY', keys: [key, copy] });
    }
    // 0: the key is gone or the name was taken meanwhile; nothing of it to measure.
    if (Number(copied) !== 1) return null;
    const [usageErr, usage] = replies[3 * i + 1] ?? [null, 0];
    if (usageErr) throw classifyRedisError(usageErr, { command: 'MEMORY USAGE', keys: [copy] });
    usages.push(Number(usage ?? 0));
  }
  return usages;
}
