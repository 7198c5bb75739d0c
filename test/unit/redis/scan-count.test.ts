import { describe, expect, it } from 'vitest';
import { nextScanCount, SCAN_COUNT, SCAN_COUNT_MIN } from '../../../src/redis/scan.js';

describe('nextScanCount: COUNT within a per-call budget', () => {
  it('grows by half while a call takes under half the budget, up to the ceiling', () => {
    expect(nextScanCount(100, 50, 250)).toBe(150);
    expect(nextScanCount(900, 10, 250)).toBe(SCAN_COUNT);
  });

  it('keeps COUNT between half the budget and the budget', () => {
    expect(nextScanCount(300, 200, 250)).toBe(300);
    expect(nextScanCount(300, 250, 250)).toBe(300);
  });

  it('over the budget shrinks in proportion, at least by half, down to the floor', () => {
    expect(nextScanCount(400, 1000, 250)).toBe(100);
    expect(nextScanCount(400, 300, 250)).toBe(200);
    expect(nextScanCount(12, 100_000, 250)).toBe(SCAN_COUNT_MIN);
  });
});
