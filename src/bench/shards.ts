/**
 * How a bench run spreads its lights and keys over a {@link Target}'s
 * shards: a single server is one shard; a Redis Cluster is one shard per
 * primary, each key on the primary that owns its slot. The run asks this
 * module which shard holds a light and never names a layout.
 */
import type { Redis } from 'ioredis';
import type { Layout, Light } from '../layouts/types.js';
import { shardOfLight } from '../measure/placement.js';
import { redirectionOf } from '../redis/cluster.js';
import type { Target } from '../redis/target.js';
import { RefusalError } from '../core/errors.js';

export { shardOfLight } from '../measure/placement.js';

/**
 * `count` light names `<base>-l<j>` spread evenly over the shards: light i
 * goes to shard i mod n. The names are the single server's (`<base>-l0`,
 * `-l1`, …) where they fall right, else the next unused `j` whose keys land
 * on the shard due, so names keep the single server's shape and length
 * (within a digit) and the choice repeats for the same cluster layout.
 */
export function spreadLights(target: Target, layout: Layout, base: string, count: number): Light[] {
  const n = target.shards.length;
  if (n === 1) return Array.from({ length: count }, (_, i) => ({ name: `${base}-l${i}` }));
  const waiting: Light[][] = target.shards.map(() => []);
  const out: Light[] = [];
  let next = 0;
  // A shard with no slots at all would never get a light; the search stops long before that matters.
  const limit = count * n * 64 + 1024;
  for (let i = 0; i < count; i += 1) {
    const due = i % n;
    const queue = waiting[due] as Light[];
    while (queue.length === 0 && next < limit) {
      const light = { name: `${base}-l${next}` };
      next += 1;
      (waiting[shardOfLight(target, layout, light)] as Light[]).push(light);
    }
    const light = queue.shift();
    if (!light) throw new Error(`no light name found for shard ${target.shards[due]?.node}`);
    out.push(light);
  }
  return out;
}

/** The shards' redis connections, in shard order. */
export const redisOf = (target: Target): Redis[] => target.shards.map((s) => s.session.redis);

/** Groups keys by the shard that owns them; a single server gets one group. */
export function byShard(target: Target, keys: readonly string[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const key of keys) {
    const shard = target.shards.length === 1 ? 0 : target.shardOfKey(key);
    const list = out.get(shard);
    if (list) list.push(key);
    else out.set(shard, [key]);
  }
  return out;
}

/**
 * A redirection or a down cluster seen mid-run, as the error a cluster run
 * reports (exit 3): a figure taken while slots move would be wrong. Any
 * other error is returned as it is.
 */
export function clusterChanged(err: unknown): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const moved = redirectionOf(message);
  if (moved) {
    return new RefusalError(
      `the cluster changed during the run: slot ${moved.slot} is now served by ${moved.node} (${moved.kind}); a figure taken while slots move would be wrong, so none is reported; run again once the cluster is stable`,
      { cause: err },
    );
  }
  const down = /\b(CLUSTERDOWN|TRYAGAIN)\b[^\n]*/.exec(message);
  if (down) {
    return new RefusalError(`the cluster stopped serving some slots during the run (${down[0].trim()}); no figure is reported`, { cause: err });
  }
  return err;
}
