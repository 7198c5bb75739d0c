/** `--rdb`: a snapshot read on a private server of its own (lights and inspect). */
import type { Target } from '../run/open.js';
import { UsageError } from '../core/errors.js';
import { onShutdown } from './lifecycle.js';
import type { ClusterFlags, RedisFlags } from './options.js';

/** `--rdb <file>`: the snapshot on a private server on a unix socket (stopped on every way out); refuses flags naming a server. */
export async function rdbTarget(flags: { rdb?: string; redisServer?: string } & Partial<RedisFlags & ClusterFlags>): Promise<Target> {
  if (flags.redisUrl !== undefined || (flags.redisUrls?.length ?? 0) > 0)
    throw new UsageError('--rdb/--redis-url: --rdb reads a snapshot, not a server; drop one of them');
  if (flags.cluster) throw new UsageError('--rdb/--cluster: --rdb reads one snapshot; drop --cluster');
  const { openTarget } = await import('../run/open.js');
  const target = await openTarget({ rdb: flags.rdb as string, ...(flags.redisServer !== undefined ? { binary: flags.redisServer } : {}) });
  onShutdown(() => target.close());
  return target;
}
