import { UsageError } from '../core/errors.js';
import { footprints } from './footprint.js';
import { KeyTable } from './kit/keys.js';
import { operationScripts, WindowCalls, type OperationScripts } from './kit/window-calls.js';
import { V6_KEYS } from './stoplight/v6.js';
import { StoplightV6Inspector } from './stoplight/v6-inspector.js';
import type { Approximation, CountPair, FootprintCell, Layout, LayoutCapabilities, LayoutOptions, WindowDeviation } from './types.js';

/** Options for {@link Coarse}: the bucket width, default {@link DEFAULT_BUCKET_SECONDS}. */
export interface CoarseOptions extends LayoutOptions {
  /** Bucket width in seconds (a whole number, 1–3600); bucket starts are its multiples. */
  readonly bucketSeconds?: number;
}

export const DEFAULT_BUCKET_SECONDS = 10;

/**
 * `coarse-<N>s` as a layout of N-second buckets (`coarse-10s` is `coarse`);
 * null for any other name. Registered as the `coarse` layout's variants, so
 * `--layout coarse-30s` works wherever a layout name does.
 */
export function coarseVariant(name: string): { name: string; create: (options?: LayoutOptions) => Coarse } | null {
  const match = /^coarse-(\d+)s$/.exec(name);
  if (!match) return null;
  const bucketSeconds = Number(match[1]);
  const layout = new Coarse({ bucketSeconds });
  return { name: layout.name, create: (options) => new Coarse({ ...options, bucketSeconds }) };
}

/**
 * The whole seconds at the old end of the exact window `(t − W, t]` that a
 * coarse read at `at` leaves out: from `t − W + 1` to just before the first
 * bucket start inside the window. Null when the window starts on a bucket
 * edge (the read is exact then).
 */
export function coarseUncounted(at: number, windowSeconds: number, bucketSeconds: number): { fromSecond: number; toSecond: number } | null {
  const second = Math.floor(at);
  const first = second - windowSeconds + 1;
  const firstBucketInside = Math.ceil(first / bucketSeconds) * bucketSeconds;
  const to = Math.min(second, firstBucketInside - 1);
  return to >= first ? { fromSecond: first, toSecond: to } : null;
}

/**
 * Stoplight 6.0 with buckets of `bucketSeconds` seconds instead of one: the
 * same hash of `bucket:<start>:s/:f` counters with running totals and the
 * same sorted-set index of bucket names (keys shaped as 6.0's, under its own
 * prefix), and the same eviction (a bucket goes when its start is at or
 * before `now − W`).
 *
 * Stores: one counter pair and one index member per bucket that saw traffic,
 * about W / bucketSeconds of them: a tenth of 6.0 at 10 s buckets.
 * Costs: as 6.0, O(log(W / bucketSeconds)) amortized per call; reads write
 * (they evict).
 * Where it is wrong: a bucket leaves the window whole as soon as its first
 * second does, so a read leaves out the up to `bucketSeconds − 1` seconds at
 * the old end of the window that precede the first bucket start inside it:
 * counts are never higher than exact, and exact only when the window starts
 * on a bucket edge. The error of each count is exactly that stretch's events
 * ({@link coarseUncounted}).
 */
export class Coarse extends WindowCalls implements Layout {
  readonly name: string;
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: true, maxWindowSeconds: null };
  readonly prefix: string;
  readonly bucketSeconds: number;
  readonly scripts: OperationScripts;
  /** Keys shaped as 6.0's, under the layout's own prefix. */
  readonly keyTable: KeyTable<keyof typeof V6_KEYS>;
  readonly inspector: StoplightV6Inspector;
  readonly approximation: Approximation;
  /** The same rule as a window deviation (whole seconds left out of a read), which `swc verify` predicts exactly. */
  readonly deviations: readonly WindowDeviation[];

  constructor(options: CoarseOptions = {}) {
    super();
    const width = options.bucketSeconds ?? DEFAULT_BUCKET_SECONDS;
    if (!Number.isInteger(width) || width < 1 || width > 3600) {
      throw new UsageError(`--layout: coarse-<N>s takes N from 1 to 3600 (the bucket width in seconds), got ${width}`);
    }
    this.bucketSeconds = width;
    this.name = width === DEFAULT_BUCKET_SECONDS ? 'coarse' : `coarse-${width}s`;
    this.prefix = options.prefix ?? (width === DEFAULT_BUCKET_SECONDS ? 'swc:coarse' : `swc:coarse-${width}s`);
    this.scripts = operationScripts('coarse', options.scriptsDir);
    this.keyTable = new KeyTable(this.prefix, V6_KEYS);
    this.inspector = new StoplightV6Inspector(this.name, this.keyTable);
    const description = `a read leaves out the seconds at the old end of the window before the first ${width}-second bucket start inside it (at most ${width - 1} s): counts are never above exact, and exact when the window starts on a bucket edge`;
    this.approximation = {
      description,
      errorBound: (at, windowSeconds, countIn): CountPair => {
        const range = coarseUncounted(at, windowSeconds, width);
        return range ? countIn(range.fromSecond, range.toSecond) : { successes: 0, failures: 0 };
      },
    };
    this.deviations = [
      {
        id: `coarse-buckets-${width}s`,
        description,
        uncounted: (at, windowSeconds) => coarseUncounted(at, windowSeconds, width),
      },
    ];
  }

  /** A write passes the bucket width after the window and the time. */
  protected override writeArgs(args: (string | number)[]): void {
    args.push(this.bucketSeconds);
  }

  /** Fewer buckets than 6.0 has seconds: 6.0's per-second bound holds. */
  peakBytesPerLight(cell: FootprintCell): number {
    return footprints.bucketPerSecond(cell);
  }
}
