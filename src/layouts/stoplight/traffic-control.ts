import type { Counts, LightConfigView, Tripping } from '../inspection.js';
import type { RegisteredConfig } from '../types.js';
import type { TrafficControl } from './state.js';

/**
 * How close a light is to tripping, by its own strategy, and the config a
 * light is judged by, each value with where it came from.
 *
 * Facts from Stoplight 6.0's source (docs/layouts.md names the commits):
 * `lib/stoplight/domain/traffic_control/consecutive_errors.rb`
 * (10f6e9d74365c9348bd04288a4374f816f4e5755) trips when the consecutive
 * errors, clamped to the failures in the window when the light has a
 * window, reach the threshold (without a window, the consecutive errors
 * alone); `traffic_control/error_rate.rb`
 * (22084a3466df623e04525c0929747d66cec38b8e) trips when the window holds at
 * least its minimum of requests (10 unless the application built the
 * strategy with another; the registry does not store it) and the failure
 * rate is at or over the threshold, and refuses a config without a window.
 * 5.x (v5.3.6, `lib/stoplight/traffic_control/`) has the same two rules.
 */

/** Error-rate strategy's minimum of requests in the window before it may trip (Stoplight's default). */
export const ERROR_RATE_MIN_REQUESTS = 10;

/**
 * The strategy a light uses and where that is known from: its registry
 * entry; or, for a 6.0 light on the default config (no window, so its
 * metrics are the unbounded `:metrics` hash), consecutive errors, the only
 * strategy Stoplight accepts without a window. Null when unknown.
 */
export function strategyOf(
  registered: RegisteredConfig | undefined,
  defaultConfig: boolean,
): { trafficControl: TrafficControl; from: 'registry' | 'default config' } | null {
  if (registered?.trafficControl) return { trafficControl: registered.trafficControl, from: 'registry' };
  if (defaultConfig) return { trafficControl: 'consecutive_errors', from: 'default config' };
  return null;
}

/**
 * The config a light is judged by: each value with its source (`--window`
 * over the registry's `window_size`; the registry's threshold, strategy and
 * cool-off). Values nobody gave are null with source null.
 */
export function configView(registered: RegisteredConfig | undefined, windowFlag: number | null, defaultConfig: boolean): LightConfigView {
  const strategy = strategyOf(registered, defaultConfig);
  const registryWindow = registered?.windowSeconds ?? null;
  return {
    windowSeconds:
      windowFlag !== null
        ? { value: windowFlag, from: '--window' }
        : registryWindow !== null
          ? { value: registryWindow, from: 'registry' }
          : { value: null, from: defaultConfig ? 'default config' : null },
    threshold: registered?.threshold != null ? { value: registered.threshold, from: 'registry' } : { value: null, from: null },
    trafficControl: strategy === null ? { value: null, from: null } : { value: strategy.trafficControl, from: strategy.from },
    coolOffSeconds: registered?.coolOffSeconds != null ? { value: registered.coolOffSeconds, from: 'registry' } : { value: null, from: null },
    ...(strategy?.trafficControl === 'error_rate' ? { minRequests: { value: ERROR_RATE_MIN_REQUESTS, from: 'Stoplight default' } } : {}),
  };
}

/**
 * How close a light is to tripping by its own strategy, or why that cannot
 * be said. `ratio` reaches 1 exactly when Stoplight's rule would trip:
 * consecutive errors (clamped to the window's failures when the light has a
 * window) over the threshold; for error rate the smaller of rate over
 * threshold and requests over the minimum of requests (both must be reached).
 */
export function trippingOf(
  config: LightConfigView,
  window: Counts | null | undefined,
  consecutiveErrors: number | null,
): { tripping?: Tripping; trippingUnknown?: string } {
  const strategy = config.trafficControl.value;
  const threshold = config.threshold.value;
  if (strategy === null) return { trippingUnknown: 'strategy unknown (no registry entry)' };
  if (threshold === null || threshold <= 0) return { trippingUnknown: 'threshold unknown (the registry entry has none)' };
  if (strategy === 'consecutive_errors') {
    if (consecutiveErrors === null) return { trippingUnknown: 'no consecutive_errors stored' };
    const windowed = config.windowSeconds.value !== null;
    if (windowed && !window) return { trippingUnknown: 'window failures unknown' };
    const value = windowed && window ? Math.min(consecutiveErrors, window.failures) : consecutiveErrors;
    return {
      tripping: {
        trafficControl: strategy,
        value,
        threshold,
        ratio: value / threshold,
        consecutiveErrors,
        ...(windowed && window ? { windowFailures: window.failures } : {}),
      },
    };
  }
  if (!window) return { trippingUnknown: 'no window: error rate needs one' };
  const requests = window.successes + window.failures;
  const rate = requests === 0 ? 0 : window.failures / requests;
  const minRequests = config.minRequests?.value ?? ERROR_RATE_MIN_REQUESTS;
  return {
    tripping: {
      trafficControl: strategy,
      value: rate,
      threshold,
      ratio: Math.min(rate / threshold, requests / minRequests),
      requests,
      minRequests,
    },
  };
}
