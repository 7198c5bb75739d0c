/**
 * The Redis a read or cleanup command (inspect, lights, clean) works on: one
 * server, or with `--cluster` / several `--redis-url` seeds every primary of
 * a running cluster behind one routed handle (a {@link Target}).
 */
import type { Redis } from 'ioredis';
import { ServerStateError, UsageError } from '../core/errors.js';
import { nodeAddress, slotRanges, type ClusterSession } from '../redis/cluster.js';
import { connect } from '../redis/connect.js';
import { isSlotMoved } from '../redis/routed.js';
import { clusterTarget, singleTarget, type Target } from '../redis/target.js';
import { clusterSessionFromFlags, sessionFromFlags, wantsCluster, type ClusterFlags, type RedisFlags } from './options.js';

/**
 * Opens what the flags ask for. On a cluster the seeds come from
 * `--redis-url` (repeatable), else REDIS_URL, else `defaultUrl`: these
 * commands read an existing cluster, so `--cluster-shards` (a new, empty
 * private cluster) is refused.
 */
export async function readTargetFromFlags(
  flags: Partial<RedisFlags & ClusterFlags>,
  defaultUrl: string,
  command: string,
  connectOptions: { commandTimeoutMs?: number } = {},
): Promise<Target> {
  if (!wantsCluster(flags)) {
    return singleTarget(await sessionFromFlags(flags, defaultUrl, connectOptions));
  }
  if (flags.clusterShards !== undefined) {
    throw new UsageError(`--cluster-shards: ${command} reads a running cluster (a private one would be empty); use --cluster --redis-url <node>`);
  }
  const env = process.env.REDIS_URL || undefined;
  const seeds = flags.redisUrls ?? (flags.redisUrl !== undefined ? [flags.redisUrl] : [env ?? defaultUrl]);
  const cluster = await openCluster({ ...flags, redisUrls: seeds, redisUrl: seeds[0] as string });
  return clusterTarget(cluster, seeds[0] as string);
}

/** The primaries of a cluster, for JSON: `host:port` and slot ranges. */
export function primariesOf(cluster: ClusterSession): { node: string; slots: string }[] {
  return cluster.topology.nodes.map((n) => ({ node: nodeAddress(n), slots: slotRanges(n) }));
}

/**
 * The primaries a seed's `CLUSTER NODES` marks as failing (`fail` or
 * `fail?`), as `host:port (slots …)`; empty when none is, or the seed cannot
 * tell.
 */
export async function failingNodes(seed: string): Promise<string[]> {
  let redis: Redis | undefined;
  try {
    redis = await connect(seed, { timeoutMs: 2000, commandTimeoutMs: 2000 });
    const text = String(await redis.call('CLUSTER', 'NODES'));
    return text
      .split('\n')
      .map((line) => line.trim().split(' '))
      .filter((f) => f.length >= 8 && /(^|,)fail\??(,|$)/.test(f[2] ?? '') && /(^|,)master(,|$)/.test(f[2] ?? ''))
      .map((f) => `${(f[1] ?? '').split('@')[0]}${f.length > 8 ? ` (slots ${f.slice(8).join(',')})` : ''}`);
  } catch {
    return [];
  } finally {
    redis?.disconnect();
  }
}

/**
 * {@link clusterSessionFromFlags}, and when the cluster says it is not ready,
 * the same one-line error naming the primaries it marks as failing.
 */
export async function openCluster(flags: Partial<RedisFlags & ClusterFlags>): Promise<ClusterSession> {
  try {
    return await clusterSessionFromFlags(flags);
  } catch (err) {
    const seed = flags.redisUrls?.[0] ?? flags.redisUrl;
    if (!(err instanceof ServerStateError) || err.kind !== 'cluster' || seed === undefined) throw err;
    const failing = await failingNodes(seed);
    if (failing.length === 0) throw err;
    throw new ServerStateError(
      'cluster',
      err.headline,
      `${err.detail.replace(/; wait until.*$/, '')}: primary ${failing.join(', ')} marked as failing (down or unreachable)`,
      { cause: err },
    );
  }
}

/**
 * Runs a read-only `read` on what `open` gives; when a slot moved under it
 * (resharding, failover) on a cluster, reads once more on a fresh slot map
 * (`onRetry` is told why). A second move is the error.
 */
export async function withSlotRetry<T>(
  open: () => Promise<Target>,
  read: (target: Target) => Promise<T>,
  onRetry?: (err: Error) => void,
): Promise<{ target: Target; result: T }> {
  const target = await open();
  try {
    return { target, result: await read(target) };
  } catch (err) {
    if (!target.cluster || !isSlotMoved(err)) throw err;
    onRetry?.(err as Error);
    await target.cluster.close();
    const fresh = await open();
    return { target: fresh, result: await read(fresh) };
  }
}
