/**
 * How far a light's bytes read from an RDB snapshot (`--rdb`) can be from the
 * live server's, from the shape of its keys alone. Loading rebuilds each key:
 * a hash or sorted set gets one table sized for its elements (a power of two
 * at least their count) and no rehash under way, which is the settled state
 * `swc bench` measures in; the live key may hold a larger table (grown, or
 * not yet shrunk after deletions) and, caught mid-rehash, its old table as
 * well; a skiplist's node levels are drawn anew on load. Listpacks and
 * strings are written back as they were. The bound is per light, in bytes:
 *
 * - per hash or sorted-set key of n elements: 16 × nextPow2(n) (8-byte slots:
 *   a live table up to twice the loaded one, plus the old table of a rehash);
 * - per sorted set of n elements: 64 × √n more for its skiplist's levels
 *   (each level 16 bytes; the level of a node has a standard deviation of 2/3
 *   of a level, so two independent draws differ by under four standard
 *   deviations of their sum).
 */

/** A light's bound, and the words that say what it is. */
export interface RdbBound {
  /** The most, in bytes, the live server's figure can differ from the snapshot's (either way). */
  readonly bytes: number;
  /** `bytes` over the snapshot's bytes; null when those are unknown or 0. */
  readonly fraction: number | null;
}

const nextPow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/** The bound of a light whose keys are `keys` (type and element count, as lights read them) and whose snapshot bytes are `bytes`. */
export function rdbBoundOf(keys: readonly { readonly type: string; readonly elements: number }[], bytes: number | null): RdbBound {
  let bound = 0;
  for (const k of keys) {
    if (k.type !== 'hash' && k.type !== 'zset') continue;
    const n = Number.isFinite(k.elements) ? k.elements : 0;
    bound += 16 * nextPow2(n);
    if (k.type === 'zset') bound += 64 * Math.sqrt(n);
  }
  const rounded = Math.ceil(bound);
  return { bytes: rounded, fraction: bytes === null || bytes === 0 ? null : rounded / bytes };
}
