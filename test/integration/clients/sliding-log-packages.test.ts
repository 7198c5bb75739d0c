import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClockedEnvironment, MicrosecondSource } from '../../../src/clients/micro-clock.js';
import { driveMicroseconds } from '../../../src/clients/micro-clock.js';
import {
  EXACT_SLIDING_LOG,
  RATELIMITER_DEVIATION,
  ROLLING_RATE_LIMITER_DEVIATION,
  SLIDING_LOG_REPRODUCTIONS,
  slidingLogModelWith,
  type SlidingLogDeviation,
} from '../../../src/clients/models/sliding-log.js';
import { ratelimiter } from '../../../src/clients/ratelimiter.js';
import { requirePackage } from '../../../src/clients/require-package.js';
import { rollingRateLimiter } from '../../../src/clients/rolling-rate-limiter.js';
import { ttlBoundMs } from '../../../src/clients/ttl.js';
import type { ClientAdapter, ClientSettings } from '../../../src/clients/types.js';
import { EnvironmentError, UsageError } from '../../../src/core/errors.js';
import { measureKeys } from '../../../src/measure/memory.js';
import { createRng } from '../../../src/traffic/random.js';
import { largestInAnyWindow } from '../../clients.js';
import { digest, testRedis, uniqueName } from '../../helpers.js';

/** The project's own node_modules holds both packages (devDependencies). */
const PROJECT = process.cwd();
/** 2025-11-29T21:00:00Z in ms: the run's clock starts here. */
const T0 = 1_764_450_000_000;
const LIMIT = 10;
/** A minute of the run's clock: no key expires (on the server's real clock) while a test runs. */
const WINDOW_MS = 60_000;

/** What each package is, as its adapter and docs state it. */
interface PackageCase {
  readonly adapter: ClientAdapter;
  readonly deviation: SlidingLogDeviation;
  /** The one key the package writes for client `id` under `prefix`. */
  keyOf(prefix: string, id: string): string;
  /** A member shaped like the package's: the timestamp itself (ratelimiter) or a random UUID (rolling-rate-limiter). */
  memberLike(us: number): string;
}

const CASES: readonly PackageCase[] = [
  { adapter: ratelimiter, deviation: RATELIMITER_DEVIATION, keyOf: (prefix, id) => `${prefix}limit:${id}`, memberLike: (us) => String(us) },
  { adapter: rollingRateLimiter, deviation: ROLLING_RATE_LIMITER_DEVIATION, keyOf: (prefix, id) => `${prefix}${id}`, memberLike: () => randomUUID() },
];

/** One request of the traffic: a client and a time on the run's clock (ms after T0). */
interface Request {
  readonly id: string;
  readonly at: number;
}

const evenly = (id: string, count: number, gapMs: number, fromMs = 0): Request[] => Array.from({ length: count }, (_, i) => ({ id, at: fromMs + i * gapMs }));

/** The three traffic shapes, over three windows, one client each. */
const TRAFFIC = {
  /** Half the limit per window. */
  steady: evenly('steady', (3 * LIMIT) / 2, (2 * WINDOW_MS) / LIMIT),
  /** Twice the limit per window. */
  overload: evenly('overload', 6 * LIMIT, WINDOW_MS / (2 * LIMIT)),
  /** `limit` requests 1 ms apart, then 2 × `limit` 1 ms apart straddling the instant the first ones leave the window. */
  boundary: [...evenly('boundary', LIMIT, 1), ...evenly('boundary', 2 * LIMIT, 1, WINDOW_MS - LIMIT)],
} as const;

/** What one run through a package gave: per client, its decisions, and the model's for the same times. */
interface Driven {
  readonly prefix: string;
  readonly version: string;
  readonly decisions: Map<string, boolean[]>;
  readonly modelled: Map<string, boolean[]>;
  /** Entries the model's log holds per client at the end (what the package's sorted set should hold). */
  readonly logged: Map<string, number>;
}

/** Sends `requests` (in time order) through the package with the run's clock set to each one's time, beside the model with the package's deviation. */
async function drive(
  redis: Redis,
  c: PackageCase,
  requests: readonly Request[],
  limits: { limit: number; windowMs: number } = { limit: LIMIT, windowMs: WINDOW_MS },
): Promise<Driven> {
  const clock = { nowMs: T0 };
  const full: ClientSettings = { prefix: `${uniqueName('swc-client')}:`, ...limits };
  const env: ClockedEnvironment = { redis, connect: () => Promise.reject(new Error('not used')), requireFrom: PROJECT, clock };
  const { version, limiter } = await c.adapter.open(env, full);
  const model = slidingLogModelWith(c.deviation)(full);
  const decisions = new Map<string, boolean[]>();
  const modelled = new Map<string, boolean[]>();
  const push = (m: Map<string, boolean[]>, id: string, v: boolean): void => void m.set(id, [...(m.get(id) ?? []), v]);
  try {
    for (const r of [...requests].sort((a, b) => a.at - b.at)) {
      clock.nowMs = T0 + r.at;
      push(decisions, r.id, await limiter.decide(r.id));
      push(modelled, r.id, model.decide(r.id, T0 + r.at));
    }
  } finally {
    await limiter.close();
  }
  const logged = new Map([...decisions.keys()].map((id) => [id, model.logged(id)]));
  return { prefix: full.prefix, version, decisions, modelled, logged };
}

const allowedCount = (decisions: readonly boolean[] | undefined): number => (decisions ?? []).filter(Boolean).length;
const allowedTimes = (requests: readonly Request[], decisions: readonly boolean[]): number[] => requests.filter((_, i) => decisions[i]).map((r) => r.at);

/** MEMORY USAGE of a sorted set the test writes itself: `entries` entries shaped like the package's, under a name as long as `like`. */
async function referenceBytes(redis: Redis, c: PackageCase, like: string, entries: number): Promise<number> {
  const key = `${uniqueName('ref')}`.padEnd(like.length, 'x').slice(0, like.length);
  const args = Array.from({ length: entries }, (_, i) => T0 * 1000 + i).flatMap((us) => [us, c.memberLike(us)]);
  if (entries > 0) await redis.zadd(key, ...args);
  const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  await redis.del(key);
  return bytes;
}

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

describe.each(CASES)('$adapter.name, driven through its own calls', (c) => {
  const requests = [...TRAFFIC.steady, ...TRAFFIC.overload, ...TRAFFIC.boundary];
  let run: Driven;
  let outside: Record<string, string>;
  beforeAll(async () => {
    const before = await digest(redis, '*');
    run = await drive(redis, c, requests);
    const after = await digest(redis, '*');
    outside = Object.fromEntries(Object.entries(after).filter(([key]) => !key.startsWith(run.prefix)));
    expect(outside).toEqual(before);
  });
  afterAll(async () => {
    const keys = Object.keys(await digest(redis, `${run.prefix}*`));
    if (keys.length > 0) await redis.del(...keys);
  });

  it('decides every request as its declared sliding-log model does, counting the requests sent and allowed', () => {
    expect(run.decisions).toEqual(run.modelled);
    // Steady traffic below the limit: everything sent is allowed.
    expect(run.decisions.get('steady')).toHaveLength(15);
    expect(allowedCount(run.decisions.get('steady'))).toBe(15);
    // Twice the limit: the denied requests count too, so only the first window's `limit` get through, ever.
    expect(run.decisions.get('overload')).toHaveLength(6 * LIMIT);
    expect(allowedCount(run.decisions.get('overload'))).toBe(LIMIT);
    // The boundary burst: the second burst finds the log full of its own denied requests, so none of it gets through.
    expect(run.decisions.get('boundary')).toHaveLength(3 * LIMIT);
    expect(allowedCount(run.decisions.get('boundary'))).toBe(LIMIT);
  });

  it('never allows more than the limit in any window, and locks out where the exact sliding log would let the limit through', () => {
    for (const [id, traffic] of Object.entries(TRAFFIC)) {
      expect(largestInAnyWindow(allowedTimes(traffic, run.decisions.get(id) ?? []), WINDOW_MS)).toBeLessThanOrEqual(LIMIT);
    }
    const exact = slidingLogModelWith(EXACT_SLIDING_LOG)({ prefix: '', limit: LIMIT, windowMs: WINDOW_MS });
    const exactAllowed = new Map<string, number>();
    for (const r of [...requests].sort((a, b) => a.at - b.at)) exactAllowed.set(r.id, (exactAllowed.get(r.id) ?? 0) + (exact.decide(r.id, T0 + r.at) ? 1 : 0));
    expect(Object.fromEntries(exactAllowed)).toEqual({ steady: 15, overload: 3 * LIMIT, boundary: 2 * LIMIT });
  });

  it('writes one sorted set per client under the run prefix, each as large as the entries the model keeps', async () => {
    const keys = Object.keys(await digest(redis, `${run.prefix}*`)).sort();
    expect(keys).toEqual(['boundary', 'overload', 'steady'].map((id) => c.keyOf(run.prefix, id)).sort());
    const measured = await measureKeys(
      redis,
      keys.map((key) => ({ key, role: 'log' })),
    );
    const bytes = new Map<string, number>();
    for (const id of ['steady', 'overload', 'boundary']) {
      const key = c.keyOf(run.prefix, id);
      const entries = run.logged.get(id) ?? -1;
      expect(await redis.type(key)).toBe('zset');
      expect(await redis.zcard(key)).toBe(entries);
      const usage = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      expect(measured.find((m) => m.key === key)?.bytes).toBe(usage);
      expect(usage).toBe(await referenceBytes(redis, c, key, entries));
      bytes.set(id, usage);
    }
    // Memory per client grows with the entries kept: the overloaded client's set is the larger.
    expect(bytes.get('steady')).toBeLessThan(bytes.get('overload') ?? 0);
    // The steady client keeps half the limit; under overload the log keeps every request of the window
    // (twice the limit) unless the package trims it to the limit.
    expect(run.logged.get('steady')).toBe(LIMIT / 2);
    expect(run.logged.get('overload')).toBe(c.deviation.keepsAtMostLimit ? LIMIT : 2 * LIMIT);
  });

  it("stamps entries with the run's clock, in microseconds", async () => {
    const scores = (await redis.zrange(c.keyOf(run.prefix, 'steady'), 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    const expected = TRAFFIC.steady.map((r) => (T0 + r.at) * 1000).slice(-scores.length);
    expect(scores).toEqual(expected);
  });

  it('gives every key a TTL no longer than the window plus its stated slack', async () => {
    for (const key of Object.keys(await digest(redis, `${run.prefix}*`))) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(ttlBoundMs(c.adapter, WINDOW_MS));
    }
  });
});

describe.each(CASES)('$adapter.name, on seeded random traffic', (c) => {
  it('decides as its model on requests that fall exactly a window apart, a microsecond either side, or at one instant', async () => {
    const rng = createRng(49);
    // Times on a grid of eighths of the window (eight steps: exactly one window), nudged by 0 or 1 µs.
    const requests = Array.from({ length: 80 }, () => ({ id: `c${rng.int(2)}`, at: (rng.int(25) * WINDOW_MS) / 8 + rng.int(2) / 1000 }));
    const run = await drive(redis, c, requests);
    const keys = Object.keys(await digest(redis, `${run.prefix}*`));
    if (keys.length > 0) await redis.del(...keys);
    expect(run.decisions).toEqual(run.modelled);
    // The traffic is neither all allowed nor all denied.
    const all = [...run.decisions.values()].flat();
    expect(all.filter(Boolean).length).toBeGreaterThan(0);
    expect(all.filter((d) => !d).length).toBeGreaterThan(0);
  });
});

describe.each(CASES)('$adapter.name: its declared deviations at their smallest', (c) => {
  it.each(SLIDING_LOG_REPRODUCTIONS[c.adapter.packageName] ?? [])('$says', async (repro) => {
    const run = await drive(
      redis,
      c,
      repro.atMs.map((at) => ({ id: 'c', at })),
      repro,
    );
    const keys = Object.keys(await digest(redis, `${run.prefix}*`));
    if (keys.length > 0) await redis.del(...keys);
    expect(run.decisions.get('c')).toEqual(repro.allowed);
    expect(run.modelled.get('c')).toEqual(repro.allowed);
    const exact = slidingLogModelWith(EXACT_SLIDING_LOG)({ prefix: '', ...repro });
    expect(repro.atMs.map((at) => exact.decide('c', T0 + at))).toEqual(repro.exactAllowed);
  });
});

describe('the TTL each package sets, read as the expiry instant against the server clock around the call', () => {
  const serverMs = async (): Promise<number> => {
    const [s, us] = await redis.time();
    return Number(s) * 1000 + Number(us) / 1000;
  };
  const windowMs = 1500;
  it.each([
    // ratelimiter: PEXPIRE <window ms>.
    [CASES[0] as PackageCase, windowMs],
    // rolling-rate-limiter: EXPIRE <window rounded up to whole seconds>.
    [CASES[1] as PackageCase, 2000],
  ])('$adapter.name', async (c, ttlMs) => {
    const prefix = `${uniqueName('swc-client')}:`;
    const { limiter } = await c.adapter.open(
      { redis, connect: () => Promise.reject(new Error('not used')), requireFrom: PROJECT },
      { prefix, limit: LIMIT, windowMs },
    );
    const before = await serverMs();
    try {
      expect(await limiter.decide('c')).toBe(true);
    } finally {
      await limiter.close();
    }
    const after = await serverMs();
    const expiresAt = Number(await redis.call('PEXPIRETIME', c.keyOf(prefix, 'c')));
    await redis.del(c.keyOf(prefix, 'c'));
    // The expiry was set at a server instant between `before` and `after`.
    expect(expiresAt - after).toBeLessThanOrEqual(ttlMs);
    expect(expiresAt - before).toBeGreaterThanOrEqual(ttlMs - 1);
    expect(ttlMs).toBeLessThanOrEqual(ttlBoundMs(c.adapter, windowMs));
  });
});

describe('deviations beyond the shared traffic', () => {
  it('ratelimiter: requests in the same microsecond are one entry, so a burst at one instant is all allowed', async () => {
    const c = CASES[0] as PackageCase;
    const run = await drive(redis, c, evenly('instant', 3 * LIMIT, 0));
    expect(run.decisions).toEqual(run.modelled);
    expect(allowedCount(run.decisions.get('instant'))).toBe(3 * LIMIT);
    expect(await redis.zcard(c.keyOf(run.prefix, 'instant'))).toBe(1);
    await redis.del(c.keyOf(run.prefix, 'instant'));
  });

  it('rolling-rate-limiter: requests in the same microsecond are entries of their own, so the burst stops at the limit', async () => {
    const c = CASES[1] as PackageCase;
    const run = await drive(redis, c, evenly('instant', 3 * LIMIT, 0));
    expect(run.decisions).toEqual(run.modelled);
    expect(allowedCount(run.decisions.get('instant'))).toBe(LIMIT);
    expect(await redis.zcard(c.keyOf(run.prefix, 'instant'))).toBe(3 * LIMIT);
    await redis.del(c.keyOf(run.prefix, 'instant'));
  });

  it("rolling-rate-limiter's minDifference (left unset by the adapter) is the model's: a request too close to the one logged before is denied, and logged", async () => {
    const loaded = requirePackage(PROJECT, 'rolling-rate-limiter');
    const { RedisRateLimiter } = loaded.exports as {
      RedisRateLimiter: new (o: object) => { limit(id: string): Promise<boolean> };
    };
    const namespace = `${uniqueName('swc-client')}:`;
    const settings = { prefix: namespace, limit: LIMIT, windowMs: WINDOW_MS };
    const own = new RedisRateLimiter({ client: redis, namespace, interval: WINDOW_MS, maxInInterval: LIMIT, minDifference: 100 });
    const clock = { nowMs: T0 };
    const restore = driveMicroseconds(loaded.requireInside('microtime') as MicrosecondSource, clock);
    const model = slidingLogModelWith({ ...ROLLING_RATE_LIMITER_DEVIATION, minDifferenceMs: 100 })(settings);
    const gaps = [0, 150, 50, 60, 100, 99, 101, 250];
    const decisions: boolean[] = [];
    const modelled: boolean[] = [];
    try {
      for (const gap of gaps) {
        clock.nowMs += gap;
        decisions.push(!(await own.limit('c')));
        modelled.push(model.decide('c', clock.nowMs));
      }
    } finally {
      restore();
    }
    await redis.del(`${namespace}c`);
    expect(decisions).toEqual(modelled);
    // At 0, 150, 200, 260, 360, 459, 560, 810 ms: the denied one at 200 is logged, so 260 is too close to it.
    expect(decisions).toEqual([true, true, false, false, true, false, true, true]);
  });
});

describe('the clock and the package', () => {
  it.each(CASES)('$adapter.name: closing the limiter gives the package its own clock back', async (c) => {
    const inside = requirePackage(PROJECT, c.adapter.packageName).requireInside;
    const source = inside(c.adapter === ratelimiter ? './microtime.js' : 'microtime') as MicrosecondSource;
    const own = source.now;
    const { limiter } = await c.adapter.open(
      { redis, connect: () => Promise.reject(new Error('not used')), requireFrom: PROJECT, clock: { nowMs: T0 } } as ClockedEnvironment,
      { prefix: `${uniqueName('swc-client')}:`, limit: LIMIT, windowMs: WINDOW_MS },
    );
    expect(source.now()).toBe(T0 * 1000);
    await limiter.close();
    expect(source.now).toBe(own);
  });

  it.each(CASES)('$adapter.name: given no clock, follows the process clock as a run replaces it (Date.now and process.hrtime)', async (c) => {
    const prefix = `${uniqueName('swc-client')}:`;
    vi.useFakeTimers({ toFake: ['Date', 'hrtime'], now: T0 });
    try {
      const { limiter } = await c.adapter.open(
        { redis, connect: () => Promise.reject(new Error('not used')), requireFrom: PROJECT },
        { prefix, limit: LIMIT, windowMs: WINDOW_MS },
      );
      try {
        for (const stepMs of [0, 2.5, 1000]) {
          vi.advanceTimersByTime(stepMs);
          await limiter.decide('c');
        }
      } finally {
        await limiter.close();
      }
    } finally {
      vi.useRealTimers();
    }
    const key = c.keyOf(prefix, 'c');
    const scores = (await redis.zrange(key, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    await redis.del(key);
    expect(scores).toEqual([T0 * 1000, T0 * 1000 + 2500, T0 * 1000 + 1_002_500]);
  });

  it.each(CASES)('$adapter.name: not installed where the run loads it from, an environment error naming the install command', async (c) => {
    const empty = mkdtempSync(path.join(tmpdir(), 'swc-no-packages-'));
    try {
      const opening = c.adapter.open(
        { redis, connect: () => Promise.reject(new Error('not used')), requireFrom: empty },
        { prefix: 'x:', limit: 1, windowMs: 1000 },
      );
      await expect(opening).rejects.toThrow(EnvironmentError);
      await expect(opening).rejects.toThrow(`npm install ${c.adapter.packageName}`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  // ratelimiter would put its defaults in place of a 0; rolling-rate-limiter would fail its own assertion.
  it.each(CASES)('$adapter.name: a limit or window of 0 is refused as bad input', async (c) => {
    const env = { redis, connect: () => Promise.reject(new Error('not used')), requireFrom: PROJECT };
    await expect(c.adapter.open(env, { prefix: 'x:', limit: 0, windowMs: 1000 })).rejects.toThrow(UsageError);
    await expect(c.adapter.open(env, { prefix: 'x:', limit: 1, windowMs: 0 })).rejects.toThrow(/^--window: /);
  });
});
