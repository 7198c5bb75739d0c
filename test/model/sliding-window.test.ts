import { describe, expect, it } from 'vitest';
import { SlidingWindowModel } from '../../src/model/sliding-window.js';

describe('SlidingWindowModel', () => {
  it('half-open: counts seconds in (now - W, now]', () => {
    const model = new SlidingWindowModel(3, 'half-open');
    for (const t of [10, 11, 12, 13]) model.record(t + 0.5, 'success');
    expect(model.count(13.9)).toEqual({ successes: 3, failures: 0 }); // 11, 12, 13
    expect(model.count(16)).toEqual({ successes: 0, failures: 0 });
  });

  it('closed: counts seconds in [now - W, now]', () => {
    const model = new SlidingWindowModel(3, 'closed');
    for (const t of [10, 11, 12, 13]) model.record(t, t % 2 ? 'failure' : 'success');
    expect(model.count(13)).toEqual({ successes: 2, failures: 2 }); // 10..13
    expect(model.count(14)).toEqual({ successes: 1, failures: 2 });
  });

  it('caps the window', () => {
    const model = new SlidingWindowModel(100, 'closed', 2);
    for (const t of [1, 2, 3, 4]) model.record(t, 'success');
    expect(model.count(4)).toEqual({ successes: 3, failures: 0 });
  });

  it('tracks consecutive outcomes', () => {
    const model = new SlidingWindowModel(10, 'half-open');
    model.record(1, 'failure');
    model.record(2, 'failure');
    expect([model.consecutiveErrors, model.consecutiveSuccesses]).toEqual([2, 0]);
    model.record(3, 'success');
    expect([model.consecutiveErrors, model.consecutiveSuccesses]).toEqual([0, 1]);
  });

  it('stays correct over a long run with compaction', () => {
    const model = new SlidingWindowModel(50, 'half-open');
    for (let t = 0; t < 10_000; t += 1) model.record(t, 'success');
    expect(model.count(9_999)).toEqual({ successes: 50, failures: 0 });
  });
});
