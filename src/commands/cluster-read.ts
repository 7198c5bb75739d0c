/**
 * The Redis a read or cleanup command (inspect, lights, clean) works on: one
 * server, or with `--cluster` / several `--redis-url` seeds every primary of
 * a running cluster behind one routed handle, opened through the one door
 * (src/run/open.ts).
 */
import { UsageError } from '../core/errors.js';
import type { Target } from '../run/open.js';
export { primariesOf, withSlotRetry } from '../run/open.js';
import { targetFromFlags, wantsCluster, type ClusterFlags, type RedisFlags } from './options.js';

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
  limits: { commandTimeoutMs?: number } = {},
): Promise<Target> {
  if (wantsCluster(flags) && flags.clusterShards !== undefined) {
    throw new UsageError(`--cluster-shards: ${command} reads a running cluster (a private one would be empty); use --cluster --redis-url <node>`);
  }
  // A read names the cluster by the seed it was given.
  return targetFromFlags(flags, defaultUrl, limits, (spec) => ('seeds' in spec ? { ...spec, namedBy: 'seed' } : spec));
}
