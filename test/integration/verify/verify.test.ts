import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTarget, type Target } from '../../../src/run/open.js';
import { createLayout, type Layout, type LayoutName } from '../../../src/layouts/index.js';
import { BACKLOG_BUCKETS } from '../../../src/verify/traffic.js';
import type { ReproCall, VerifyResult } from '../../../src/verify/types.js';
import { verifyLayout } from '../../../src/verify/verify.js';
import { uniqueName, withPrivateServer } from '../../helpers.js';
import { namedRejection } from '../../../src/core/rejection.js';
import { plantBug, plantBugIn } from './plant.js';
import { SlidingWindowModel } from '../../../src/model/sliding-window.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { verifyErrorJson } from '../../../src/verify/judge.js';

/** swc's own private server: the planted scripts run there as `swc verify` runs them without --redis-url (no probe, no rehearsal). */
let where: Target;
let redis: Redis;
beforeAll(async () => {
  where = await openTarget({ privateServer: {} });
  redis = where.redis;
});
afterAll(() => where.close());

async function verify(name: LayoutName, scriptsDir?: string, calls = 8000, seed = 7, shrinkMs?: number): Promise<VerifyResult> {
  return verifyLayout(where, createLayout(name, scriptsDir ? { scriptsDir } : {}), { trustScripts: true, seed, calls, ...(shrinkMs ? { shrinkMs } : {}) });
}

/** A reproduction replays on one light in time order and ends with the call that shows the problem. */
function expectShortReproduction(reproduction: readonly ReproCall[], lastOp?: ReproCall['op']): void {
  expect(reproduction.length).toBeGreaterThan(0);
  expect(reproduction.length).toBeLessThanOrEqual(10);
  for (let i = 1; i < reproduction.length; i += 1) {
    expect((reproduction[i] as ReproCall).at).toBeGreaterThanOrEqual((reproduction[i - 1] as ReproCall).at);
  }
  if (lastOp) expect(reproduction.at(-1)?.op).toBe(lastOp);
}

describe.each(['stoplight-v5', 'stoplight-v6'] as const)('%s as shipped', (name) => {
  it('gives zero findings over 20,000 calls, one of which evicts a backlog of over 4,000 buckets', async () => {
    const result = await verify(name, undefined, 20_000, 1);
    expect(result.calls).toBe(20_000);
    expect(result.compared).toBeGreaterThan(4000);
    expect(result.largestEviction).toBeGreaterThanOrEqual(BACKLOG_BUCKETS);
    expect(result.disagreements).toEqual([]);
    expect(result.scriptErrors).toEqual([]);
    expect(result.deviationMisses).toEqual([]);
    expect(result.keysWithoutTtl).toEqual([]);
    expect(result.findings).toBe(0);
    expect(result.slots.oneSlotPerLight).toBe(name === 'stoplight-v6');
    // 5.x declares one deviation (a read in the first second of an hour) and the traffic makes it happen.
    if (name === 'stoplight-v5') expect(result.deviations).toEqual([expect.objectContaining({ id: 'hour-key-of-window-end', observed: expect.any(Number) })]);
    for (const d of result.deviations) expect(d.observed).toBeGreaterThan(0);
    if (name === 'stoplight-v6') expect(result.deviations).toEqual([]);
  });
});

describe('keys', () => {
  it.each(['stoplight-v5', 'stoplight-v6'] as const)('%s: a run with findings, shrinking and restarted lights leaves none of its keys behind', async (name) => {
    const dir = plantBug(
      'lib/outcome.lua',
      "redis.call('HINCRBY', hash_key, bump_field, 1)",
      "if redis.call('HINCRBY', hash_key, bump_field, 1) == 4 and bump_field == 'consecutive_errors' then error('planted') end",
    );
    const prefix = `${uniqueName('verify-keys')}:${name}`;
    const result = await verifyLayout(where, createLayout(name, { scriptsDir: dir, prefix }), { trustScripts: true, seed: 11, calls: 3000 });
    expect(result.lightsWithErrors).toBeGreaterThan(0);
    expect(result.shrink.replays).toBeGreaterThan(0);
    const [, left] = await redis.scan('0', 'MATCH', `${prefix}:*`, 'COUNT', 100_000);
    expect(left).toEqual([]);
  });
});

describe('declared deviations', () => {
  it('an undeclared one is a disagreement: stoplight-v5 without its declaration disagrees on a read in the first second of an hour', async () => {
    const plain = createLayout('stoplight-v5');
    const undeclared = Object.create(plain, { deviations: { value: [] } }) as Layout;
    const result = await verifyLayout(where, undeclared, { seed: 7, calls: 3000 });
    expect(result.lightsDisagreeing).toBeGreaterThan(0);
    const [first] = result.disagreements;
    expectShortReproduction(first?.reproduction ?? [], 'read');
    expect(Math.floor(first?.reproduction.at(-1)?.at ?? 1) % 3600).toBe(0);
    const total = (f?: { successes: number; failures: number }): number => (f ? f.successes + f.failures : 0);
    expect(total(first?.actual)).toBeLessThan(total(first?.expected));
  });

  it('one that does not happen as declared is a finding: stoplight-v6 declaring the 5.x rule', async () => {
    const plain = createLayout('stoplight-v6');
    const v5 = createLayout('stoplight-v5');
    const wrong = Object.create(plain, { deviations: { value: v5.deviations } }) as Layout;
    const result = await verifyLayout(where, wrong, { seed: 7, calls: 3000 });
    expect(result.findings).toBeGreaterThan(0);
    const [miss] = result.deviationMisses;
    expect(miss?.deviation).toBe('hour-key-of-window-end');
    expectShortReproduction(miss?.reproduction ?? [], 'read');
  });
});

describe("the injected clock and the server's own", () => {
  it("a stall longer than a key's TTL (sliding-log keeps a 1 s window's log for 2 s) is no finding: the light's calls, replayed at once, agree", async () => {
    const layout = createLayout('sliding-log');
    const options = { seed: 1, calls: 4000, lights: 12 };
    // The same traffic without a stall: nothing to set apart.
    const calm = await verifyLayout(where, layout, options);
    expect(calm.findings).toBe(0);
    expect(calm.unreproduced).toEqual([]);
    // This process stalls 2.3 s after the second batch, as a loaded machine does: the 1 s window's log expires on the server's clock.
    const stalled = await verifyLayout(where, layout, {
      ...options,
      progress: {
        onCalls: (sent) => {
          if (sent !== 2000) return;
          const until = Date.now() + 2300;
          while (Date.now() < until);
        },
      },
    });
    expect(stalled.windows).toContain(1);
    expect(stalled.unreproduced).toEqual([{ kind: 'disagreement', windowSeconds: 1, calls: expect.any(Number), pauseSeconds: expect.any(Number) }]);
    expect(stalled.unreproduced[0]?.pauseSeconds).toBeGreaterThanOrEqual(2.3);
    expect(stalled.disagreements).toEqual([]);
    expect(stalled.findings).toBe(0);
  });

  it('a TTL shorter than the window (2 s for every window) stays a finding on the windows it cuts short, stall or not', async () => {
    // Planted: sliding-log keeps each log for 2 s whatever its window; a light of a 2 h window loses its log after 2 s idle.
    const dir = plantBug('sliding-log/_log.lua', "redis.call('EXPIRE', own_key, 2 * window)", "redis.call('EXPIRE', own_key, 2)");
    const result = await verifyLayout(where, createLayout('sliding-log', { scriptsDir: dir }), {
      trustScripts: true,
      seed: 1,
      calls: 4000,
      lights: 12,
      // What is a finding is decided before shrinking; a short shrink keeps the case quick.
      maxListed: 1,
      shrinkMs: 300,
      progress: {
        onCalls: (sent) => {
          if (sent !== 2000) return;
          const until = Date.now() + 2300;
          while (Date.now() < until);
        },
      },
    });
    // Only a light whose window the 2.3 s wait covers may be put down to the clock.
    expect(result.unreproduced.every((u) => u.windowSeconds <= 2)).toBe(true);
    expect(result.findings).toBeGreaterThan(0);
    expect(result.disagreements.some((d) => d.windowSeconds > 2)).toBe(true);
  });

  it('lights that share a key by mistake disagree only beside each other: never put down to the clock, though a light alone agrees', async () => {
    // Planted: every verify light's metadata in one hash (the light's part of the key name replaced), for writes and reads alike.
    const meta = 'lib/meta.lua';
    const find = 'local function swc_meta_record(hash_key, outcome, second, error_json)';
    const dir = plantBug(
      meta,
      find,
      "local function swc_shared(key) return (string.gsub(key, 'l%d+g%d+', 'shared')) end\n" +
        'local function swc_meta_record(own_key, outcome, second, error_json)\n  local hash_key = swc_shared(own_key)',
    );
    const sharedReads = plantBugIn(dir, meta, "  return redis.call('HMGET', hash_key,", "  return redis.call('HMGET', swc_shared(hash_key),");
    const result = await verifyLayout(where, createLayout('sliding-log', { scriptsDir: sharedReads }), {
      trustScripts: true,
      seed: 1,
      calls: 4000,
      lights: 12,
    });
    expect(result.lightsDisagreeing).toBeGreaterThan(0);
    expect(result.findings).toBeGreaterThan(0);
    expect(result.unreproduced).toEqual([]);
  });
});

describe('planted bugs are found, with a reproduction of at most 10 calls', () => {
  it('stoplight-v6 read keeping one second too many (off-by-one window boundary)', async () => {
    const dir = plantBug('stoplight-v6/get_metrics.lua', 'second - window)', 'second - window - 1)');
    const result = await verify('stoplight-v6', dir);
    expect(result.findings).toBeGreaterThan(0);
    const [first] = result.disagreements;
    expect(first?.fields).toEqual(expect.arrayContaining([expect.stringMatching(/^(successes|failures)$/)]));
    expectShortReproduction(first?.reproduction ?? [], 'read');
  });

  it('stoplight-v5 read starting its window one second late (off-by-one window boundary)', async () => {
    const dir = plantBug('stoplight-v5/get_metrics.lua', 'local window_start = now - window', 'local window_start = now - window + 1');
    const result = await verify('stoplight-v5', dir);
    expect(result.lightsDisagreeing).toBeGreaterThan(0);
    expectShortReproduction(result.disagreements[0]?.reproduction ?? [], 'read');
  });

  it('stoplight-v6 eviction dropping its last, partial batch (lost eviction batch)', async () => {
    const dir = plantBug('stoplight-v6/_window.lua', 'if count == 0 then', 'if count < EVICT_BATCH then');
    const result = await verify('stoplight-v6', dir);
    expect(result.lightsDisagreeing).toBeGreaterThan(0);
    expectShortReproduction(result.disagreements[0]?.reproduction ?? []);
  });

  it('stoplight-v6 eviction loop running only once: found by the backlog light, needs over 1,000 buckets', async () => {
    const dir = plantBug(
      'stoplight-v6/_window.lua',
      "redis.call('ZREM', index_key, unpack(buckets))\n",
      "redis.call('ZREM', index_key, unpack(buckets))\n    do return end\n",
    );
    const result = await verify('stoplight-v6', dir, 8000, 7, 5000);
    expect(result.lightsDisagreeing).toBe(1);
    const [found] = result.disagreements;
    expect(found?.windowSeconds).toBe(7200);
    // A batch is 1000 buckets, so no sequence of fewer than 1001 writes can lose one.
    expect(found?.reproduction.filter((c) => c.op !== 'read').length).toBeGreaterThan(1000);
    expect(found?.reproduction.length).toBeLessThan(found?.originalLength ?? 0);
  });

  it('stoplight-v6 and stoplight-v5 answering an error when a count reaches 3 (error reply on some input)', async () => {
    const dir = plantBug(
      'lib/outcome.lua',
      "redis.call('HINCRBY', hash_key, bump_field, 1)",
      "if redis.call('HINCRBY', hash_key, bump_field, 1) == 3 and bump_field == 'consecutive_errors' then error('planted: third error in a row') end",
    );
    for (const name of ['stoplight-v5', 'stoplight-v6'] as const) {
      const result = await verify(name, dir);
      expect(result.lightsWithErrors).toBeGreaterThan(0);
      const [failure] = result.scriptErrors;
      expect(failure?.op).toBe('failure');
      expect(failure?.error).toContain('planted: third error in a row');
      expectShortReproduction(failure?.reproduction ?? [], 'failure');
      expect(failure?.reproduction.filter((c) => c.op === 'failure').length).toBeGreaterThanOrEqual(3);
    }
  });

  it('stoplight-v6 forgetting the index key TTL: keys left without a TTL', async () => {
    const dir = plantBug('stoplight-v6/_window.lua', "redis.call('EXPIRE', index_key, KEY_TTL_SECONDS)\n", '');
    const result = await verify('stoplight-v6', dir, 2000);
    expect(result.keysWithoutTtl.length).toBeGreaterThan(0);
    for (const { key } of result.keysWithoutTtl) expect(key).toMatch(/:window_metrics:ts_idx$/);
    expect(result.findings).toBe(result.keysWithoutTtl.length);
  });
});

/**
 * The counts the model gives at a reproduction's last call, and the counts
 * the layout answers when the reproduction is replayed on a fresh light.
 */
async function replayedCounts(layout: Layout, windowSeconds: number, calls: readonly ReproCall[]) {
  const model = new SlidingWindowModel(windowSeconds, layout.windowSemantics, layout.capabilities.maxWindowSeconds ?? Number.POSITIVE_INFINITY);
  for (const c of calls) if (c.op !== 'read') model.record(c.at, c.op);
  const last = calls.at(-1) as ReproCall;
  const expected = model.count(Math.floor(last.at));
  const light = { name: uniqueName('verify-own-values') };
  await installScripts(redis, layout.scripts);
  const replies = await execPipeline(
    redis,
    calls.map((c) => {
      const options = { at: c.at, windowSeconds };
      if (c.op === 'read') return layout.getMetrics(light, options);
      if (c.op === 'success') return layout.recordSuccess(light, options);
      return layout.recordFailure(light, { ...options, errorJson: verifyErrorJson(c.at, layout.stampPrecision ?? 'seconds') });
    }),
  );
  const [err, reply] = replies.at(-1) ?? [null, null];
  if (err) throw err;
  const snapshot = last.op === 'read' ? layout.parseMetrics(reply) : layout.parseFailure(reply);
  return { expected, actual: { successes: snapshot?.successes, failures: snapshot?.failures } };
}

describe('a shrunk reproduction shows its own expected and actual values, not those of the longer original', () => {
  it.each([
    ['stoplight-v6', 'stoplight-v6/get_metrics.lua', 'second - window)', 'second - window - 1)'],
    ['stoplight-v5', 'stoplight-v5/get_metrics.lua', 'local window_start = now - window', 'local window_start = now - window + 1'],
  ] as const)('%s with an off-by-one window boundary', async (name, file, find, replace) => {
    const dir = plantBug(file, find, replace);
    const layout = createLayout(name, { scriptsDir: dir });
    const result = await verifyLayout(where, layout, { trustScripts: true, seed: 7, calls: 8000 });
    expect(result.disagreements.length).toBeGreaterThan(0);
    for (const d of result.disagreements) {
      expect(d.reproduction.length).toBeLessThan(d.originalLength);
      const { expected, actual } = await replayedCounts(layout, d.windowSeconds, d.reproduction);
      expect({ successes: d.expected.successes, failures: d.expected.failures }).toEqual(expected);
      expect({ successes: d.actual.successes, failures: d.actual.failures }).toEqual(actual);
      expect(d.op).toBe(d.reproduction.at(-1)?.op);
      // Still a disagreement on its own values.
      expect(d.fields.length).toBeGreaterThan(0);
      for (const f of d.fields) expect(d.expected[f]).not.toBe(d.actual[f]);
    }
  });
});

describe('stoplight-v6-upstream: 6.0 with its eviction exactly as upstream writes it', () => {
  it('has the keys of stoplight-v6, and only its name and its subtraction differ', () => {
    const light = { name: 'checkout' };
    const upstream = createLayout('stoplight-v6-upstream');
    const guarded = createLayout('stoplight-v6');
    expect(upstream.name).toBe('stoplight-v6-upstream');
    expect(upstream.keysOf(light, 0, 0)).toEqual(guarded.keysOf(light, 0, 0));
    expect(upstream.scripts.map((s) => s.source.includes("redis.call('HINCRBY', metrics_key, field, -count)\nend"))).toEqual([true, true, true]);
  });

  it('on Redis 7.0 fails with the "-0" rejection named where stoplight-v6 passes, the same traffic; on 7.2+ both pass', async () => {
    await withPrivateServer({}, async (_server, own) => {
      const version = /redis_version:(\S+)/.exec(await own.info('server'))?.[1] ?? '';
      const options = { seed: 3, calls: 3000, monitorRejected: true };
      const guarded = await verifyLayout(own, createLayout('stoplight-v6'), options);
      const upstream = await verifyLayout(own, createLayout('stoplight-v6-upstream'), options);
      expect(guarded.findings).toBe(0);
      // The traffic evicts buckets, some of them holding no failure (or no success).
      expect(guarded.largestEviction).toBeGreaterThan(0);
      if (version.startsWith('7.0.')) {
        expect(upstream.lightsWithErrors).toBeGreaterThan(0);
        expect(upstream.disagreements).toEqual([]);
        for (const e of upstream.scriptErrors) {
          expect(e.rejected).toMatch(/^HINCRBY "[^"]*window_metrics" "total_(successes|failures)" "-0"$/);
          expect(namedRejection(e.error, e.rejected)?.id).toBe('negative-zero');
        }
      } else {
        expect(upstream.findings).toBe(0);
      }
    });
  });
});
