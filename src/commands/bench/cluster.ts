/**
 * `swc bench` on Redis Cluster: the flags a cluster run cannot honour,
 * refused before anything is started or connected. The run itself (every
 * primary checked, cluster safety, the clean-up) is src/bench/guarded-bench.ts.
 */
import { UsageError } from '../../core/errors.js';
import type { ClusterFlags, RedisFlags } from '../options.js';

/** The flags this module reads. */
export interface BenchClusterFlags extends Partial<RedisFlags & ClusterFlags> {
  realtime?: boolean;
  allowEviction?: boolean;
}

/** Refuses flags a cluster run cannot honour (exit 2), before anything is started or connected. */
export function checkClusterFlags(flags: BenchClusterFlags): void {
  if (flags.realtime)
    throw new UsageError("--realtime: not supported with --cluster/--cluster-shards (real traffic is paced on one server's clock); drop one of them");
  if (flags.clusterShards !== undefined && (flags.redisUrls?.length ?? 0) > 0) {
    throw new UsageError('--cluster-shards: starts a private cluster; drop it or drop --redis-url');
  }
}
