import { describe, expect, it } from 'vitest';
import { compareReports, judgeRounds } from '../../../src/compare/diff.js';
import { spreadOf } from '../../../src/measure/throughput.js';
import { latencyStats, minuteCell } from '../../report-fixtures.js';
import type { BenchReport, CellResult, LatencyStats, ThroughputResult } from '../../../src/measure/types.js';

/** Fixed results, no Redis: the noise-aware throughput rule of compare. */

/** One operation measured in rounds: ops/s and server µs per call of each round. */
function op(ops: readonly number[], usec: readonly number[]): LatencyStats {
  const o = spreadOf(ops);
  const u = spreadOf(usec);
  const flat = spreadOf([0.1]);
  return {
    ...latencyStats({ opsPerSec: o.median, serverUsecPerCall: u.median }),
    rounds: { count: ops.length, opsPerSec: o, p50Ms: flat, p99Ms: flat, p999Ms: flat, serverUsecPerCall: u },
    noisy: o.noisy || u.noisy,
  };
}

function cell(layout: string, t: ThroughputResult): CellResult {
  return { ...minuteCell(layout, 1000), throughput: t };
}

function report(a: ThroughputResult, b: ThroughputResult): BenchReport {
  return {
    schemaVersion: 3,
    swcVersion: '0.1.0',
    redis: { version: '7.0.15', memAllocator: 'jemalloc-5.3.0', mode: 'standalone', private: true, config: {} },
    options: { seed: 1, failureRate: 0.5, lights: 1 },
    results: [cell('A', a), cell('B', b)],
    startedAt: '2026-11-30T12:00:00.000Z',
    elapsedSeconds: 1,
  };
}

/** A layout measured in five rounds: ops/s and µs per call scaled from the given base values. */
function layout(opsBase: number, usecBase: number, wobble: readonly number[], ratioTo?: { reference: string; ratios: readonly number[] }): ThroughputResult {
  const ops = wobble.map((w) => opsBase * w);
  const usec = wobble.map((w) => usecBase / w);
  const r = ratioTo ? spreadOf(ratioTo.ratios) : undefined;
  return {
    write: op(ops, usec),
    read: op(ops, usec),
    request: op(
      ops.map((x) => x / 2),
      usec.map((x) => x * 2),
    ),
    connections: 4,
    pipeline: 1,
    rounds: wobble.length,
    ...(r && ratioTo ? { ratio: { reference: ratioTo.reference, write: r, read: r, request: r, serverUsecPerRequest: r } } : {}),
  };
}

const steady = [0.9, 1, 1.05, 1.1, 0.95];
const ratio = { reference: 'A', ratios: [0.95, 1, 1.02, 1.05, 0.98] };

describe('compare: throughput judged from rounds', () => {
  it('passes noise that moves some rounds, even past the tolerance', () => {
    const baseline = report(layout(50_000, 10, steady), layout(50_000, 10, steady, ratio));
    // A slow machine this time: ops/s medians 30% lower, but one round of each overlaps the baseline's.
    const noisy = [0.55, 0.6, 0.7, 0.92, 0.65];
    const current = report(layout(50_000, 10, noisy), layout(50_000, 10, noisy, { reference: 'A', ratios: [0.7, 1, 1.3, 0.95, 1.1] }));
    const verdict = compareReports(baseline, current, { memoryTolerance: 0.01, throughputTolerance: 0.25, absolute: true, serverTolerance: 0.25 });
    expect(verdict.failures).toEqual([]);
    expect(verdict.ok).toBe(true);
    const writeOps = verdict.rows.find((r) => r.cell.startsWith('A ') && r.figure === 'writeOpsPerSec');
    expect(writeOps?.changeFraction).toBeLessThan(-0.25);
    expect(writeOps?.status).toBe('ok');
    expect(writeOps?.baselineRange?.min).toBeCloseTo(45_000);
    expect(writeOps?.baselineRange?.max).toBeCloseTo(55_000);
  });

  it('fails a script twice as slow: server µs per call doubles in every round', () => {
    const baseline = report(layout(50_000, 10, steady), layout(50_000, 10, steady, ratio));
    const current = report(layout(50_000, 10, steady), layout(25_000, 20, steady, { reference: 'A', ratios: [0.48, 0.5, 0.52, 0.5, 0.49] }));
    const verdict = compareReports(baseline, current);
    expect(verdict.ok).toBe(false);
    const failed = verdict.failures.map((r) => `${r.layout} ${r.figure}`);
    expect(failed).toEqual(expect.arrayContaining(['B writeServerUsecPerCall', 'B requestServerUsecPerCall', 'B writeRatio', 'B requestRatio']));
    expect(failed.some((f) => f.startsWith('A '))).toBe(false);
  });

  it('lists improvements without failing', () => {
    const baseline = report(layout(50_000, 10, steady), layout(17_000, 30, steady, { reference: 'A', ratios: [0.32, 0.34, 0.35, 0.33, 0.34] }));
    const current = report(layout(50_000, 10, steady), layout(50_000, 10, steady, ratio));
    const verdict = compareReports(baseline, current);
    expect(verdict.ok).toBe(true);
    expect(verdict.improvements.map((r) => `${r.layout} ${r.figure}`)).toEqual(expect.arrayContaining(['B writeServerUsecPerCall', 'B writeRatio']));
  });

  it('server µs per call: the fastest rounds decide, so a run slowed by a busy machine passes', () => {
    const baseline = report(layout(50_000, 10, steady), layout(50_000, 10, steady, ratio));
    const busy = report(layout(50_000, 10, steady), layout(50_000, 10, steady, ratio));
    // Every round but one 60–200% slower on the server: preemption inside scripts.
    const slowRounds = [1.1, 2.6, 3, 2.7, 1.6].map((x) => x * 10);
    const t = busy.results[1]!.throughput!;
    const rounds = t.write.rounds!;
    const write = { ...t.write, serverUsecPerCall: spreadOf(slowRounds).median, rounds: { ...rounds, serverUsecPerCall: spreadOf(slowRounds) } };
    const current = { ...busy, results: [busy.results[0]!, { ...busy.results[1]!, throughput: { ...t, write } }] };
    const verdict = compareReports(baseline, current);
    const row = verdict.rows.find((r) => r.layout === 'B' && r.figure === 'writeServerUsecPerCall')!;
    expect(row.current).toBeCloseTo(11);
    expect(row.status).toBe('ok');
    expect(verdict.ok).toBe(true);
  });

  describe('with the server CPU per call in both runs', () => {
    /** Adds CPU µs per call to every phase of a layout (rounds as given) and, for B, its per-round CPU ratios to A. */
    const withCpu = (t: ThroughputResult, cpu: readonly number[], ratios?: readonly number[]): ThroughputResult => {
      const add = (s: LatencyStats): LatencyStats => ({
        ...s,
        serverCpuUsecPerCall: spreadOf(cpu).median,
        rounds: { ...s.rounds!, serverCpuUsecPerCall: spreadOf(cpu) },
      });
      const r = ratios ? spreadOf(ratios) : null;
      return {
        ...t,
        write: add(t.write),
        read: add(t.read),
        request: add(t.request),
        ...(t.ratio ? { ratio: { ...t.ratio, serverCpu: { write: r, read: r, request: r } } } : {}),
      };
    };
    const cpuA = [20, 21, 22, 20.5, 21.5];
    const flat = [0.98, 1, 1.02, 0.99, 1.01];
    const base = () => report(withCpu(layout(50_000, 10, steady), cpuA), withCpu(layout(50_000, 10, steady, ratio), cpuA, flat));

    it('a busy spell that makes every call of both layouts cost 80% more passes: the per-round ratio stays', () => {
      const busy = cpuA.map((x) => x * 1.8);
      const current = report(withCpu(layout(50_000, 10, steady), [busy[0]! / 2, ...busy.slice(1)]), withCpu(layout(50_000, 10, steady, ratio), busy, flat));
      const verdict = compareReports(base(), current);
      expect(verdict.failures).toEqual([]);
      const absolute = verdict.rows.find((r) => r.layout === 'B' && r.figure === 'writeServerCpuUsecPerCall')!;
      expect(absolute.changeFraction).toBeGreaterThan(0.5);
      expect(absolute.status).toBe('info');
      // The script µs are shown, not judged, once CPU figures are there.
      expect(verdict.rows.find((r) => r.layout === 'B' && r.figure === 'writeServerUsecPerCall')?.status).toBe('info');
    });

    it("a layout whose calls cost twice the reference's fails, even when its absolute figure barely moved; the way back is an improvement", () => {
      const slow = report(
        withCpu(layout(50_000, 10, steady), cpuA),
        withCpu(
          layout(50_000, 10, steady, ratio),
          cpuA.map((x) => x * 1.05),
          flat.map((x) => x * 2),
        ),
      );
      const verdict = compareReports(base(), slow);
      expect(verdict.failures.map((r) => `${r.layout} ${r.figure}`)).toEqual(expect.arrayContaining(['B writeServerCpuRatio', 'B readServerCpuRatio']));
      expect(verdict.failures.some((r) => r.layout === 'A')).toBe(false);
      const back = compareReports(slow, base());
      expect(back.ok).toBe(true);
      expect(back.improvements.map((r) => `${r.layout} ${r.figure}`)).toEqual(expect.arrayContaining(['B writeServerCpuRatio']));
    });

    it('the reference layout fails on its own CPU per call only when every round is beyond every baseline round and the others did not move with it', () => {
      /** A and B steady, B at `ratio`, with these CPU rounds: A's, B's, and B's ratio rounds. */
      const withRounds = (ofA: number[], ofB: number[], ratioOfB: number[]) =>
        report(withCpu(layout(50_000, 10, steady), ofA), withCpu(layout(50_000, 10, steady, ratio), ofB, ratioOfB));
      const overlapping = withRounds([21.9, 40, 45, 42, 44], cpuA, flat);
      expect(compareReports(base(), overlapping).failures).toEqual([]);
      // A twice as costly, B not: B's ratio to A halves.
      const apart = withRounds(
        cpuA.map((x) => x * 2),
        cpuA,
        flat.map((x) => x / 2),
      );
      expect(compareReports(base(), apart).failures.map((r) => `${r.layout} ${r.figure}`)).toEqual(expect.arrayContaining(['A writeServerCpuUsecPerCall']));
      // Both twice as costly (a busy spell, or a change to both alike): the ratio stays, nothing fails.
      const both = withRounds(
        cpuA.map((x) => x * 2),
        cpuA.map((x) => x * 2),
        flat,
      );
      expect(compareReports(base(), both).failures).toEqual([]);
    });
  });

  it('judgeRounds: past the tolerance and apart is a change; overlapping rounds or no rounds decide as described', () => {
    const base = { value: 10, range: { min: 9, max: 11 } };
    expect(judgeRounds(base, { value: 20, range: { min: 18, max: 22 } }, 0.25, 'up', true)).toBe('regressed');
    expect(judgeRounds(base, { value: 14, range: { min: 10.5, max: 16 } }, 0.25, 'up', true)).toBe('ok');
    expect(judgeRounds(base, { value: 12, range: { min: 11.5, max: 12.5 } }, 0.25, 'up', true)).toBe('ok');
    expect(judgeRounds(base, { value: 5, range: { min: 4, max: 6 } }, 0.25, 'up', true)).toBe('improved');
    // Older results without rounds: the tolerance alone.
    expect(judgeRounds({ value: 10 }, { value: 14 }, 0.25, 'up', true)).toBe('regressed');
    expect(judgeRounds({ value: 10 }, { value: 7 }, 0.25, 'down', true)).toBe('regressed');
    expect(judgeRounds(base, { value: 20, range: { min: 18, max: 22 } }, 0.25, 'up', false)).toBe('info');
  });
});
