import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadReport, parseReport } from '../../../src/compare/load.js';
import { SCHEMA_VERSION } from '../../../src/core/schema-version.js';

// The shipped baseline as it was at schemaVersion 1, kept to prove old results still load.
const BASELINE = 'test/unit/compare/small-v1.json';

describe('results of schemaVersion 1', () => {
  it("load in today's shape: version, key roles and durations renamed, bytes as written", () => {
    const raw = JSON.parse(readFileSync(BASELINE, 'utf8')) as {
      schemaVersion: number;
      wallSeconds: number;
      results: { memory: { bytesPerLight: number; keys: { role: string }[] } }[];
    };
    expect(raw.schemaVersion).toBe(1);
    const report = loadReport(BASELINE);
    expect(report.schemaVersion).toBe(SCHEMA_VERSION);
    expect(report.measuringSeconds).toBe(raw.wallSeconds);
    expect(report).not.toHaveProperty('wallSeconds');
    expect(report.results.map((r) => r.memory.bytesPerLight)).toEqual(raw.results.map((r) => r.memory.bytesPerLight));
    const roles = new Set(report.results.flatMap((r) => r.memory.keys.map((k) => k.role)));
    expect([...roles].sort()).toEqual(['failure events', 'index', 'metadata', 'metrics', 'success events']);
    // The file itself is not touched: a copy is upgraded.
    expect(raw.results.some((r) => r.memory.keys.some((k) => k.role === 'bucket index'))).toBe(true);
  });

  it('move Unix-second moments to ISO 8601 and unitless durations and shares to suffixed names', () => {
    const stats = { opsPerSec: 100, p50Ms: 1, p99Ms: 2, p999Ms: 3, meanMs: 1, ops: 100, seconds: 1, serverUsecPerCall: 5 };
    const spread = { median: 1, min: 1, max: 1, spread: 0, noisy: false };
    const v1 = {
      schemaVersion: 1,
      swcVersion: '0.1.0',
      redis: { version: '7.0.15', memAllocator: 'jemalloc-5.3.0' },
      results: [
        {
          layout: 'stoplight-v6',
          windowSeconds: 60,
          rate: 1,
          memory: { bytesPerLight: 100, usedMemoryDeltaPerLight: 100, keys: [], lights: 1 },
          throughput: {
            write: { ...stats, rounds: { count: 1, opsPerSec: spread } },
            read: stats,
            request: stats,
            connections: 1,
            pipeline: 1,
            clockEndAt: 1_764_450_018,
          },
          realtime: { shortfall: 0.25, seconds: 4, startedAt: 1_764_450_000.5, endedAt: 1_764_450_004 },
          accuracy: { seconds: 2, decisionMismatchShare: 0.1 },
        },
      ],
    };
    const cell = parseReport('v1.json', v1).results[0]!;
    expect(cell.throughput?.write).toMatchObject({ durationSeconds: 1, rounds: { opsPerSec: { spreadFraction: 0 } } });
    expect(cell.throughput?.write).not.toHaveProperty('seconds');
    expect(cell.throughput?.clockEndAt).toBe('2025-11-29T21:00:18Z');
    expect(cell.realtime).toMatchObject({ shortfallFraction: 0.25, durationSeconds: 4, startedAt: '2025-11-29T21:00:00.5Z', endedAt: '2025-11-29T21:00:04Z' });
    expect(cell.accuracy).toMatchObject({ durationSeconds: 2, decisionMismatchFraction: 0.1 });
  });

  it('other versions are refused, naming the ones this swc reads', () => {
    expect(() => parseReport('v2.json', { schemaVersion: 2, results: [] })).toThrow(
      /v2\.json: schemaVersion 2 is not supported: this swc reads schemaVersion 1 or 3/,
    );
  });
});
