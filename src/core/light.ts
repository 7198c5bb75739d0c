/**
 * The domain's words for a light and its window, below every layer that
 * counts (the reference model, the traffic generators and the layouts).
 */

/** A light (one circuit breaker). `system` only matters to layouts that hash it. */
export interface Light {
  readonly name: string;
  /** Stoplight 6.0 scopes lights by a system name; defaults to {@link DEFAULT_SYSTEM}. */
  readonly system?: string;
}

/** The system name used when a light does not give one. */
export const DEFAULT_SYSTEM = 'default';

/** Which interval a layout counts as "in the window" at time `now` (seconds floored). */
export type WindowSemantics =
  /** `[now - W, now]`: W + 1 integer seconds (Stoplight 5.x). */
  | 'closed'
  /** `(now - W, now]`: W integer seconds (Stoplight 6.0). */
  | 'half-open'
  /**
   * `[now - W, now]` with `now` and the event times as fractional seconds:
   * Stoplight 6.0's event-ZSET development versions count ZSET scores from
   * the caller's float clock minus the window.
   */
  | 'closed-exact';

/** Whole seconds, or seconds with their milliseconds. */
export type StampPrecision = 'seconds' | 'milliseconds';
