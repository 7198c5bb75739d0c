import { describe, expect, it } from 'vitest';
import { generateTraffic } from '../../../src/verify/traffic.js';

describe('generated traffic', () => {
  it('is the same for the same seed and differs for another', () => {
    const a = generateTraffic({ seed: 3, calls: 7000 });
    expect(generateTraffic({ seed: 3, calls: 7000 })).toEqual(a);
    expect(generateTraffic({ seed: 4, calls: 7000 }).calls).not.toEqual(a.calls);
  });

  it('has exactly the calls asked for, each light in time order, windows from 1 s to 2 h', () => {
    const traffic = generateTraffic({ seed: 5, calls: 20_000 });
    expect(traffic.calls).toHaveLength(20_000);
    const last = traffic.lights.map(() => Number.NEGATIVE_INFINITY);
    for (const call of traffic.calls) {
      expect(call.at).toBeGreaterThanOrEqual(last[call.light] as number);
      last[call.light] = call.at;
    }
    const windows = traffic.lights.map((l) => l.windowSeconds);
    expect(Math.max(...windows)).toBe(7200);
    expect(new Set(windows).size).toBe(windows.length);
    const ops = new Set(traffic.calls.map((c) => c.op));
    expect([...ops].sort()).toEqual(['failure', 'read', 'success']);
  });

  it('gives every light an idle gap longer than its window, a read in the first second of an hour, and a burst inside one second', () => {
    const traffic = generateTraffic({ seed: 8, calls: 20_000 });
    traffic.lights.forEach((light, i) => {
      const own = traffic.calls.filter((c) => c.light === i);
      const gaps = own.slice(1).map((c, k) => c.at - (own[k] as { at: number }).at);
      expect(Math.max(...gaps)).toBeGreaterThan(light.windowSeconds);
      expect(own.some((c) => c.op === 'read' && Math.floor(c.at) % 3600 === 0)).toBe(true);
      const perSecond = new Map<number, number>();
      for (const c of own) if (c.op !== 'read') perSecond.set(Math.floor(c.at), (perSecond.get(Math.floor(c.at)) ?? 0) + 1);
      expect(Math.max(...perSecond.values())).toBeGreaterThan(2);
    });
  });
});
