import { describe, expect, it } from 'vitest';
import { checkCellEvents, checkInFlight, LIMITS } from '../../../src/run/values.js';
import { UsageError } from '../../../src/core/errors.js';

describe('bench limits that keep a run meaningful and the client bounded', () => {
  it('accepts connections × pipeline up to the in-flight cap and refuses one call more, naming both flags', () => {
    expect(LIMITS.inFlightCalls).toBe(50_000);
    expect(() => checkInFlight(100, 500)).not.toThrow();
    expect(() => checkInFlight(1, 10_000)).not.toThrow();
    expect(() => checkInFlight(50_001, 1)).toThrow(
      /^--connections\/--pipeline: 50,001 connections × 1 calls per batch = 50,001 calls in flight; at most 50,000/,
    );
    expect(() => checkInFlight(1000, 51, ['throughput.connections', 'throughput.pipeline'])).toThrow(UsageError);
  });

  it('refuses a cell whose rate × seconds rounds to no event, and accepts one that rounds to one', () => {
    expect(() => checkCellEvents(0.001, 60)).toThrow(/rounds to 0 events per light/);
    expect(() => checkCellEvents(0.01, 49, '--rate/--window')).toThrow(/^--rate\/--window: /);
    expect(() => checkCellEvents(0.01, 50)).not.toThrow();
  });
});
