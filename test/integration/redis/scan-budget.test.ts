/**
 * SCAN within a per-call budget: on a 200k-key server, a listing's SCAN
 * calls leave (almost) no slow-log entry over 1 ms; a fixed --scan-count is what
 * every call sends.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readListing } from '../../../src/inspect/listing.js';
import { newNameBook } from '../../../src/layouts/stoplight/names.js';
import { SCAN_BUDGET_US, SCAN_COUNT, scanOnce } from '../../../src/redis/scan.js';
import { commandCalls, ownServer, populateAppKeys } from '../../helpers.js';

const KEYS = 200_000;

interface SlowEntry {
  readonly id: number;
  readonly micros: number;
  readonly args: string[];
}

async function slowlog(redis: Redis): Promise<SlowEntry[]> {
  const raw = (await redis.call('SLOWLOG', 'GET', '-1')) as unknown[][];
  return raw.map((e) => ({ id: Number(e[0]), micros: Number(e[2]), args: (e[3] as unknown[]).map(String) }));
}

const isScan = (e: SlowEntry): boolean => e.args[0]?.toUpperCase() === 'SCAN';

let redis: Redis;

ownServer(
  async (_server, r) => {
    redis = r;
    // Niced above the other processes of a shared machine (where permitted; else at the usual
    // priority), so the slow log measures the command and not the scheduler: on two loaded cores a
    // preempted server logged 2–6 ms for a SCAN of COUNT 150.
    expect(await populateAppKeys(redis, KEYS, { stoplightEvery: 1000 })).toBe(KEYS + KEYS / 1000);
  },
  { settings: ['slowlog-max-len=100000'], wrapper: ['nice', '-n', '-15'] },
);

describe('SCAN within a per-call budget', () => {
  it('a listing of a 200k-key server leaves (almost) no SCAN in the slow log over 1 ms', async () => {
    await redis.config('SET', 'slowlog-log-slower-than', '1000');
    // A shared machine still preempts the server now and then (in a full test run, 2 to 4 SCANs of a pass of
    // ~1,000 logged 2-19 ms while the others took microseconds): a pass counts when at most 1% of its calls are
    // logged, of three tries. A COUNT that costs over 1 ms on the server logs every call, and fails every try.
    const tries: { calls: number; over: string[] }[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await redis.call('SLOWLOG', 'RESET');
      const before = await commandCalls(redis, 'scan');
      const listing = await readListing(redis, { windowSeconds: null, names: newNameBook(), scanPauseMs: 0, stopped: () => false, layout: 'all' });
      expect(listing.list.partial).toBe(false);
      const calls = (await commandCalls(redis, 'scan')) - before;
      // The whole table was walked: more calls than COUNT 1000 would need, fewer than the floor of 10 would.
      expect(calls).toBeGreaterThan(KEYS / SCAN_COUNT);
      expect(calls).toBeLessThan(KEYS / 10);
      expect(listing.list.scan?.calls).toBe(calls);
      const over = (await slowlog(redis)).filter((e) => isScan(e) && e.micros > 1000);
      tries.push({ calls, over: over.map((e) => `${e.micros} µs: ${e.args.join(' ')}`) });
      if (over.length <= calls / 100) break;
    }
    const last = tries.at(-1) as { calls: number; over: string[] };
    expect(last.over.length, last.over.join('\n')).toBeLessThanOrEqual(last.calls / 100);
  });

  it('the same pass at a fixed COUNT of 1000 is not within it (the check can fail)', async () => {
    // Every SCAN logged, and compared by the share of calls over the budget: a loaded machine that preempts the
    // server stretches some calls of either pass, but cannot make the adapted pass's share of slow calls the larger.
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    const overBudget = async (count?: number): Promise<{ share: number; maxCallUs: number }> => {
      await redis.call('SLOWLOG', 'RESET');
      const report = await scanOnce(redis, ['stoplight:v5:*', 'stoplight:v6:*'], () => undefined, { pauseMs: 0, ...(count ? { count } : {}) });
      const scans = (await slowlog(redis)).filter(isScan);
      expect(scans.length).toBe(report.calls);
      return { share: scans.filter((e) => e.micros > SCAN_BUDGET_US).length / scans.length, maxCallUs: report.maxCallUs };
    };
    const fixed = await overBudget(1000);
    const adapted = await overBudget();
    await redis.config('SET', 'slowlog-log-slower-than', '10000');
    expect(fixed.share).toBeGreaterThan(adapted.share);
    expect(adapted.maxCallUs).toBeGreaterThan(0);
  });

  it('a fixed COUNT is what every call sends', async () => {
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    await redis.call('SLOWLOG', 'RESET');
    const report = await scanOnce(redis, ['stoplight:v5:*'], () => undefined, { pauseMs: 0, count: 2000 });
    await redis.config('SET', 'slowlog-log-slower-than', '10000');
    const scans = (await slowlog(redis)).filter(isScan);
    expect(scans.length).toBe(report.calls);
    expect(new Set(scans.map((e) => e.args[e.args.indexOf('COUNT') + 1]))).toEqual(new Set(['2000']));
    expect(report.lastCount).toBe(2000);
  });
});
