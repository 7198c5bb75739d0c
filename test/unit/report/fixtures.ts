import type { BucketInspection, EventInspection, KeyInspection, KeysInspection, LightList } from '../../../src/layouts/inspection.js';
import type { OpInstructions } from '../../../src/measure/instructions.js';
import type { BenchReport, CellResult, LatencyStats } from '../../../src/measure/types.js';
import { fixtureRedis, memoryCell } from '../../report-fixtures.js';

/** Fixed results for the renderer snapshots: no Redis, nothing that changes between runs. */

const T = 1_764_450_000;

const LIMITS = { entriesLimit: 128, valueLimit: 64 };

function key(over: Partial<KeyInspection> & Pick<KeyInspection, 'key' | 'role' | 'type'>): KeyInspection {
  return {
    expectedType: over.type,
    wrongType: false,
    encoding: over.type === 'hash' ? 'listpack' : over.type === 'zset' ? 'listpack' : 'int',
    elements: 4,
    bytes: 208,
    bytesExact: true,
    ttlSeconds: 604_800,
    slot: 1234,
    limits:
      over.type === 'hash' || over.type === 'zset'
        ? {
            entriesSetting: `${over.type}-max-listpack-entries`,
            entriesLimit: LIMITS.entriesLimit,
            valueSetting: `${over.type}-max-listpack-value`,
            valueLimit: LIMITS.valueLimit,
            longestBytes: 12,
            longest: 'member',
          }
        : null,
    ...over,
  };
}

export const bucketInspection: BucketInspection = {
  kind: 'buckets',
  layout: 'stoplight-v6',
  light: 'checkout',
  systemId: '37a8eec1ce19',
  lightId: '0e3d1f6d5e0a',
  systemName: 'default',
  lightName: 'checkout',
  keys: [
    key({
      key: 'stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics',
      role: 'metrics',
      type: 'hash',
      elements: 9,
      bytes: 312,
      limits: {
        entriesSetting: 'hash-max-listpack-entries',
        entriesLimit: 128,
        valueSetting: 'hash-max-listpack-value',
        valueLimit: 64,
        longestBytes: 86,
        longest: 'value of last_error_json',
      },
    }),
    key({ key: 'stoplight:v6:37a8eec1ce19:{0e3d1f6d5e0a}:window_metrics:ts_idx', role: 'index', type: 'zset', elements: 3, bytes: 120 }),
  ],
  totals: { successes: 5, failures: 2 },
  storedTotals: { successes: 5, failures: 2 },
  windowTotals: { successes: 4, failures: 1 },
  buckets: [
    { second: T - 70, ageSeconds: 70, successes: 1, failures: 1, stale: true, future: false },
    { second: T - 10, ageSeconds: 10, successes: 3, failures: 0, stale: false, future: false },
    { second: T, ageSeconds: 0, successes: 1, failures: 1, stale: false, future: false },
  ],
  drift: {
    ok: true,
    totalsOk: true,
    bucketSum: { successes: 5, failures: 2 },
    indexWithoutBucket: [],
    bucketWithoutIndex: [],
    badIndexMembers: [],
    unknownFields: [],
  },
  metadata: {
    fields: {
      consecutive_errors: '1',
      last_error_at: String(T),
      last_error_json: `{"error":{"class":"Timeout::Error","message":"execution expired"},"time":${T}}`,
    },
    lastError: { error: { class: 'Timeout::Error', message: 'execution expired' }, time: T },
    lastErrorInvalid: false,
  },
  window: { lengthSeconds: 60, at: T, clock: 'given', fromSecond: T - 59, source: 'given' },
  summary: { errorRate: 0.2, bytes: 432, bytesPerWindowSecond: 7.2, bytesPerEvent: null },
  consistent: true,
  problems: [],
  unavailable: [],
};

/** The same light with drift, and on a server that refused MEMORY. */
export const driftedWithoutBytes: BucketInspection = {
  ...bucketInspection,
  keys: bucketInspection.keys.map((k) => ({ ...k, bytes: null })),
  drift: {
    ok: false,
    totalsOk: false,
    bucketSum: { successes: 5, failures: 2 },
    indexWithoutBucket: [T - 5],
    bucketWithoutIndex: [],
    badIndexMembers: ['bucket:x (score 1)'],
    unknownFields: ['odd\x1bfield'],
  },
  storedTotals: { successes: 6, failures: 2 },
  summary: { errorRate: 0.2, bytes: null, bytesPerWindowSecond: null, bytesPerEvent: null },
  unavailable: ["bytes unavailable: the server refused MEMORY USAGE (ERR unknown command 'MEMORY')"],
};

export const eventInspection: EventInspection = {
  kind: 'events',
  layout: 'stoplight-v5',
  light: 'checkout',
  keys: [
    key({ key: 'stoplight:v5:metadata:checkout', role: 'metadata', type: 'hash', elements: 5, bytes: 480 }),
    key({ key: `stoplight:v5:metrics:checkout:success:${T - 3600}`, role: 'success events', type: 'zset', elements: 2, bytes: 152, ttlSeconds: 86_000 }),
  ],
  totals: { successes: 2, failures: 0 },
  windowTotals: { successes: 1, failures: 0 },
  seconds: [
    { second: T - 3000, ageSeconds: 3000, successes: 1, failures: 0, stale: true },
    { second: T - 30, ageSeconds: 30, successes: 1, failures: 0, stale: false },
  ],
  hours: [
    { key: `stoplight:v5:metrics:checkout:success:${T - 3600}`, outcome: 'success', hour: T - 3600, events: 2, firstSecond: T - 3000, lastSecond: T - 30 },
  ],
  metadata: { fields: { last_success_at: String(T - 30) }, lastError: null, lastErrorInvalid: false },
  recoveredAt: null,
  window: { lengthSeconds: 60, at: T, clock: 'server', fromSecond: T - 60, source: 'given' },
  summary: { errorRate: 0, bytes: 632, bytesPerWindowSecond: null, bytesPerEvent: 316 },
  consistent: true,
  problems: [],
  unavailable: [],
};

export const keysInspection: KeysInspection = {
  kind: 'keys',
  layout: 'my-window',
  light: 'evil\x1b[2J\rname',
  keys: [key({ key: 'rl:{evil\x1b[2J\rname}:success:60', role: 'success counts', type: 'string', elements: 1, bytes: 56, ttlSeconds: 120 })],
  window: { lengthSeconds: null, at: T, clock: 'server', fromSecond: null, source: 'none' },
  totals: null,
  windowTotals: null,
  summary: { errorRate: null, bytes: 56, bytesPerWindowSecond: null, bytesPerEvent: null },
  consistent: true,
  problems: [],
  unavailable: [],
};

const health = { events: null, staleEvents: null, staleBuckets: null, drift: null, partial: false };
const noRate = { windowSuccesses: null, windowFailures: null, failureRate: null };

export const lightList: LightList = {
  lights: [
    {
      layout: 'stoplight-v5',
      light: 'checkout',
      systemId: null,
      reference: 'checkout',
      systemName: null,
      lightName: null,
      name: 'checkout',
      ...noRate,
      keys: 3,
      bytes: 469_811,
      bytesExact: true,
      firstSecond: T - 3000,
      lastSecond: T,
      spanSeconds: 3001,
      idleSeconds: 0,
      events: 4000,
      staleEvents: 120,
      staleBuckets: null,
      drift: null,
      partial: false,
      forecast: { layout: 'stoplight-v6', method: 'measured', bytes: 167_000, events: 4000, heldEvents: 4000, windowSeconds: 600, windowFrom: 'window' },
    },
    {
      layout: 'stoplight-v6',
      light: '0e3d1f6d5e0a',
      systemId: '37a8eec1ce19',
      reference: '37a8eec1ce19/0e3d1f6d5e0a',
      systemName: null,
      lightName: null,
      name: '37a8eec1ce19/0e3d1f6d5e0a',
      ...noRate,
      keys: 2,
      bytes: 9503,
      bytesExact: true,
      firstSecond: T - 166,
      lastSecond: T - 96,
      spanSeconds: 71,
      idleSeconds: 96,
      events: 7,
      staleEvents: 2,
      staleBuckets: 1,
      drift: true,
      partial: false,
      forecast: { layout: 'stoplight-v6', method: 'sampled-out', bytes: null, events: 0, heldEvents: 7, windowSeconds: null, windowFrom: null },
    },
    {
      layout: 'my-window',
      light: 'evil\x1b[2J\rname',
      systemId: null,
      reference: 'evil\x1b[2J\rname',
      systemName: null,
      lightName: null,
      name: 'evil\x1b[2J\rname',
      ...noRate,
      keys: 1,
      bytes: null,
      bytesExact: true,
      firstSecond: null,
      lastSecond: null,
      spanSeconds: 0,
      idleSeconds: null,
      ...health,
    },
  ],
  patterns: ['stoplight:v5:*', 'stoplight:v6:*', 'rl:{*}:success:*'],
  unavailable: [],
  at: T,
  clock: 'given',
  windowSeconds: 600,
  problems: [],
  leftovers: [],
  partial: false,
};

function stats(opsPerSec: number, serverUsecPerCall: number | null): LatencyStats {
  return { opsPerSec, p50Ms: 0.21, p99Ms: 0.52, p999Ms: 1.4, meanMs: 0.25, ops: opsPerSec, durationSeconds: 1, serverUsecPerCall };
}

function cell(layout: string, windowSeconds: number, rate: number, bytesPerLight: number, opsPerSec?: number): CellResult {
  return {
    ...memoryCell(layout, windowSeconds, rate, bytesPerLight),
    memory: {
      bytesPerLight,
      usedMemoryDeltaPerLight: bytesPerLight + 100,
      keys: [
        {
          role: 'metrics',
          key: `k:${layout}`,
          type: 'hash',
          encoding: layout === 'stoplight-v5' ? 'skiplist' : 'listpack',
          elements: 10,
          bytes: bytesPerLight,
        },
      ],
      lights: 1,
    },
    ...(opsPerSec !== undefined
      ? { throughput: { write: stats(opsPerSec, 8.5), read: stats(opsPerSec + 2000, 9.5), request: stats(opsPerSec / 2, 18), connections: 4, pipeline: 1 } }
      : {}),
  };
}

function report(results: CellResult[]): BenchReport {
  return {
    schemaVersion: 3,
    swcVersion: '0.1.0',
    redis: fixtureRedis,
    options: { seed: 1 },
    results,
    startedAt: '2026-01-01T00:00:00.000Z',
    elapsedSeconds: 1.5,
  };
}

/** Two layouts, two cells, memory and throughput. */
export const twoLayouts = report([
  cell('stoplight-v5', 60, 10, 76_186, 20_000),
  cell('stoplight-v6', 60, 10, 11_059, 21_000),
  cell('stoplight-v5', 60, 100, 723_046, 19_000),
  cell('stoplight-v6', 60, 100, 11_059, 19_500),
]);

/** Three layouts, memory only: one ratio column per layout against the first. */
export const threeLayouts = report([cell('stoplight-v5', 300, 10, 363_929), cell('stoplight-v6', 300, 10, 84_787), cell('my-window', 300, 10, 4_096)]);

/** The same run later: at 10/s, v6 grew 5% and lost a third of its throughput against v5. */
export const twoLayoutsLater = report([
  cell('stoplight-v5', 60, 10, 76_186, 20_000),
  cell('stoplight-v6', 60, 10, 11_612, 14_000),
  cell('stoplight-v5', 60, 100, 723_046, 19_000),
  cell('stoplight-v6', 60, 100, 11_059, 19_400),
]);

/** One operation's instruction count `n`, its three repeats spread by the fraction `wide` around it (noisy past 1%). */
export const instructionsOp = (n: number, wide = 0.004): OpInstructions => ({
  instructionsPerCall: n,
  repeats: [n * (1 - wide / 2), n, n * (1 + wide / 2)],
  min: n * (1 - wide / 2),
  max: n * (1 + wide / 2),
  spreadFraction: wide,
  noisy: wide > 0.01,
  calls: 300,
  callsPerOp: 1,
});
