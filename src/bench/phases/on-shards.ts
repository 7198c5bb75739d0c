import { InterruptedError, SwcError, UnexpectedError } from '../../core/errors.js';
import type { Layout, Light } from '../../layouts/types.js';
import { readScriptCommandStats, type ScriptCommandStats } from '../../measure/commandstats.js';
import { classifyRedisError } from '../../redis/errors.js';
import { disturbances, serverCounters } from '../../redis/info.js';
import { deleteKeys } from '../../run/namespace.js';
import type { Shard, Target } from '../../redis/target.js';
import { byShard, clusterChanged } from '../shards.js';
import type { Readings, Span } from './context.js';

/** Says where a run stopped, keeping the error's type (and so its exit code). */
export function withPlace(err: unknown, where: string): unknown {
  if (err instanceof InterruptedError) return err;
  const classified = classifyRedisError(err);
  if (classified instanceof SwcError) return classified.at(where);
  // Not from Redis (a bug): keep it, with the place.
  return new UnexpectedError(`${err instanceof Error ? err.message : String(err)} (${where})`, { cause: err });
}

/** Says which node a shard's failure happened on (a single server's errors stay as they were). */
export function onShard<T>(target: Target, shard: number, work: Promise<T>): Promise<T> {
  if (!target.cluster) return work;
  const node = target.shards[shard]?.node ?? '?';
  return work.catch((err: unknown) => {
    if (err instanceof InterruptedError) throw err;
    if (err instanceof Error && err.message.includes(node)) throw err;
    throw withPlace(clusterChanged(err), `on node ${node}`);
  });
}

/** Deletes keys, each on the shard that owns it. */
export async function deleteRouted(target: Target, keys: readonly string[]): Promise<void> {
  for (const [shard, mine] of byShard(target, keys)) {
    await onShard(target, shard, deleteKeys((target.shards[shard] as Shard).session.redis, mine));
  }
}

/** Deletes every key the layout says the lights have for traffic in `span`. */
export async function deleteLights(target: Target, layout: Layout, lights: readonly Light[], span: Span): Promise<void> {
  await deleteRouted(
    target,
    lights.flatMap((light) => layout.keysOf(light, span.from, span.to).map((k) => k.key)),
  );
}

export async function readCounters(target: Target): Promise<Readings> {
  return target.each((shard, i) => onShard(target, i, serverCounters(shard.session.redis)));
}

/** What disturbed any shard between two readings; on a cluster each names its node. */
export function disturbedOf(target: Target, before: Readings, after: Readings): string[] {
  return target.shards.flatMap((shard, i) => {
    const a = before[i];
    const b = after[i];
    if (!a || !b) return [];
    return disturbances(a, b).map((d) => (target.cluster ? `node ${shard.node}: ${d}` : d));
  });
}

/** Script counters summed over the shards; null when any shard's are unreadable. */
export async function readScriptStats(target: Target): Promise<ScriptCommandStats | null> {
  let calls = 0;
  let usec = 0;
  for (const shard of target.shards) {
    const stats = await readScriptCommandStats(shard.session.redis);
    if (!stats) return null;
    calls += stats.calls;
    usec += stats.usec;
  }
  return { calls, usec };
}
