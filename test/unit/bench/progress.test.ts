import { describe, expect, it } from 'vitest';
import { RunClock } from '../../../src/bench/progress.js';

describe('RunClock: progress by time across fill and throughput phases', () => {
  it('weighs the throughput rounds by their seconds, learns the fill speed, and ends at 1', () => {
    // Two window×rate groups of two layouts, 10,000 events each group; 1 s per phase in 5 rounds, no app view.
    const clock = new RunClock(20_000, 2, 2, { seconds: 1, rounds: 5 }, 0);
    expect(clock.fraction()).toBe(0);
    expect(clock.etaSeconds(100)).toBeNull();
    clock.cellStart(0);
    clock.events(5_000, 500); // 0.1 ms per event: the fill of a group is 1 s, its throughput 6 s
    clock.events(10_000, 1000);
    const afterFill = clock.fraction();
    expect(afterFill).toBeCloseTo(1 / 14, 5);
    // Half of the first group's throughput: the read phase's third round, first layout, half done.
    clock.round(1, 2, 0, 0.5, 1000);
    expect(clock.fraction()).toBeGreaterThan(afterFill);
    expect(clock.fraction()).toBeCloseTo((1 + ((1 * 5 + 2) * 2 + 0.5) * 0.2) / 14, 5);
    clock.cellDone(4000);
    clock.cellDone(4000);
    expect(clock.fraction()).toBeCloseTo(7 / 14, 5);
    const eta = clock.etaSeconds(4000);
    expect(eta).not.toBeNull();
    // Half the estimated work in 4 s: about 4 s left.
    expect(eta!).toBeCloseTo(4, 5);
    clock.cellStart(4000);
    clock.events(20_000, 5000);
    clock.round(2, 4, 1, 1, 11_000);
    clock.cellDone(11_000);
    clock.cellDone(11_000);
    expect(clock.fraction()).toBe(1);
    expect(clock.etaSeconds(11_000)).toBe(0);
  });

  it('a memory-only run follows the events alone', () => {
    const clock = new RunClock(4_000, 2, 2, undefined, 0);
    clock.events(1_000, 1000);
    expect(clock.fraction()).toBeCloseTo(0.25, 5);
  });
});
