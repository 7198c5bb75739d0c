import { describe, expect, it } from 'vitest';
import { isoMoment, unixSecondsOf } from '../../../src/core/format.js';

describe('moments of the JSON contract', () => {
  it('are ISO 8601 in UTC; whole seconds without a fraction, an injected stamp to the microsecond', () => {
    expect(isoMoment(1_764_450_000)).toBe('2025-11-29T21:00:00Z');
    expect(isoMoment(1_764_450_000.5)).toBe('2025-11-29T21:00:00.5Z');
    expect(isoMoment(1_764_450_000.123456)).toBe('2025-11-29T21:00:00.123456Z');
  });

  it('read back to the same Unix seconds (a reproduction replays on another build)', () => {
    for (const at of [1_764_450_000, 1_764_450_000.25, 1_764_450_012.123456, 0.000001]) expect(unixSecondsOf(isoMoment(at))).toBeCloseTo(at, 6);
    expect(unixSecondsOf('2026-12-01T21:00:00.123Z')).toBeCloseTo(Date.parse('2026-12-01T21:00:00.123Z') / 1000, 6);
  });
});
