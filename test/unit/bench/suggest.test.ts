import { describe, expect, it } from 'vitest';
import { APPROXIMATE_MAX_FLIPS, APPROXIMATE_MIN_SAVING, suggest } from '../../../src/bench/suggest.js';
import type { BenchReport, CellResult } from '../../../src/measure/types.js';
import { renderSuggestions } from '../../../src/report/suggest.js';

/** A measured result: bytes per light, server µs per request (probe), max error and flip share (0 and 0 = exact). */
function cell(layout: string, bytes: number, usec: number | null, maxAbsError = 0, flips = 0, at = { windowSeconds: 300, rate: 100 }): CellResult {
  return {
    layout,
    windowSeconds: at.windowSeconds,
    rate: at.rate,
    durationSeconds: at.windowSeconds,
    eventsInWindow: at.windowSeconds * at.rate,
    events: at.windowSeconds * at.rate,
    memory: { bytesPerLight: bytes, usedMemoryDeltaPerLight: bytes, keys: [], lights: 1 },
    accuracy: { reads: 300, maxAbsError, meanAbsError: maxAbsError / 4, threshold: 0.5, decisionMismatchFraction: flips },
    ...(usec !== null ? { serverCost: { writeUsecPerCall: usec / 2, readUsecPerCall: usec / 2, requestUsecPerCall: usec, calls: 500 } } : {}),
  };
}

function report(results: CellResult[]): BenchReport {
  return {
    schemaVersion: 3,
    swcVersion: 'test',
    redis: { version: '7.0.15', memAllocator: 'jemalloc', mode: 'standalone', private: true, config: {} },
    options: {},
    results,
    startedAt: '2026-01-01T00:00:00.000Z',
    elapsedSeconds: 1,
  };
}

describe('suggest: ranking', () => {
  it('exact layouts by bytes; the smallest exact one is picked over a slightly smaller approximate one', () => {
    const [s] = suggest(
      report([cell('big-exact', 80_000, 14), cell('small-exact', 4_800, 30), cell('mid-exact', 20_000, 12), cell('approx', 2_000, 10, 0.06, 0.001)]),
    );
    expect(s?.pick).toBe('small-exact');
    expect(s?.runnerUp).toBe('mid-exact');
    expect(s?.ranking.map((r) => [r.layout, r.rank, r.verdict])).toEqual([
      ['small-exact', 1, 'pick'],
      ['mid-exact', 2, 'runner-up'],
      ['big-exact', 3, 'exact'],
      // 2.4× smaller only: under the 4× the rule asks.
      ['approx', 4, `approximate: under ${APPROXIMATE_MIN_SAVING}× smaller than the smallest exact`],
    ]);
    expect(s?.ranking[0]).toMatchObject({ exact: true, ratioToSmallest: 2.4, bytesPerWindowSecond: 16, serverUsecPerRequest: 30, serverUsecSource: 'probe' });
    expect(s?.paragraph).toMatch(
      /^For a 5 min window at 100 req\/s, pick small-exact: 4\.7 KB per light \(16 B per second of window\), exact \(all 300 reads matched the exact window\), 30 µs of server time per request\./,
    );
    expect(s?.paragraph).toContain('Runner-up: mid-exact');
    expect(s?.paragraph).toContain('small-exact takes 4.2× less memory than mid-exact, 2.5× its server time per request (30 µs vs 12 µs)');
    expect(s?.paragraph).toContain(
      'approx is smaller still (2.0 KB, 2.4× less) but it is approximate (off by up to 0.060) and only 2.4× smaller (the rule asks 4×)',
    );
  });

  it('an approximate layout many times smaller with few flips beats every exact one; with too many flips it does not', () => {
    const within = suggest(report([cell('exact', 48_000, 14), cell('approx', 1_000, 10, 0.02, APPROXIMATE_MAX_FLIPS)]))[0];
    expect(within?.pick).toBe('approx');
    expect(within?.runnerUp).toBe('exact');
    expect(within?.paragraph).toContain('It is approximate but at least 4× smaller than every exact layout');
    const flipping = suggest(report([cell('exact', 48_000, 14), cell('approx', 1_000, 10, 0.02, 0.032)]))[0];
    expect(flipping?.pick).toBe('exact');
    expect(flipping?.ranking[1]?.verdict).toBe('runner-up');
    expect(flipping?.paragraph).toContain('approx is smaller still (1000 B, 48× less) but it misjudges 3.2% of threshold decisions (the rule allows 1.0%');
  });

  it('names the speed trade-off: less server time than the runner-up, and the fastest exact layout when it is neither', () => {
    const [s] = suggest(report([cell('small', 4_000, 30), cell('mid', 8_000, 60), cell('fast', 80_000, 10)]));
    expect([s?.pick, s?.runnerUp]).toEqual(['small', 'mid']);
    expect(s?.paragraph).toContain('small takes 2.0× less memory than mid, 2.0× less server time per request (30 µs vs 60 µs).');
    expect(s?.paragraph).toContain('The fastest exact layout, fast (10 µs per request), takes 20× the memory.');
  });

  it('exactness is what the reads showed: a layout with any error or any flip is approximate', () => {
    const [s] = suggest(report([cell('a', 1_000, 10, 0.0001, 0), cell('b', 2_000, 10, 0, 0)]));
    expect(s?.pick).toBe('b');
    expect(s?.ranking.find((r) => r.layout === 'a')?.exact).toBe(false);
  });

  it('ties: bytes within 10% go by server time, then equal bytes and time by name', () => {
    const near = suggest(report([cell('slow', 10_000, 40), cell('fast', 10_500, 20)]))[0];
    expect(near?.pick).toBe('fast');
    const same = suggest(report([cell('zeta', 10_000, 20), cell('alpha', 10_000, 20)]))[0];
    expect([same?.pick, same?.runnerUp]).toEqual(['alpha', 'zeta']);
    const apart = suggest(report([cell('slow-small', 5_000, 90), cell('fast-big', 10_000, 10)]))[0];
    expect(apart?.pick).toBe('slow-small');
    // Unknown server time ranks after a known one in a near-tie.
    const unknown = suggest(report([cell('unknown', 10_000, null), cell('known', 10_000, 50)]))[0];
    expect(unknown?.pick).toBe('known');
    expect(unknown?.ranking.find((r) => r.layout === 'unknown')?.serverUsecPerRequest).toBeNull();
  });

  it('failed and skipped layouts are named in the ranking and the paragraph, and never picked', () => {
    const [s] = suggest(report([cell('ring', 4_000, 20), cell('packed', 1_500, 30)]), {
      layouts: ['ring', 'packed', 'broken', 'absent'],
      unmeasured: [{ layout: 'broken', status: 'failed', reason: 'ERR user_script:1: boom' }],
    });
    expect(s?.pick).toBe('packed');
    expect(s?.ranking.map((r) => [r.layout, r.status, r.rank])).toEqual([
      ['packed', 'measured', 1],
      ['ring', 'measured', 2],
      ['broken', 'failed', null],
      ['absent', 'skipped', null],
    ]);
    expect(s?.paragraph).toContain('Not ranked: broken (failed: ERR user_script:1: boom), absent (skipped: no result in this run).');
    const table = renderSuggestions([s!], 'markdown', false);
    expect(table).toContain('| rank | layout | bytes/light | × smallest | server µs/request | max error | flips | verdict |');
    expect(table).toContain('| – | broken | – | – | – | – | – | failed: ERR user_script:1: boom |');
    expect(table).toContain('| 1 | packed | 1,500 | 1.0× | 30.0* | 0.0000 | 0.00% | pick |');
  });

  it('one suggestion per window and rate; a window and rate where every layout failed still gets its paragraph', () => {
    const at = { windowSeconds: 60, rate: 10 };
    const list = suggest(report([cell('ring', 4_000, 20), cell('ring', 900, 20, 0, 0, at)]), {
      unmeasured: [{ layout: 'ring', status: 'failed', reason: 'boom', windowSeconds: 600, rate: 1 }],
    });
    expect(list.map((s) => [s.windowSeconds, s.rate, s.pick])).toEqual([
      [300, 100, 'ring'],
      [60, 10, 'ring'],
      [600, 1, null],
    ]);
    expect(list[2]?.paragraph).toBe('For a 10 min window at 1 req/s, no layout was measured, so there is nothing to pick. Not ranked: ring (failed: boom).');
  });

  it("the throughput phase's server µs per request wins over the probe's when the run measured it", () => {
    const measured = cell('ring', 4_000, 99);
    const withThroughput: CellResult = {
      ...measured,
      throughput: {
        write: { opsPerSec: 1, p50Ms: 1, p99Ms: 1, p999Ms: 1, meanMs: 1, ops: 1, durationSeconds: 1, serverUsecPerCall: 5 },
        read: { opsPerSec: 1, p50Ms: 1, p99Ms: 1, p999Ms: 1, meanMs: 1, ops: 1, durationSeconds: 1, serverUsecPerCall: 6 },
        request: { opsPerSec: 1, p50Ms: 1, p99Ms: 1, p999Ms: 1, meanMs: 1, ops: 1, durationSeconds: 1, serverUsecPerCall: 11 },
        connections: 1,
        pipeline: 1,
      },
    };
    expect(suggest(report([withThroughput]))[0]?.ranking[0]).toMatchObject({ serverUsecPerRequest: 11, serverUsecSource: 'throughput' });
  });
});
