import type { ClientModel, ClientModelFactory, ClientSettings } from '../types.js';

/**
 * How a sliding-log package departs from the exact sliding log. The exact log allows a request at `t`
 * when fewer than `limit` allowed requests lie in the window `(t - window, t]`, and logs only the
 * allowed ones. Every field describes one thing a package does otherwise; each is checked against the
 * package itself by test/integration/clients/sliding-log-packages.test.ts.
 */
export interface SlidingLogDeviation {
  /**
   * A denied request is logged too and counts against the ones after it: a client who keeps asking
   * faster than the limit is denied everything until it slows down (a lockout, not a cap).
   */
  readonly deniedCount: boolean;
  /**
   * The log is keyed by the request's timestamp in whole microseconds: requests in the same microsecond
   * are one entry, so however many come at one instant, they count as one (with a limit of 2 or more, a
   * burst at one instant is allowed whole).
   */
  readonly sameMicrosecondOnce: boolean;
  /**
   * The log keeps only the newest `limit` entries. No decision changes (a request sees at most `limit`
   * entries either way); the memory per client stops at the limit instead of growing with the traffic.
   */
  readonly keepsAtMostLimit: boolean;
  /** A request closer than this (ms) to the one logged before it is denied; 0: no such rule. */
  readonly minDifferenceMs: number;
}

/** The exact sliding log: no deviation. */
export const EXACT_SLIDING_LOG: SlidingLogDeviation = { deniedCount: false, sameMicrosecondOnce: false, keepsAtMostLimit: false, minDifferenceMs: 0 };

/**
 * `ratelimiter` (3.x): each call logs its microsecond timestamp as both score and member (allowed or
 * not), trims the log to the newest `max` entries, and allows the call when fewer than `max` entries
 * were in the window before it.
 */
export const RATELIMITER_DEVIATION: SlidingLogDeviation = { deniedCount: true, sameMicrosecondOnce: true, keepsAtMostLimit: true, minDifferenceMs: 0 };

/**
 * `rolling-rate-limiter` (0.4): each `limit()` logs its microsecond timestamp under a random member
 * (allowed or not, so two calls in one microsecond are two entries) and blocks when the log, with it,
 * holds more than `maxInInterval`; nothing trims the log but the window. `minDifference` is left unset
 * by swc's adapter (0).
 */
export const ROLLING_RATE_LIMITER_DEVIATION: SlidingLogDeviation = {
  deniedCount: true,
  sameMicrosecondOnce: false,
  keepsAtMostLimit: false,
  minDifferenceMs: 0,
};

/** A sliding-log model that can also tell what its log holds (what the package's sorted set should hold). */
export interface SlidingLogModel extends ClientModel {
  /** How many entries the log of `id` holds after its last decision (0 for an id never seen). */
  logged(id: string): number;
}

/**
 * The sliding-log model with a deviation. Times are taken in whole microseconds (`round(atMs * 1000)`),
 * as both packages stamp their entries, so an event exactly one window after another sees it gone.
 */
export function slidingLogModelWith(deviation: SlidingLogDeviation): (settings: ClientSettings) => SlidingLogModel {
  return (settings) => {
    const windowUs = Math.round(settings.windowMs * 1000);
    const minDifferenceUs = Math.round(deviation.minDifferenceMs * 1000);
    const logs = new Map<string, number[]>();
    return {
      decide(id, atMs) {
        const at = Math.round(atMs * 1000);
        const log = logs.get(id) ?? [];
        let gone = 0;
        while (gone < log.length && (log[gone] as number) <= at - windowUs) gone += 1;
        log.splice(0, gone);
        const last = log[log.length - 1];
        const tooClose = minDifferenceUs > 0 && last !== undefined && at - last < minDifferenceUs;
        const allowed = log.length < settings.limit && !tooClose;
        if ((allowed || deviation.deniedCount) && !(deviation.sameMicrosecondOnce && last === at)) log.push(at);
        if (deviation.keepsAtMostLimit && log.length > settings.limit) log.splice(0, log.length - settings.limit);
        logs.set(id, log);
        return allowed;
      },
      logged: (id) => logs.get(id)?.length ?? 0,
    };
  };
}

/** The exact sliding log, the model verify holds a sliding-log package to (with the package's declared deviation). */
export const slidingLogModel: ClientModelFactory = slidingLogModelWith(EXACT_SLIDING_LOG);

/** The declared deviation of each sliding-log package, by npm package name. */
export const SLIDING_LOG_DEVIATIONS: Readonly<Record<string, SlidingLogDeviation>> = {
  ratelimiter: RATELIMITER_DEVIATION,
  'rolling-rate-limiter': ROLLING_RATE_LIMITER_DEVIATION,
};

/** A deviation shown at its smallest: one client's requests, the package's decisions and the exact sliding log's. */
export interface SlidingLogReproduction {
  /** What it shows, in a sentence. */
  readonly says: string;
  readonly limit: number;
  readonly windowMs: number;
  /** Request times, ms from the first. */
  readonly atMs: readonly number[];
  /** The package's decisions (its declared model's). */
  readonly allowed: readonly boolean[];
  /** The exact sliding log's decisions. */
  readonly exactAllowed: readonly boolean[];
}

const DENIED_COUNTS: SlidingLogReproduction = {
  says: 'a denied request counts: at 1 per second, the request at 1000 ms is denied because the one denied at 500 ms is still in the window',
  limit: 1,
  windowMs: 1000,
  atMs: [0, 500, 1000],
  allowed: [true, false, false],
  exactAllowed: [true, false, true],
};

/** The smallest reproduction of each deviation a sliding-log package declares, by npm package name. */
export const SLIDING_LOG_REPRODUCTIONS: Readonly<Record<string, readonly SlidingLogReproduction[]>> = {
  ratelimiter: [
    DENIED_COUNTS,
    {
      says: 'requests in the same microsecond are one entry: at 2 per second, three requests at one instant are all allowed',
      limit: 2,
      windowMs: 1000,
      atMs: [0, 0, 0],
      allowed: [true, true, true],
      exactAllowed: [true, true, false],
    },
  ],
  'rolling-rate-limiter': [DENIED_COUNTS],
};
