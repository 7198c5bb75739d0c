import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { Coarse, coarseUncounted } from '../../../src/layouts/coarse.js';
import { createLayout, layoutNames, resolveLayoutName } from '../../../src/layouts/index.js';
import type { CountPair, Layout } from '../../../src/layouts/types.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { SlidingWindowModel } from '../../../src/model/sliding-window.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';
import { randomTraffic, type Op } from './random-traffic.js';

const WINDOWS = [1, 2, 7, 60, 300, 3599, 7200];
const SEEDS = [5, 23];
const OPS_PER_CASE = 600;
const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":0}';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

/** Exact per-second counts of a light's traffic, for `countIn` and the model. */
class Tally {
  private readonly perSecond = new Map<number, { successes: number; failures: number }>();
  record(at: number, outcome: 'success' | 'failure'): void {
    const second = Math.floor(at);
    const entry = this.perSecond.get(second) ?? { successes: 0, failures: 0 };
    if (outcome === 'success') entry.successes += 1;
    else entry.failures += 1;
    this.perSecond.set(second, entry);
  }
  countIn = (from: number, to: number): CountPair => {
    let successes = 0;
    let failures = 0;
    for (const [second, c] of this.perSecond) {
      if (second >= from && second <= to) {
        successes += c.successes;
        failures += c.failures;
      }
    }
    return { successes, failures };
  };
}

interface Read {
  at: number;
  exact: CountPair;
  actual: CountPair;
  bound: CountPair;
  /** The seconds a coarse read leaves out, counted exactly. */
  uncounted: CountPair | null;
}

/** Sends the traffic through the layout in one pipeline and collects, per read, the exact counts, the layout's, and its declared bound. */
async function runCase(layout: Layout, windowSeconds: number, ops: readonly Op[]): Promise<Read[]> {
  await installScripts(redis, layout.scripts);
  const light = { name: uniqueName(`approx-${layout.name}`) };
  const model = new SlidingWindowModel(windowSeconds, layout.windowSemantics);
  const tally = new Tally();
  const calls: ScriptCall[] = [];
  const pending: { index: number; at: number; exact: CountPair; bound: CountPair; uncounted: CountPair | null }[] = [];
  ops.forEach((op, index) => {
    const options = { at: op.at, windowSeconds };
    if (op.kind === 'read') {
      calls.push(layout.getMetrics(light, options));
      const bound = layout.approximation?.errorBound(op.at, windowSeconds, tally.countIn) ?? { successes: 0, failures: 0 };
      // Counted now: later events may fall in the same seconds.
      const range = layout instanceof Coarse ? coarseUncounted(op.at, windowSeconds, layout.bucketSeconds) : null;
      const uncounted = range ? tally.countIn(range.fromSecond, range.toSecond) : null;
      pending.push({ index, at: op.at, exact: model.count(op.at), bound, uncounted });
      return;
    }
    calls.push(op.kind === 'success' ? layout.recordSuccess(light, options) : layout.recordFailure(light, { ...options, errorJson: ERROR_JSON }));
    model.record(op.at, op.kind);
    tally.record(op.at, op.kind);
  });
  const replies = await execPipeline(redis, calls);
  return pending.map((p) => {
    const [err, reply] = replies[p.index] ?? [new Error('missing reply'), null];
    if (err) throw err;
    const snapshot = layout.parseMetrics(reply);
    return { at: p.at, exact: p.exact, actual: { successes: snapshot.successes, failures: snapshot.failures }, bound: p.bound, uncounted: p.uncounted };
  });
}

const err = (r: Read, k: keyof CountPair): number => Math.abs(r.actual[k] - r.exact[k]);
/** Floating point slack for the fractional estimates. */
const EPSILON = 1e-9;

describe('the approximate layouts declare themselves and a bound', () => {
  it('exactly coarse and two-window (and coarse variants) declare an approximation; every other registered layout is exact', () => {
    const approximate = layoutNames.filter((name) => createLayout(name).approximation !== undefined);
    expect(approximate).toEqual(['coarse', 'two-window']);
    expect(createLayout(resolveLayoutName('coarse-30s')).approximation?.description).toMatch(/30-second bucket/);
  });
});

describe.each(['coarse', 'coarse-30s', 'two-window'])('%s against the reference model', (name) => {
  it.each(WINDOWS.flatMap((w) => SEEDS.map((seed) => [w, seed] as const)))(
    'window %i s, seed %i: every read is within the declared error bound of the exact window',
    async (windowSeconds, seed) => {
      const layout = createLayout(resolveLayoutName(name));
      const ops = randomTraffic(seed * 1000 + windowSeconds, windowSeconds, HOUR_START + 17.25, OPS_PER_CASE);
      const reads = await runCase(layout, windowSeconds, ops);
      expect(reads.length).toBeGreaterThan(100);
      const outside = reads.filter((r) => err(r, 'successes') > r.bound.successes + EPSILON || err(r, 'failures') > r.bound.failures + EPSILON);
      expect(outside).toEqual([]);
    },
  );
});

describe('coarse: exactly the declared seconds are left out', () => {
  it.each([
    [60, 10],
    [300, 30],
    [7, 10],
  ])(
    'window %i s, buckets of %i s: each read equals the exact count minus the uncounted stretch, and some reads do miss events',
    async (windowSeconds, bucketSeconds) => {
      const layout = createLayout(resolveLayoutName(bucketSeconds === 10 ? 'coarse' : `coarse-${bucketSeconds}s`));
      const ops = randomTraffic(77 + windowSeconds, windowSeconds, HOUR_START + 3.5, OPS_PER_CASE);
      const reads = await runCase(layout, windowSeconds, ops);
      for (const r of reads) {
        const missed = r.uncounted ?? { successes: 0, failures: 0 };
        expect({ at: r.at, ...r.actual }).toEqual({ at: r.at, successes: r.exact.successes - missed.successes, failures: r.exact.failures - missed.failures });
      }
      expect(reads.some((r) => err(r, 'successes') + err(r, 'failures') > 0)).toBe(true);
      // A window that starts on a bucket edge is read exactly.
      const onEdge = reads.filter((r) => (Math.floor(r.at) - windowSeconds + 1) % bucketSeconds === 0);
      for (const r of onEdge) expect(r.actual).toEqual(r.exact);
    },
  );
});

describe('two-window: where the estimate is exact and where it is not', () => {
  it('one event per second (the previous window evenly spread): every read equals the exact count', async () => {
    const windowSeconds = 60;
    const ops: Op[] = [];
    for (let s = 0; s < 200; s += 1) {
      ops.push({ kind: s % 3 === 0 ? 'failure' : 'success', at: HOUR_START + s + 0.5 });
      ops.push({ kind: 'read', at: HOUR_START + s + 0.75 });
    }
    const reads = await runCase(createLayout('two-window'), windowSeconds, ops);
    // From the second fixed window on, the previous window is full and even.
    const settled = reads.filter((r) => r.at >= HOUR_START + 2 * windowSeconds);
    expect(settled.length).toBeGreaterThan(50);
    for (const r of settled) {
      expect(r.actual.successes + r.actual.failures).toBeCloseTo(r.exact.successes + r.exact.failures, 9);
    }
  });

  it('a burst at the start of the previous window is still counted after it left: the error reaches the bound', async () => {
    const windowSeconds = 60;
    const ops: Op[] = [];
    for (let i = 0; i < 30; i += 1) ops.push({ kind: 'failure', at: HOUR_START + 0.01 * i });
    ops.push({ kind: 'read', at: HOUR_START + 90 });
    const [read] = await runCase(createLayout('two-window'), windowSeconds, ops);
    // At second 90 the burst (second 0) left the window; the estimate still weighs it by (60 - 1 - 30) / 60.
    expect(read?.exact.failures).toBe(0);
    expect(read?.actual.failures).toBeCloseTo((30 * 29) / 60, 9);
    expect(read?.bound.failures).toBeCloseTo(30 * (31 / 60), 9);
  });
});
