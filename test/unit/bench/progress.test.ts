import { describe, expect, it } from 'vitest';
import { measuredEta, RunClock } from '../../../src/bench/progress.js';

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

  it('says no time left before the first cell has finished, and leaves the start-up out of the pace', () => {
    // 20 s of start-up (server, scripts, warm-up) before the first cell: none of it is a rate of the run.
    const clock = new RunClock(80_000, 4, 2, { seconds: 1, rounds: 1 }, 0);
    clock.cellStart(20_000);
    clock.events(5_000, 25_000);
    expect(clock.etaSeconds(25_000)).toBeNull();
    clock.events(10_000, 30_000);
    clock.round(0, 0, 0, 1, 30_000);
    clock.cellDone(35_000);
    // 10 s of fill for 10,000 events, 5 s of the rest for one cell: 70,000 events and 7 cells left.
    expect(clock.etaSeconds(35_000)).toBeCloseTo(70 + 35, 5);
  });
});

describe('measuredEta: the time left from what the run measured', () => {
  // A run of 8 equal cells: 10 s of fill (10,000 events) and 5 s of the rest each, 120 s in all.
  const pace = (cells: number, extra = 0) => ({
    eventsDone: cells * 10_000,
    eventsTotal: 80_000,
    cellsDone: cells,
    cellsTotal: 8,
    fillSeconds: cells * 10 + extra,
    otherSeconds: cells * 5,
  });

  it('is null before the first cell has finished', () => {
    expect(measuredEta({ ...pace(0), eventsDone: 4_000, fillSeconds: 4 })).toBeNull();
  });

  it('projects the measured time per event and per cell onto the work left', () => {
    for (let done = 1; done <= 8; done += 1) expect(measuredEta(pace(done))).toBeCloseTo(15 * (8 - done), 6);
  });

  it('follows a fill that turned slower: the rate is re-measured, not assumed', () => {
    // The first cell's fill took twice as long: 20 s per 10,000 events now expected for the rest.
    expect(measuredEta(pace(1, 10))).toBeCloseTo(7 * 20 + 7 * 5, 6);
  });

  it('splits fill time and cell time: cells of different sizes weigh by their events', () => {
    // One small cell done (1,000 events in 1 s, 5 s of the rest); one large cell (99,000 events) left.
    expect(measuredEta({ eventsDone: 1_000, eventsTotal: 100_000, cellsDone: 1, cellsTotal: 2, fillSeconds: 1, otherSeconds: 5 })).toBeCloseTo(99 + 5, 6);
  });
});
