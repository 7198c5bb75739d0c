/**
 * Array helpers that never spread an array into a call: `Math.max(...xs)`
 * or `push(...xs)` passes every element as an argument, and past about a
 * hundred thousand (a registry of a million fields, a light of a million
 * buckets) V8 throws "Maximum call stack size exceeded".
 */

/** The largest of `values`; -Infinity for none, as `Math.max()`. */
export function maxOf(values: Iterable<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max || Number.isNaN(v)) max = v;
  return max;
}

/** The smallest of `values`; Infinity for none, as `Math.min()`. */
export function minOf(values: Iterable<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const v of values) if (v < min || Number.isNaN(v)) min = v;
  return min;
}

/** Appends every item of `items` to `target`, one by one. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
