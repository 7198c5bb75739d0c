import { describe, expect, it } from 'vitest';
import { compareWithDesigns, suggestWithClients } from '../../../src/bench/client-suggest.js';
import type { ClientReport } from '../../../src/bench/client-run.js';
import type { ClientResult } from '../../../src/bench/client-bench.js';
import { installClock } from '../../../src/clients/clock.js';
import { loadPackage } from '../../../src/clients/load.js';
import { fixedWindowModel } from '../../../src/clients/models/fixed-window.js';
import { CLIENT_NAMES, parseClients } from '../../../src/clients/names.js';
import { CLIENTS } from '../../../src/clients/registry.js';
import { boundaryBurst, steadyTraffic } from '../../../src/clients/traffic.js';
import { EnvironmentError, UsageError } from '../../../src/core/errors.js';
import { clientAccuracy } from '../../../src/measure/client-accuracy.js';
import type { CellResult } from '../../../src/measure/types.js';
import { runInProcess } from '../in-process.js';

describe('the fixed-window model', () => {
  it('opens a window at the first decision after the last one expired, counts refusals too, and keeps a key until its expiry has passed', () => {
    const model = fixedWindowModel({ prefix: 'p:', limit: 2, windowMs: 1000 });
    expect([0, 10, 20].map((t) => model.decide('a', t))).toEqual([true, true, false]);
    expect(model.edges?.('a')).toEqual([1000]);
    // At exactly start + window Redis still holds the key (it expires once now > expiry).
    expect(model.decide('a', 1000)).toBe(false);
    expect(model.decide('a', 1001)).toBe(true);
    expect(model.edges?.('a')).toEqual([2001]);
    // Another client has a window of its own.
    expect(model.decide('b', 1001)).toBe(true);
  });
});

describe('accuracy against an exact sliding window', () => {
  it('counts the most allowed in any window, what is over the limit, over-admissions and lockouts', () => {
    const limit = 2;
    const windowMs = 1000;
    const decisions = [
      { id: 'a', atMs: 0, allowed: true },
      { id: 'a', atMs: 900, allowed: true },
      // A fixed window reopening at 1001 lets two more through while 900 is still within the sliding window.
      { id: 'a', atMs: 1001, allowed: true },
      { id: 'a', atMs: 1002, allowed: true },
      // Refused with only one allowed in (1500 - 1000, 1500]: a lockout.
      { id: 'b', atMs: 0, allowed: true },
      { id: 'b', atMs: 1500, allowed: false },
    ];
    const a = clientAccuracy(decisions, limit, windowMs);
    expect(a).toMatchObject({ sent: 6, allowed: 5, maxInWindow: 3, overLimit: 1, overAdmitted: 1, lockouts: 1 });
    // The exact window allows a at 0, 900 and 1001 (0 left the window), refuses a at 1002, allows both of b's.
    expect(a.exactAllowed).toBe(5);
    expect(a.mismatchFraction).toBeCloseTo(2 / 6);
  });
});

describe('client traffic', () => {
  it('sends a steady count per window per client, and a burst of twice the limit across a boundary', () => {
    const steady = steadyTraffic('s', 2, 5, 1000, 3);
    expect(steady).toHaveLength(30);
    expect(new Set(steady.map((e) => e.id))).toEqual(new Set(['s-0000', 's-0001']));
    expect(steady.every((e) => e.atMs < 3000)).toBe(true);
    const burst = boundaryBurst('b', 4, 1000);
    expect(burst).toHaveLength(9);
    expect(burst.filter((e) => e.atMs > 0 && e.atMs < 1000)).toHaveLength(4);
    expect(burst.filter((e) => e.atMs > 1000)).toHaveLength(4);
  });
});

describe('the injected clock', () => {
  it('drives Date.now, performance.now and process.hrtime, and restores them', () => {
    const saved = [Date.now, performance.now, process.hrtime];
    const clock = { nowMs: 1_000_000 };
    const restore = installClock(clock);
    try {
      clock.nowMs += 1500;
      expect(Date.now()).toBe(1_001_500);
      expect(performance.now()).toBe(1500);
      expect(Number(process.hrtime.bigint())).toBe(1_001_500 * 1e6);
      expect(process.hrtime()[0]).toBe(1001);
    } finally {
      restore();
    }
    expect([Date.now, performance.now, process.hrtime]).toEqual(saved);
  });
});

describe('--client names and packages', () => {
  it('takes every registered name, a package name, or all; refuses others naming the accepted ones', () => {
    expect([...CLIENT_NAMES]).toEqual(CLIENTS.map((c) => c.name));
    expect(parseClients('all')).toEqual([...CLIENT_NAMES]);
    expect(parseClients('@fastify/rate-limit', ['ratelimiter'])).toEqual(['ratelimiter', 'fastify-rate-limit']);
    expect(() => parseClients('express')).toThrow(UsageError);
    expect(() => parseClients('express')).toThrow(/one of rate-limiter-flexible, .* or all, got "express"/);
  });

  it('names npm install for a package that is not installed', () => {
    expect(() => loadPackage('swc-no-such-package', process.cwd())).toThrow(EnvironmentError);
    expect(() => loadPackage('swc-no-such-package', process.cwd())).toThrow(/npm install swc-no-such-package/);
    expect(loadPackage('rate-limit-redis', process.cwd()).version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('bench --client with a name it does not know: exit 2, one line', async () => {
    const r = await runInProcess(['bench', '--client', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--client');
  });

  it('bench --client with flags it cannot take: exit 2 naming both', async () => {
    const r = await runInProcess(['bench', '--client', 'ratelimiter', '--window', '1,2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--client/--window');
  });
});

describe('packages beside the designs', () => {
  const accuracy = (sent: number, mismatch: number, over: number) => ({
    sent,
    allowed: sent,
    exactAllowed: sent,
    maxInWindow: 10 + over,
    overLimit: over,
    overAdmitted: over,
    lockouts: 0,
    mismatchFraction: mismatch,
  });
  const client = (packageName: string, bytes: number, mismatch: number): ClientResult =>
    ({
      client: packageName,
      packageName,
      version: '1.0.0',
      algorithm: 'fixed-window',
      clock: { kind: 'injected', source: 'Date.now' },
      windowSeconds: 60,
      rate: 10,
      limit: 10,
      memory: { atRate: { bytesPerClient: bytes, clients: 1 }, atMultiple: { bytesPerClient: bytes, multiple: 4 }, growsWithTraffic: false },
      accuracy: { steady: accuracy(10, 0, 0), overload: accuracy(10, mismatch, 0), burst: accuracy(10, mismatch, mismatch > 0 ? 9 : 0) },
    }) as unknown as ClientResult;
  const design = (layout: string, bytes: number): CellResult =>
    ({
      layout,
      windowSeconds: 60,
      rate: 10,
      memory: { bytesPerLight: bytes, usedMemoryDeltaPerLight: 0, keys: [], lights: 1 },
      accuracy: { reads: 100, maxAbsError: 0, meanAbsError: 0, threshold: 0.5, decisionMismatchFraction: 0 },
    }) as unknown as CellResult;
  const report = {
    results: [design('ring', 800), design('sliding-log', 4000)],
    clients: [client('exact-pkg', 400, 0), client('loose-pkg', 72, 0.3)],
  } as unknown as ClientReport;

  it('compares each package with every design at its window and rate', () => {
    const [first] = compareWithDesigns(report);
    expect(first?.designs.map((d) => [d.layout, d.ratio])).toEqual([
      ['ring', 0.5],
      ['sliding-log', 0.1],
    ]);
  });

  it('--suggest ranks packages and designs under one rule', () => {
    const [s] = suggestWithClients(report, { layouts: ['ring', 'sliding-log'] });
    const order = s?.ranking.map((r) => r.layout);
    // exact first by bytes; the package deciding otherwise on 30% of the decisions comes after every exact one.
    expect(order).toEqual(['exact-pkg@1.0.0', 'ring', 'sliding-log', 'loose-pkg@1.0.0']);
    expect(s?.pick).toBe('exact-pkg@1.0.0');
  });
});
