import { describe, expect, it } from 'vitest';
import { CAPPED_COMMANDS_PER_CALL, COPY_SECONDS, COPY_SECONDS_PER_MEMBER, estimatePlan, FILL_SECONDS_PER_EVENT } from '../../../src/bench/estimate.js';
import type { BenchPlan } from '../../../src/bench/plan.js';

const plan: BenchPlan = { layouts: ['stoplight-v5', 'stoplight-v6'], windows: [300], rates: [100], failureRate: 0.1, lights: 1, seed: 1 };
const seconds = (p: BenchPlan, phase: string): number | undefined => estimatePlan(p).phases.find((x) => x.phase === phase)?.seconds;

describe('estimatePlan', () => {
  it('counts the fill at its measured speed without a cap', () => {
    expect(seconds(plan, 'fill')).toBeCloseTo(2 * 30_000 * FILL_SECONDS_PER_EVENT, 6);
  });

  it("under --max-ops, a phase that writes takes at least its events' commands over the cap", () => {
    const capped: BenchPlan = { ...plan, maxOpsPerSecond: 1000, accuracy: { threshold: 0.5 } };
    // 60,000 fill events, each charged its script's commands, at 1,000 commands a second.
    expect(seconds(capped, 'fill')).toBe((60_000 * CAPPED_COMMANDS_PER_CALL) / 1000);
    expect(seconds(capped, 'accuracy')).toBeGreaterThan(seconds({ ...capped, maxOpsPerSecond: undefined } as BenchPlan, 'accuracy') ?? 0);
    expect(estimatePlan(capped).totalSeconds).toBeGreaterThan(60 * CAPPED_COMMANDS_PER_CALL);
  });
});

describe('estimatePlan with the accuracy phases beside the fills', () => {
  const memoryOnly: BenchPlan = { ...plan, windows: [60, 600], rates: [10, 100], accuracy: { threshold: 0.5 } };
  const sum = (e: ReturnType<typeof estimatePlan>): number => e.phases.reduce((total, p) => total + p.seconds, 0);

  it("on swc's own server without throughput phases: the accuracy phases run on a second server, so the run takes the longer of the two sides", () => {
    const e = estimatePlan(memoryOnly);
    const accuracy = e.phases.find((p) => p.phase === 'accuracy');
    expect(accuracy?.beside).toBe(true);
    const start = e.phases.find((p) => p.phase === 'server start')?.seconds ?? 0;
    const own = sum(e) - start - (accuracy?.seconds ?? 0);
    expect(e.totalSeconds).toBeCloseTo(start + Math.max(own, accuracy?.seconds ?? 0), 6);
    expect(e.totalSeconds).toBeLessThan(sum(e));
  });

  it('in line (a given server, --suggest) or with throughput phases (they wait for the accuracy phases): every phase adds up', () => {
    for (const e of [
      estimatePlan(memoryOnly, { privateServer: false }),
      estimatePlan(memoryOnly, { inLine: true }),
      estimatePlan({ ...memoryOnly, throughput: { connections: 1, pipeline: 1, seconds: 1 } }),
    ]) {
      expect(e.phases.some((p) => p.beside)).toBe(false);
      expect(e.totalSeconds).toBeCloseTo(sum(e), 6);
    }
  });
});

describe('estimatePlan counts every phase', () => {
  const one: BenchPlan = { ...plan, windows: [30], rates: [1] };
  const instructions = { calls: 300, repeats: 3, profile: false };

  it('--instructions: valgrind start, the counted fills and every counted call (a 35 s run was estimated 8 s before)', () => {
    const without = estimatePlan(one).totalSeconds;
    const counted = estimatePlan(one, { instructions });
    const phase = counted.phases.find((p) => p.phase === 'instructions')?.seconds ?? 0;
    // 2 layouts × 3 repeats × 300 calls × 4 script calls (write, read, request = 2) at 2.4 ms, plus the start and the cells.
    expect(phase).toBeCloseTo(6 + 2 * 1 + 2 * 30 * 1e-3 + 2 * 3 * 300 * 4 * 2.4e-3, 6);
    expect(counted.totalSeconds).toBeCloseTo(without + phase, 6);
    expect(counted.cells[0]?.phases.at(-1)).toBe('instructions (valgrind, 3 × 300 calls per op)');
    // More calls cost more: the per-call part scales.
    const more = estimatePlan(one, { instructions: { ...instructions, calls: 1000 } }).phases.find((p) => p.phase === 'instructions')?.seconds ?? 0;
    expect(more - phase).toBeCloseTo(2 * 3 * 700 * 4 * 2.4e-3, 6);
  });

  it('the commands probe on swc’s own server only, and not with --no-commands', () => {
    expect(seconds(one, 'commands per call')).toBeGreaterThan(0);
    expect(estimatePlan(one).cells[0]?.phases).toContain('commands per call');
    expect(estimatePlan(one, { privateServer: false }).phases.find((p) => p.phase === 'commands per call')).toBeUndefined();
    expect(seconds({ ...one, commandsPerCall: false }, 'commands per call')).toBeUndefined();
  });

  it('a preset cell with skiplists copies them server-side (no extra lights); a listpack cell none', () => {
    const preset: BenchPlan = { ...plan, windows: [60], rates: [10], lights: 8, steadyLights: { relativeSd: 0.0008, maxLights: 32, maxCopies: 255 } };
    const e = estimatePlan(preset);
    // 600 members, aiming 10% under the target: (11 √600 / (0.00072 × 600 × 127))² → 25 readings, the key and 24 copies, per layout.
    expect(e.cells[0]?.phases).toContain('up to 24 copies of each skiplist (steady bytes)');
    expect(e.phases.find((p) => p.phase === 'steady copies')?.seconds).toBeCloseTo(2 * 24 * (COPY_SECONDS + 600 * COPY_SECONDS_PER_MEMBER), 6);
    // The fill is the given lights' alone.
    expect(e.phases.find((p) => p.phase === 'fill')?.seconds).toBeCloseTo(2 * 8 * 600 * FILL_SECONDS_PER_EVENT, 6);
    const listpack: BenchPlan = { ...preset, windows: [30], rates: [1] };
    expect(estimatePlan(listpack).phases.find((p) => p.phase === 'steady copies')).toBeUndefined();
  });
});
