import { describe, expect, it } from 'vitest';
import { adviseSweep, combinationsOf, parseSweep, summarize, type SweepRun } from '../../../src/bench/sweep.js';
import type { BenchReport, CellResult, KeyMemory } from '../../../src/measure/types.js';

describe('parseSweep', () => {
  it('reads a setting and whole numbers, dropping repeats, keeping the order given', () => {
    expect(parseSweep('hash-max-listpack-value=256,64,256')).toEqual({
      setting: 'hash-max-listpack-value',
      canonical: 'hash-max-listpack-value',
      values: [256, 64],
    });
    expect(parseSweep('HASH-MAX-ZIPLIST-ENTRIES=128')).toEqual({ setting: 'hash-max-ziplist-entries', canonical: 'hash-max-listpack-entries', values: [128] });
    expect(parseSweep('list-max-listpack-size=-2,-1,128').values).toEqual([-2, -1, 128]);
  });

  it.each([
    ['maxmemory=1', /maxmemory is not a listpack/],
    ['hash-max-listpack-value=', /expected a comma-separated list/],
    ['hash-max-listpack-value=6e1', /takes whole numbers/],
    ['hash-max-listpack-value=1000001', /takes whole numbers from 0 to 1,000,000/],
    ['list-max-listpack-size=0', /-5 to -1/],
    ['=64', /expected <setting>=<v1>,<v2>/],
  ])('%s is refused', (text, message) => {
    expect(() => parseSweep(text)).toThrow(message);
  });
});

describe('combinationsOf', () => {
  it('every combination, the first flag varying slowest', () => {
    const combos = combinationsOf([parseSweep('hash-max-listpack-value=64,256'), parseSweep('zset-max-listpack-entries=128,512')]);
    expect(combos.map((c) => c.map((s) => s.value))).toEqual([
      [64, 128],
      [64, 512],
      [256, 128],
      [256, 512],
    ]);
  });

  it('refuses more than 16, a setting twice (by either name), and one also given with --redis-server-arg', () => {
    expect(() => combinationsOf([parseSweep('hash-max-listpack-value=1,2,3,4,5,6,7,8,9'), parseSweep('zset-max-listpack-value=1,2')])).toThrow(
      /9 × 2 = 18 combinations; at most 16/,
    );
    expect(() => combinationsOf([parseSweep('zset-max-listpack-value=1'), parseSweep('zset-max-ziplist-value=2')])).toThrow(/swept twice/);
    expect(() => combinationsOf([parseSweep('zset-max-listpack-value=1')], ['zset-max-ziplist-value=2'])).toThrow(
      /--sweep\/--redis-server-arg: both set zset-max-ziplist-value/,
    );
  });
});

const hashKey = (encoding: string, longestValue: number): KeyMemory => ({
  role: 'metadata',
  key: 'k',
  type: 'hash',
  encoding,
  elements: 7,
  bytes: 0,
  ...(encoding === 'hashtable' ? { longest: { name: { text: 'last_error_json', bytes: 15 }, value: { field: 'last_error_json', bytes: longestValue } } } : {}),
});

function run(value: number, isDefault: boolean, bytes: number, encoding: string): SweepRun {
  const cell: CellResult = {
    layout: 'demo',
    windowSeconds: 300,
    rate: 100,
    durationSeconds: 300,
    eventsInWindow: 30_000,
    events: 30_000,
    memory: { bytesPerLight: bytes, usedMemoryDeltaPerLight: bytes, lights: 1, keys: [hashKey(encoding, 187)] },
  };
  const report: BenchReport = {
    schemaVersion: 3,
    swcVersion: 'test',
    redis: {
      version: '7.0.0',
      memAllocator: 'jemalloc',
      mode: 'standalone',
      private: true,
      config: { 'hash-max-listpack-entries': 512, 'hash-max-listpack-value': value },
    },
    options: {},
    results: [cell],
    startedAt: '',
    elapsedSeconds: 0,
  };
  return { settings: { 'hash-max-listpack-value': value }, default: isDefault, report };
}

describe('summarize and adviseSweep', () => {
  it('a combination 4.1× smaller than the default gets one line naming the key, the field, its length and the limit', () => {
    const runs = [run(64, true, 4100, 'hashtable'), run(128, false, 4000, 'hashtable'), run(256, false, 1000, 'listpack')];
    const summary = summarize(runs);
    expect(summary).toEqual([
      {
        layout: 'demo',
        windowSeconds: 300,
        rate: 100,
        bytesPerLight: [4100, 4000, 1000],
        expanded: [true, true, false],
        smallest: 2,
        defaultOverSmallest: 4.1,
      },
    ]);
    const advice = adviseSweep(runs, summary);
    expect(advice.map((a) => a.text)).toEqual([
      'demo at 5 min, 100/s: 4.1× smaller with hash-max-listpack-value=256 — its hash `metadata` is a hashtable at the default because field `last_error_json` (187 bytes) is longer than hash-max-listpack-value (64)',
    ]);
  });

  it('no line below 2×; ties go to the default', () => {
    const runs = [run(64, true, 1999, 'hashtable'), run(256, false, 1000, 'listpack')];
    expect(adviseSweep(runs, summarize(runs))).toEqual([]);
    const tied = [run(128, false, 1000, 'hashtable'), run(64, true, 1002, 'hashtable')];
    expect(summarize(tied)[0]).toMatchObject({ smallest: 1 });
    // 5.x on separate servers: a 0.5% (or 1.9%) saving is noise, not a setting to recommend; 2.5% is a saving.
    for (const bytes of [995, 981])
      expect(summarize([run(64, true, 1000, 'hashtable'), run(128, false, bytes, 'hashtable')])[0]).toMatchObject({ smallest: 0 });
    expect(summarize([run(64, true, 1000, 'hashtable'), run(128, false, 975, 'hashtable')])[0]).toMatchObject({ smallest: 1 });
  });
});
