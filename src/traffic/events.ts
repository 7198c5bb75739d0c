import type { StampPrecision } from '../core/light.js';
import { createRng } from './random.js';

/** One synthetic request outcome for one light. */
export interface TrafficEvent {
  /** Injected time, Unix seconds (fractional). */
  readonly at: number;
  readonly outcome: 'success' | 'failure';
  /** 24 hex characters, for layouts that store one member per event. */
  readonly eventId: string;
}

/** Evenly spaced traffic for one light. */
export interface TrafficSpec {
  /** Events per second. */
  readonly rate: number;
  readonly durationSeconds: number;
  /** Share of failures, 0..1 (seeded Bernoulli per event). */
  readonly failureRate: number;
  readonly seed: number;
  /** Time of the first event, Unix seconds. */
  readonly startAt: number;
}

/** 2025-11-29T21:00:00Z: benchmarks start on an hour boundary so 5.x hour keys line up. */
export const BENCH_EPOCH = 1_764_450_000;

/**
 * The seed of a cell's `lightIndex`-th light: each light its own stream, and
 * the same one for every layout and mode, so layouts see identical traffic.
 */
export function lightSeed(seed: number, lightIndex: number): number {
  return (seed + lightIndex * 7919) >>> 0;
}

/** How many events a spec produces. */
export function eventCount(spec: Pick<TrafficSpec, 'rate' | 'durationSeconds'>): number {
  return Math.round(spec.rate * spec.durationSeconds);
}

/** Events `startAt + i / rate`, outcomes and ids from the seed: the same spec gives the same stream. */
export function* evenTraffic(spec: TrafficSpec): Generator<TrafficEvent> {
  const rng = createRng(spec.seed);
  const count = eventCount(spec);
  for (let i = 0; i < count; i += 1) {
    yield {
      at: spec.startAt + i / spec.rate,
      outcome: rng.next() < spec.failureRate ? 'failure' : 'success',
      eventId: rng.hex(12),
    };
  }
}

const ERRORS = [
  ['Timeout::Error', 'execution expired'],
  ['Net::ReadTimeout', 'Net::ReadTimeout with #<TCPSocket:(closed)>'],
  ['Errno::ECONNREFUSED', 'Failed to open TCP connection to api.internal:443 (Connection refused)'],
  ['Faraday::ServerError', 'the server responded with status 503'],
] as const;

/** Each error's JSON up to its time, built once: a fill writes one per failure. */
const ERROR_HEADS = ERRORS.map(([klass, message]) => `{"error":${JSON.stringify({ class: klass, message })},"time":`);

/** `at` cut to the precision a layout stamps with, as a number of seconds (the same arithmetic as lua/lib/now.lua). */
export function stampOf(at: number, precision: StampPrecision = 'seconds'): number {
  return precision === 'seconds' ? Math.floor(at) : Math.min(Math.floor(at * 1000 + 0.0005) / 1000, Math.floor(at) + 0.999);
}

/**
 * A realistic `last_error_json` for a failure at `at`, as Stoplight stores it:
 * `{"error":{"class":…,"message":…},"time":…}`. 5.x writes the time as whole
 * seconds (`"time":1764450000`); 6.0 as Ruby writes a float of seconds, here
 * to the millisecond (`"time":1764450000.25`, `"time":1764450000.0`). All are
 * longer than 64 bytes, as real ones are, which decides the hash encoding.
 */
export function errorJsonFor(at: number, index: number, precision: StampPrecision = 'seconds'): string {
  const stamp = stampOf(at, precision);
  const time = precision === 'seconds' || !Number.isInteger(stamp) ? String(stamp) : `${stamp}.0`;
  return `${ERROR_HEADS[index % ERRORS.length] as string}${time}}`;
}
