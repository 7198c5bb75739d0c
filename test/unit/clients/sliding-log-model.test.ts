import { describe, expect, it } from 'vitest';
import {
  EXACT_SLIDING_LOG,
  RATELIMITER_DEVIATION,
  ROLLING_RATE_LIMITER_DEVIATION,
  slidingLogModel,
  slidingLogModelWith,
  type SlidingLogDeviation,
} from '../../../src/clients/models/sliding-log.js';
import { modelOf } from '../../../src/clients/models/index.js';

const SETTINGS = { prefix: 'p:', limit: 2, windowMs: 1000 };

/** The model's decisions for client `c` at `times` (ms), and what its log holds after them. */
function run(deviation: SlidingLogDeviation, times: readonly number[]): { decisions: boolean[]; logged: number } {
  const model = slidingLogModelWith(deviation)(SETTINGS);
  const decisions = times.map((t) => model.decide('c', t));
  return { decisions, logged: model.logged('c') };
}

describe('the sliding-log model', () => {
  it('exact: allows while fewer than the limit were allowed in (t - window, t]; a request exactly one window later no longer counts', () => {
    const model = slidingLogModel(SETTINGS);
    expect([0, 1, 2, 999.999, 1000, 1000.5, 1001].map((t) => model.decide('c', t))).toEqual([true, true, false, false, true, false, true]);
    // Clients are counted apart.
    expect(model.decide('other', 1001)).toBe(true);
  });

  it('exact: denied requests are not logged, so steady overload gets the limit through every window', () => {
    const times = Array.from({ length: 12 }, (_, i) => i * 250);
    expect(run(EXACT_SLIDING_LOG, times).decisions.filter(Boolean)).toHaveLength(6);
  });

  it('denied requests counted: the same overload is locked out after the first window', () => {
    const times = Array.from({ length: 12 }, (_, i) => i * 250);
    for (const deviation of [RATELIMITER_DEVIATION, ROLLING_RATE_LIMITER_DEVIATION]) {
      const { decisions, logged } = run(deviation, times);
      expect(decisions.filter(Boolean)).toHaveLength(2);
      expect(logged).toBe(deviation.keepsAtMostLimit ? 2 : 4);
    }
  });

  it('same microsecond counted once: times that round to one microsecond are one entry', () => {
    expect(run(RATELIMITER_DEVIATION, [0, 0.0004, 0.0004, 0.002])).toEqual({ decisions: [true, true, true, true], logged: 2 });
    expect(run(ROLLING_RATE_LIMITER_DEVIATION, [0, 0.0004, 0.0004, 0.002])).toEqual({ decisions: [true, true, false, false], logged: 4 });
  });

  it('minimum difference: a request closer than it to the last logged one is denied', () => {
    const deviation = { ...EXACT_SLIDING_LOG, minDifferenceMs: 10 };
    // The exact log keeps no denied request, so the gap is measured from the last allowed one.
    expect(run(deviation, [0, 5, 10]).decisions).toEqual([true, false, true]);
    expect(run({ ...deviation, deniedCount: true }, [0, 5, 10]).decisions).toEqual([true, false, false]);
  });

  it("verify's model of a package is its algorithm's with the deviation it declares", () => {
    const times = Array.from({ length: 12 }, (_, i) => i * 250);
    const allowed = (packageName: string): number => {
      const model = modelOf({ packageName, algorithm: 'sliding-log' })(SETTINGS);
      return times.filter((t) => model.decide('c', t)).length;
    };
    expect([allowed('ratelimiter'), allowed('rolling-rate-limiter'), allowed('another-sliding-log')]).toEqual([2, 2, 6]);
    const instant = modelOf({ packageName: 'ratelimiter', algorithm: 'sliding-log' })(SETTINGS);
    expect([0, 0, 0].map((t) => instant.decide('c', t))).toEqual([true, true, true]);
  });
});
