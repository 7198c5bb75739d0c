/**
 * Stoplight 6.0's memory model: what a light's traffic would cost as 6.0
 * counters, so a listing of 5.x lights can say what moving to 6.0 saves.
 */
import type { LightEstimate, SurveyLight } from '../inspection.js';

/**
 * 6.0 bytes per light measured by `swc bench --preset blog` (Redis 7.0,
 * jemalloc): about 600 bytes of metadata and totals, then per second with
 * traffic about 175 bytes while the index is a listpack (up to 128 buckets)
 * and about 275 bytes once it is a skiplist.
 */
const V6_BASE_BYTES = 600;
const V6_SMALL_BUCKET_BYTES = 175;
const V6_LARGE_BUCKET_BYTES = 275;
const V6_LISTPACK_BUCKETS = 128;

/**
 * What a 5.x light's traffic would cost as 6.0 counters: the window's events
 * spread over its seconds (Poisson: a second sees traffic with probability
 * 1 - e^-rate), times the measured bytes per bucket. Without a window, the
 * span of the events held stands for it. An estimate, never a measurement.
 */
export function v6Estimate(light: SurveyLight, inWindow: number, windowSeconds: number | null, maxWindowSeconds: number): LightEstimate | null {
  const span = light.firstSecond === null || light.lastSecond === null ? null : light.lastSecond - light.firstSecond + 1;
  const seconds = windowSeconds ?? (span === null ? null : Math.min(span, maxWindowSeconds));
  if (seconds === null || seconds <= 0) return null;
  const rate = inWindow / seconds;
  const buckets = Math.min(inWindow, seconds * (1 - Math.exp(-rate)));
  const perBucket = buckets <= V6_LISTPACK_BUCKETS ? V6_SMALL_BUCKET_BYTES : V6_LARGE_BUCKET_BYTES;
  return {
    layout: 'stoplight-v6',
    bytes: Math.round(V6_BASE_BYTES + buckets * perBucket),
    windowSeconds: seconds,
    basis:
      windowSeconds === null
        ? `the events held over their span (${seconds} s) as the window; ${perBucket} B per second with traffic`
        : `the events in the ${seconds} s window; ${perBucket} B per second with traffic`,
  };
}
