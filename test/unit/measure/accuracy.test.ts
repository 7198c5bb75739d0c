import { describe, expect, it } from 'vitest';
import { estimatePeakBytes } from '../../../src/bench/footprint.js';
import { accuracyEvents, accuracyReadTimes, EDGE_READ_SECONDS, EVEN_READS } from '../../../src/measure/accuracy.js';
import { HOUR_START } from '../../helpers.js';

describe('accuracy reads', () => {
  it('reads: 240 spread over the last window of the traffic, plus every second for a minute after each incident edge starts to leave', () => {
    const w = 600;
    const times = accuracyReadTimes(HOUR_START, w);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThan(HOUR_START + 0.25 * w);
    expect(times.at(-1)).toBeCloseTo(HOUR_START + 1.25 * w - 0.001, 6);
    // Incident edges at 0.05 and 0.2 windows leave at 630 s and 720 s: each whole second after them is read, up to the end (750 s).
    for (const edge of [630, 720]) {
      for (let k = edge; k <= Math.min(edge + EDGE_READ_SECONDS, 1.25 * w); k += 1) {
        expect(
          times.filter((t) => Math.abs(t - (HOUR_START + k - 0.001)) < 1e-6),
          `a read at ${k} s`,
        ).toHaveLength(1);
      }
    }
    expect(times.length).toBeGreaterThan(EVEN_READS);
    expect(times.length).toBeLessThanOrEqual(EVEN_READS + 2 * (EDGE_READ_SECONDS + 1));
    expect(accuracyEvents(w, 100)).toBe(75_000);
  });
});

describe('the preflight with accuracy', () => {
  it("counts the accuracy light's 1.25 windows of traffic on top of the cell's lights", () => {
    const plan = { layouts: ['stoplight-v5'], windows: [600], rates: [100], failureRate: 0.5, lights: 1, seed: 1 };
    const without = estimatePeakBytes(plan).bytes;
    const withAccuracy = estimatePeakBytes({ ...plan, accuracy: { threshold: 0.5 } }).bytes;
    // 5.x keeps every event: 75,000 more at over 120 bytes each.
    expect(withAccuracy - without).toBeGreaterThan(75_000 * 120);
  });
});
