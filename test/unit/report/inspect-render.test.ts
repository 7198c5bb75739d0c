import { describe, expect, it } from 'vitest';
import { isoSecond, sparkline } from '../../../src/report/inspect.js';

describe('sparkline', () => {
  it('draws one column per second up to 60 seconds, blank where nothing happened', () => {
    const line = sparkline(
      [
        { second: 100, events: 8 },
        { second: 102, events: 1 },
        { second: 104, events: 4 },
      ],
      100,
      104,
    );
    expect(line).toBe('█ ▂ ▅');
  });

  it('sums wider windows into at most 60 columns and ignores points outside', () => {
    const points = Array.from({ length: 600 }, (_, i) => ({ second: i, events: 1 }));
    const line = sparkline([...points, { second: 10_000, events: 1_000 }], 0, 599);
    expect([...line]).toHaveLength(60);
    expect(new Set(line)).toEqual(new Set(['█']));
  });
});

describe('isoSecond', () => {
  it('prints a Unix second without milliseconds', () => {
    expect(isoSecond(1_764_450_000)).toBe('2025-11-29T21:00:00Z');
  });
});
