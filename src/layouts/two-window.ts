import { keyDef, KeyTable } from './kit/keys.js';
import { TemplateInspector } from './kit/template-inspector.js';
import { operationScripts, WindowCalls, type OperationScripts } from './kit/window-calls.js';
import type { Approximation, CountPair, Layout, LayoutCapabilities, LayoutOptions, Light } from './types.js';

/** The two windows' counts and the metadata share one hash. */
export const TWO_WINDOW_KEYS = { windows: keyDef('windows and metadata', '{prefix}:{{name}}:windows', 'hash') };

/**
 * The error bound of {@link TwoWindow}. With `c` the start of the fixed window
 * holding the read's second `t` and `w = (W − 1 − (t − c)) / W` the share of
 * the previous fixed window `[c − W, c − 1]` still inside `(t − W, t]`, each
 * estimated count is `current + w × previous`, while the exact count is
 * `current + (the previous window's events still inside)`. Both lie between
 * `current` and `current + previous`, so the error of each count is at most
 * `max(w, 1 − w) × previous`.
 */
export const TWO_WINDOW_APPROXIMATION: Approximation = {
  description:
    "each count is off by at most max(w, 1 - w) × the previous fixed window's count of that outcome, where w is the share of the previous fixed window still inside the sliding window; exact when the previous window's traffic was spread evenly over its seconds",
  errorBound(at, windowSeconds, countIn): CountPair {
    const second = Math.floor(at);
    const current = Math.floor(second / windowSeconds) * windowSeconds;
    const weight = (windowSeconds - 1 - (second - current)) / windowSeconds;
    const previous = countIn(current - windowSeconds, current - 1);
    const share = Math.max(weight, 1 - weight);
    return { successes: share * previous.successes, failures: share * previous.failures };
  },
};

/**
 * Two fixed windows, weighted by overlap, as several rate limiters do: one
 * hash holds the current fixed window's start and counts and the previous
 * window's counts (fixed windows start at multiples of W), beside the
 * metadata. A read estimates the sliding window as the current counts plus
 * the previous counts times the share of the previous window still inside it.
 *
 * Stores: five numbers and the metadata, whatever the window and the rate
 * (constant memory).
 * Costs: O(1) writes and reads; reads are read-only.
 * Where it is wrong: it assumes the previous fixed window's events were
 * spread evenly over its seconds. Counts are fractional estimates, off by at
 * most max(w, 1 − w) × the previous window's count (see
 * {@link TWO_WINDOW_APPROXIMATION}); a burst at the start of the previous
 * window keeps counting after it left, one at its end fades too early.
 */
export class TwoWindow extends WindowCalls implements Layout {
  readonly name = 'two-window';
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: false, maxWindowSeconds: null };
  readonly approximation = TWO_WINDOW_APPROXIMATION;
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly keyTable: KeyTable<keyof typeof TWO_WINDOW_KEYS>;
  readonly inspector: TemplateInspector;

  constructor(options: LayoutOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'swc:two-window';
    this.scripts = operationScripts('two-window', options.scriptsDir);
    this.keyTable = new KeyTable(this.prefix, TWO_WINDOW_KEYS);
    this.inspector = new TemplateInspector(this.name, this.keyTable);
  }

  windowsKey(light: Light): string {
    return this.keyTable.key('windows', light);
  }

  /** Constant: five numbers and the metadata. */
  peakBytesPerLight(): number {
    return 4096;
  }
}
