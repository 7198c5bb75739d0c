/**
 * Where a command writes or reads: one server, or the primaries of a Redis
 * Cluster, each key on the primary that owns its slot. Everything above this
 * module treats both the same way: it asks the Target which primary holds a
 * key and runs per-primary work through {@link Target.each}.
 */
import type { Redis } from 'ioredis';
import { nodeAddress, type ClusterSession } from './cluster.js';
import type { Session } from './connect.js';
import { routedRedis } from './routed.js';

/** One server of a target: a single server, or one primary of a cluster. */
export interface Shard {
  readonly session: Session;
  /** `host:port`, as messages and results name the node. */
  readonly node: string;
}

/** A single server, or a cluster's primaries with their slots. */
export interface Target {
  /** Every server written to: one, or each primary in slot order. */
  readonly shards: readonly Shard[];
  /** The cluster's session on Redis Cluster (even of one primary: lights are spread by slot, results say per primary); absent on a single server. */
  readonly cluster?: ClusterSession;
  /** Set when swc started every node itself (and stops them on {@link close}). */
  readonly private: boolean;
  /** Index into {@link shards} of the primary that owns `key`. */
  shardOfKey(key: string): number;
  /** `host:port` of the primary that owns `key`. */
  nodeOfKey(key: string): string;
  /** On a cluster: `host:port` of the primary that holds `key` (what a read names beside each key). */
  readonly nodeOf?: (key: string) => string;
  /** One handle on the whole target: the server's own connection, or one routed over every primary. */
  readonly redis: Redis;
  /** The URL given (a cluster's first seed, or its first primary). */
  readonly url: string;
  /** Runs `work` on every primary, one after another, and returns what each gave in shard order. */
  each<T>(work: (shard: Shard, index: number) => Promise<T>): Promise<T[]>;
  /** Closes every connection (and stops what swc started). Safe to call twice. */
  close(): Promise<void>;
}

/** `host:port` of a URL; a unix socket's URL (`unix:<path>`) names itself. */
export function nodeOfUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'unix:') return url;
  return `${parsed.hostname}:${parsed.port || '6379'}`;
}

async function eachOf<T>(shards: readonly Shard[], work: (shard: Shard, index: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const [i, shard] of shards.entries()) out.push(await work(shard, i));
  return out;
}

/** A single server: one shard, every key on it. */
export function singleTarget(session: Session): Target {
  const node = nodeOfUrl(session.url);
  const shards = [{ session, node }];
  return {
    shards,
    private: Boolean(session.server),
    shardOfKey: () => 0,
    nodeOfKey: () => node,
    redis: session.redis,
    url: session.url,
    each: (work) => eachOf(shards, work),
    close: () => session.close(),
  };
}

/** The primaries of a cluster, in slot order; `url` is the seed to name (default the first primary's). */
export function clusterTarget(cluster: ClusterSession, url?: string): Target {
  const shards = cluster.shards.map((session, i) => {
    const node = cluster.topology.nodes[i];
    return { session, node: node ? nodeAddress(node) : nodeOfUrl(session.url) };
  });
  const nodeOfKey = (key: string): string => shards[cluster.shardOfKey(key)]?.node ?? '?';
  let routed: Redis | undefined;
  return {
    shards,
    cluster,
    private: Boolean(cluster.cluster),
    shardOfKey: (key) => cluster.shardOfKey(key),
    nodeOfKey,
    nodeOf: nodeOfKey,
    // Made on first use: most runs address the primaries one by one.
    get redis() {
      routed ??= routedRedis(cluster);
      return routed;
    },
    url: url ?? cluster.shards[0]?.url ?? '',
    each: (work) => eachOf(shards, work),
    close: () => cluster.close(),
  };
}
