/**
 * Reading a running cluster from behind a {@link Target}: opening it with the
 * failing primaries named when it is not ready, its primaries as results name
 * them, and one more read on a fresh slot map when a slot moved under a read.
 */
import type { Redis } from 'ioredis';
import { ServerStateError } from '../core/errors.js';
import { nodeAddress, openClusterSession, slotRanges, type ClusterSession, type ClusterSessionOptions } from './cluster.js';
import { connect } from './connect.js';
import { isSlotMoved } from './routed.js';
import type { Target } from './target.js';

/** The primaries of a target on a cluster, for JSON: `host:port` and slot ranges; undefined on a single server. */
export function primariesOf(target: Pick<Target, 'cluster'>): { node: string; slots: string }[] | undefined {
  return target.cluster?.topology.nodes.map((n) => ({ node: nodeAddress(n), slots: slotRanges(n) }));
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
 * {@link openClusterSession}, and when the cluster says it is not ready, the
 * same one-line error naming the primaries its first seed marks as failing.
 */
export async function openClusterExplained(options: ClusterSessionOptions): Promise<ClusterSession> {
  try {
    return await openClusterSession(options);
  } catch (err) {
    const seed = options.seeds?.[0];
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
    await target.close();
    const fresh = await open();
    return { target: fresh, result: await read(fresh) };
  }
}
