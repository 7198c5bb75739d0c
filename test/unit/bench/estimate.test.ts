import { describe, expect, it } from 'vitest';
import { estimatePlan, FILL_SECONDS_PER_EVENT } from '../../../src/bench/estimate.js';
import type { BenchPlan } from '../../../src/bench/plan.js';

const plan: BenchPlan = { layouts: ['stoplight-v5', 'stoplight-v6'], windows: [300], rates: [100], failureRate: 0.1, lights: 1, seed: 1 };
const seconds = (p: BenchPlan, phase: string): number | undefined => estimatePlan(p).phases.find((x) => x.phase === phase)?.seconds;

describe('estimatePlan', () => {
  it('counts the fill at its measured speed without a cap', () => {
    expect(seconds(plan, 'fill')).toBeCloseTo(2 * 30_000 * FILL_SECONDS_PER_EVENT, 6);
  });

  it('under --max-ops, a phase that writes takes at least its events over the cap', () => {
    const capped: BenchPlan = { ...plan, maxOpsPerSecond: 1000, accuracy: { threshold: 0.5 } };
    // 60,000 fill events at 1,000 a second.
    expect(seconds(capped, 'fill')).toBe(60);
    expect(seconds(capped, 'accuracy')).toBeGreaterThan(seconds({ ...capped, maxOpsPerSecond: undefined } as BenchPlan, 'accuracy') ?? 0);
    expect(estimatePlan(capped).totalSeconds).toBeGreaterThan(60);
  });
});
