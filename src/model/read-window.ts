/**
 * Stoplight's window for one read, as arithmetic: shared by `swc inspect`,
 * `swc lights` (through layouts/stoplight/state.ts) and the model
 * ({@link SlidingWindowModel.countRead}).
 */

/** A way a layout's read leaves seconds out (layouts' WindowDeviation has this shape). */
export interface ReadDeviation {
  readonly description: string;
  uncounted(at: number, windowSeconds: number): { readonly fromSecond: number; readonly toSecond: number } | null;
}

const stamp = (value: string | undefined): number | null => {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/** The window one read of a light counts, and which rule moved it. */
export interface ReadWindow<D extends ReadDeviation = ReadDeviation> {
  /** First second counted. */
  readonly fromSecond: number;
  /** Last second counted (the read's second, or one before it where the hour-key rule applied). */
  readonly toSecond: number;
  /** `recovered_at` (whole seconds) when it is later than `at - window` and so raised the start; null otherwise. */
  readonly recoveredAt: number | null;
  /** The deviations of the layout's read that applied at this second (5.x: the first second of a clock hour). */
  readonly applied: readonly D[];
}

/**
 * Stoplight's window for a read at `at` (floored): it starts at
 * `max(at - window, recovered_at)` (5.x's closed window counts `at - window`
 * itself; a `half-open` one starts a second later), and the layout's own
 * read rules then take seconds off it (5.x at hh:00:00 does not count that
 * second: a deviation's `uncounted`). 6.0 keeps no `recovered_at`:
 * pass null.
 */
export function readWindow<D extends ReadDeviation>(
  at: number,
  windowSeconds: number,
  recoveredAtField: string | number | undefined | null,
  semantics: 'closed' | 'half-open',
  deviations: readonly D[] = [],
): ReadWindow<D> {
  const end = Math.floor(at);
  const start = semantics === 'closed' ? end - windowSeconds : end - windowSeconds + 1;
  const recovered = typeof recoveredAtField === 'number' ? recoveredAtField : stamp(recoveredAtField ?? undefined);
  const recoveredAt = recovered !== null && Math.floor(recovered) > start ? Math.floor(recovered) : null;
  let fromSecond = recoveredAt ?? start;
  let toSecond = end;
  const applied: D[] = [];
  for (const deviation of deviations) {
    const gap = deviation.uncounted(at, windowSeconds);
    if (gap === null) continue;
    applied.push(deviation);
    // A gap at either end narrows the window; one in the middle is not a shape a read has.
    if (gap.toSecond >= toSecond && gap.fromSecond <= toSecond) toSecond = gap.fromSecond - 1;
    if (gap.fromSecond <= fromSecond && gap.toSecond >= fromSecond) fromSecond = gap.toSecond + 1;
  }
  return { fromSecond, toSecond, recoveredAt, applied };
}
