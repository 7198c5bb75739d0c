import type { ClientModelFactory } from '../types.js';

/**
 * The weighted two-window model (`@upstash/ratelimit`'s slidingWindow). Time is cut into fixed windows of
 * W ms numbered n = floor(t / W). A decision at t estimates the sliding window (t - W, t] as
 *
 *     floor(previous × (1 - (t mod W) / W)) + current
 *
 * where previous and current are the counts allowed in windows n - 1 and n: the previous window's count
 * weighted by the share of it still inside the sliding window, as if its events had been spread evenly
 * over it. The decision is allowed when the estimate is below the limit; an allowed decision adds one to
 * the current window (a denied one adds nothing).
 *
 * The arithmetic is the package's own, in doubles as its Lua does it: `t mod W` is Lua's
 * (t - floor(t / W) × W), the weight is 1 - (t mod W) / W, and the weighted previous count is floored.
 * So this model makes the package's decisions exactly, event for event.
 *
 * Declared deviation from an exact sliding window with the same limit (what verify allows):
 * - the estimate is not a count. Allowed events bunched at the end of window n - 1 are under-weighted, so
 *   an exact window straddling the boundary can hold up to twice the limit (never more: each fixed window
 *   allows at most the limit, and an exact window spans parts of two); bunched at its start they are
 *   over-weighted, and decisions are denied that an exact window would allow;
 * - rounding: with whole limits, flooring the weighted count decides as the unrounded estimate would
 *   (c < L - floor(w) exactly when c < L - w), except where the double product falls just under a whole
 *   number: at 90 % into a window, (1 - 0.9) × 10 = 0.9999999999999998 floors to 0, not 1, and one more
 *   decision is allowed than exact arithmetic allows.
 * Under steady traffic (events spread evenly) the estimate follows the exact count closely.
 */
export const twoWindowModel: ClientModelFactory = (settings) => {
  const windowMs = settings.windowMs;
  /** Per client: the current window's number and count, and the count of the window before it. */
  const clients = new Map<string, { window: number; current: number; previous: number }>();
  return {
    decide(id, atMs) {
      const window = Math.floor(atMs / windowMs);
      let state = clients.get(id);
      if (state === undefined) {
        state = { window, current: 0, previous: 0 };
        clients.set(id, state);
      } else if (state.window !== window) {
        state.previous = state.window === window - 1 ? state.current : 0;
        state.current = 0;
        state.window = window;
      }
      const intoWindow = atMs - Math.floor(atMs / windowMs) * windowMs;
      const weighted = Math.floor((1 - intoWindow / windowMs) * state.previous);
      if (weighted + state.current >= settings.limit) return false;
      state.current += 1;
      return true;
    },
  };
};

/** The most allowed decisions an exact sliding window can hold under the two-window estimate (see above). */
export function twoWindowWorstCase(limit: number): number {
  return 2 * limit;
}
