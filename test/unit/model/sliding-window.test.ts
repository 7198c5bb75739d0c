import { describe, expect, it } from 'vitest';
import { SlidingWindowModel } from '../../../src/model/sliding-window.js';

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

describe('SlidingWindowModel, what verify reads from it', () => {
  it('counts the seconds of a range still in the window (countIn)', () => {
    const model = new SlidingWindowModel(10, 'half-open');
    for (const t of [100.2, 100.7, 101.5, 103]) model.record(t, t === 101.5 ? 'failure' : 'success');
    expect(model.countIn(100, 100)).toEqual({ successes: 2, failures: 0 });
    expect(model.countIn(101, 103)).toEqual({ successes: 1, failures: 1 });
    expect(model.countIn(104, 200)).toEqual({ successes: 0, failures: 0 });
    model.count(111); // evicts 100 and 101
    expect(model.countIn(0, 200)).toEqual({ successes: 1, failures: 0 });
  });

  it('says how many buckets the latest call evicted (lastEvicted)', () => {
    const model = new SlidingWindowModel(5, 'half-open');
    for (let t = 0; t < 5; t += 1) model.record(t + 0.5, 'success');
    expect(model.lastEvicted).toBe(0);
    model.count(7); // window (2, 7]: seconds 0, 1, 2 leave
    expect(model.lastEvicted).toBe(3);
    model.record(100, 'failure'); // seconds 3 and 4 leave
    expect(model.lastEvicted).toBe(2);
  });

  it('keeps the time of the newest success and failure, whatever the order they come in', () => {
    const model = new SlidingWindowModel(60, 'half-open');
    expect([model.lastSuccessAt, model.lastErrorAt]).toEqual([null, null]);
    model.record(10.5, 'success');
    model.record(10.25, 'success');
    model.record(9, 'failure');
    expect([model.lastSuccessAt, model.lastErrorAt]).toEqual([10.5, 9]);
  });
});
