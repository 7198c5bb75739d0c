/**
 * The Redis a read or cleanup command (inspect, lights, clean) works on: one
 * server, or with `--cluster` / several `--redis-url` seeds every primary of
 * a running cluster behind one routed handle ({@link routedRedis}).
 */
import type { Redis } from 'ioredis';
import { UsageError } from '../errors.js';
import type { ClusterSession } from '../redis/cluster.js';
import { nodeName, routedRedis } from '../redis/routed.js';
import { clusterSessionFromFlags, sessionFromFlags, wantsCluster, type ClusterFlags, type RedisFlags } from './options.js';

/** Where a read command reads. */
export interface ReadTarget {
  /** One server's connection, or the routed handle over every primary. */
  readonly redis: Redis;
  /** The URL given (the first seed on a cluster). */
  readonly url: string;
  /** Set on a cluster. */
  readonly cluster?: ClusterSession;
  /** On a cluster: `host:port` of the primary that holds `key`. */
  readonly nodeOf?: (key: string) => string;
}

/**
 * Opens what the flags ask for. On a cluster the seeds come from
 * `--redis-url` (repeatable), else REDIS_URL, else `defaultUrl`: these
 * commands read an existing cluster, so `--cluster-shards` (a new, empty
 * private cluster) is refused.
 */
export async function readTargetFromFlags(flags: Partial<RedisFlags & ClusterFlags>, defaultUrl: string, command: string): Promise<ReadTarget> {
  if (!wantsCluster(flags)) {
    const session = await sessionFromFlags(flags, defaultUrl);
    return { redis: session.redis, url: session.url };
  }
  if (flags.clusterShards !== undefined) {
    throw new UsageError(`--cluster-shards: ${command} reads a running cluster (a private one would be empty); use --cluster --redis-url <node>`);
  }
  const env = process.env.REDIS_URL || undefined;
  const seeds = flags.redisUrls ?? (flags.redisUrl !== undefined ? [flags.redisUrl] : [env ?? defaultUrl]);
  const cluster = await clusterSessionFromFlags({ ...flags, redisUrls: seeds, redisUrl: seeds[0] as string });
  return {
    redis: routedRedis(cluster),
    url: seeds[0] as string,
    cluster,
    nodeOf: (key) => nodeName(cluster, cluster.shardOfKey(key)),
  };
}

/** The primaries of a cluster, for JSON: `host:port` and slot ranges. */
export function primariesOf(cluster: ClusterSession): { node: string; slots: string }[] {
  return cluster.topology.nodes.map((n) => ({ node: `${n.host}:${n.port}`, slots: n.ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',') }));
}
