import type { WindowSemantics } from '../core/light.js';
import { readWindow, type ReadDeviation } from './read-window.js';

/** Counts in a window. */
export interface WindowCounts {
  successes: number;
  failures: number;
}

/**
 * The reference sliding-window counter the Redis layouts are tested against:
 * per-second buckets in time order, running totals, and eviction from the
 * front. Time must not go backwards between calls.
 */
export class SlidingWindowModel {
  private readonly seconds: number[] = [];
  private readonly buckets = new Map<number, WindowCounts>();
  private head = 0;
  private totals: WindowCounts = { successes: 0, failures: 0 };
  consecutiveSuccesses = 0;
  consecutiveErrors = 0;
  /** The time (seconds, as given) of the latest success and failure recorded, or null. */
  lastSuccessAt: number | null = null;
  lastErrorAt: number | null = null;
  /** How many buckets the latest call evicted (a layout that evicts must drop as many in that call). */
  lastEvicted = 0;
  /** `closed-exact` only: each counted second's event times, to cut the first second at `now - W`. */
  private readonly times: Map<number, { at: number; outcome: 'success' | 'failure' }[]> | null;

  /**
   * @param windowSeconds window size W
   * @param semantics `closed` counts seconds in `[now - W, now]`, `half-open` in `(now - W, now]`,
   *   `closed-exact` the events at times in `[now - W, now]`, fractions included
   * @param maxWindowSeconds a cap on W (5.x reads at most one day back)
   */
  constructor(
    readonly windowSeconds: number,
    readonly semantics: WindowSemantics,
    readonly maxWindowSeconds = Number.POSITIVE_INFINITY,
  ) {
    this.times = semantics === 'closed-exact' ? new Map() : null;
  }

  /** Records one event at time `at` (seconds, fractional allowed). */
  record(at: number, outcome: 'success' | 'failure'): void {
    const second = Math.floor(at);
    this.evict(second);
    if (outcome === 'success') this.lastSuccessAt = Math.max(this.lastSuccessAt ?? at, at);
    else this.lastErrorAt = Math.max(this.lastErrorAt ?? at, at);
    let bucket = this.buckets.get(second);
    if (!bucket) {
      bucket = { successes: 0, failures: 0 };
      this.buckets.set(second, bucket);
      this.insertSecond(second);
    }
    if (this.times) {
      const list = this.times.get(second) ?? [];
      list.push({ at, outcome });
      this.times.set(second, list);
    }
    if (outcome === 'success') {
      bucket.successes += 1;
      this.totals.successes += 1;
      this.consecutiveSuccesses += 1;
      this.consecutiveErrors = 0;
    } else {
      bucket.failures += 1;
      this.totals.failures += 1;
      this.consecutiveErrors += 1;
      this.consecutiveSuccesses = 0;
    }
  }

  /** Successes and failures in the window ending at `at` (fractional allowed; only `closed-exact` reads the fraction). */
  count(at: number): WindowCounts {
    this.evict(Math.floor(at));
    const counts = { ...this.totals };
    if (this.times) {
      // The first counted second holds events before `at - W` too: they are out.
      const start = at - Math.min(this.windowSeconds, this.maxWindowSeconds);
      for (const event of this.times.get(Math.floor(start)) ?? []) {
        if (event.at >= start) continue;
        if (event.outcome === 'success') counts.successes -= 1;
        else counts.failures -= 1;
      }
    }
    return counts;
  }

  /** Successes and failures recorded in whole seconds `from..to` (both included) and not yet evicted. */
  countIn(fromSecond: number, toSecond: number): WindowCounts {
    const counts = { successes: 0, failures: 0 };
    for (let i = this.head; i < this.seconds.length; i += 1) {
      const second = this.seconds[i] as number;
      if (second > toSecond) break;
      if (second < fromSecond) continue;
      const bucket = this.buckets.get(second) as WindowCounts;
      counts.successes += bucket.successes;
      counts.failures += bucket.failures;
    }
    return counts;
  }

  /**
   * What Stoplight's read at `at` counts (the shared rule, {@link readWindow}):
   * from `max(at - W, recoveredAt)`, less the seconds the layout's read
   * leaves out (5.x at hh:00:00). Counts only what is not evicted yet.
   */
  countRead(at: number, recoveredAt: number | null = null, deviations: readonly ReadDeviation[] = []): WindowCounts {
    // Whole seconds: a closed-exact window is read as a closed one here.
    const semantics = this.semantics === 'half-open' ? 'half-open' : 'closed';
    const window = readWindow(at, Math.min(this.windowSeconds, this.maxWindowSeconds), recoveredAt, semantics, deviations);
    return this.countIn(window.fromSecond, window.toSecond);
  }

  /** The oldest second still counted at `now`. */
  private firstCounted(now: number): number {
    const window = Math.min(this.windowSeconds, this.maxWindowSeconds);
    return this.semantics === 'half-open' ? now - window + 1 : now - window;
  }

  private evict(now: number): void {
    const first = this.firstCounted(now);
    this.lastEvicted = 0;
    while (this.head < this.seconds.length) {
      const second = this.seconds[this.head] as number;
      if (second >= first) break;
      const bucket = this.buckets.get(second) as WindowCounts;
      this.totals.successes -= bucket.successes;
      this.totals.failures -= bucket.failures;
      this.buckets.delete(second);
      this.times?.delete(second);
      this.head += 1;
      this.lastEvicted += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.seconds.length) {
      this.seconds.splice(0, this.head);
      this.head = 0;
    }
  }

  private insertSecond(second: number): void {
    // Events arrive in time order, so this is almost always an append.
    let i = this.seconds.length;
    while (i > this.head && (this.seconds[i - 1] as number) > second) i -= 1;
    this.seconds.splice(i, 0, second);
  }
}
