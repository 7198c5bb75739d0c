/**
 * What a read use case (inspect, lights) sees of where it reads: the
 * {@link Target} the one door opened (read-only: nothing here writes), or a
 * bare connection a library caller holds. On a cluster it reads every
 * primary through the target's routed handle and names the primary of each
 * key; cluster discovery and the slot map stay behind the Target (src/redis/).
 */
import type { Redis } from 'ioredis';
import { primariesOf } from '../redis/cluster-read.js';
import type { Target } from '../redis/target.js';

/** Where a read use case reads: a Target, or a connection to one server. */
export type ReadWhere = Redis | Target;

/** A read's view of `where`: one handle, and on a cluster the primary of each key and every primary with its slots. */
export interface ReadView {
  readonly redis: Redis;
  readonly nodeOf?: (key: string) => string;
  readonly primaries?: readonly { readonly node: string; readonly slots: string }[];
}

/** Whether `where` is a Target (not a bare connection). */
export const isTarget = (where: ReadWhere): where is Target => 'shards' in where && 'each' in where;

/** The view a read takes of `where`. */
export function readView(where: ReadWhere): ReadView {
  if (!isTarget(where)) return { redis: where };
  const primaries = primariesOf(where);
  return {
    redis: where.redis,
    ...(where.cluster && where.nodeOf ? { nodeOf: where.nodeOf } : {}),
    ...(primaries ? { primaries } : {}),
  };
}
