/** Which primary of a {@link Target} holds a light's keys under a layout. */
import type { Layout, Light } from '../layouts/types.js';
import type { Target } from '../redis/target.js';
import { BENCH_EPOCH } from '../traffic/events.js';

/**
 * The shard that owns a light's keys: the slot of the first key of its
 * write (a cluster-safe layout keeps every key of a call in that slot).
 */
export function shardOfLight(target: Target, layout: Layout, light: Light): number {
  if (target.shards.length === 1) return 0;
  const [key] = layout.recordSuccess(light, { at: BENCH_EPOCH, windowSeconds: 60 }).keys;
  return key === undefined ? 0 : target.shardOfKey(key);
}
