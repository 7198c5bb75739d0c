import { createRng } from '../../../src/traffic/random.js';

export type Op = { kind: 'success' | 'failure' | 'read'; at: number };

/**
 * Seeded random traffic for differential tests: steady stretches, bursts in
 * one second, idle gaps longer than the window (and exactly at its edges),
 * events and reads in the first second of an hour, times on whole seconds
 * and just before the next, with reads interleaved.
 */
export function randomTraffic(seed: number, windowSeconds: number, start: number, length: number): Op[] {
  const rng = createRng(seed);
  const ops: Op[] = [];
  let t = start;
  const pick = <T>(items: readonly T[]): T => items[rng.int(items.length)] as T;
  const event = (): Op['kind'] => (rng.next() < 0.4 ? 'failure' : 'success');
  while (ops.length < length) {
    const mode = rng.int(11);
    if (mode < 4) {
      // steady: small steps relative to the window
      const step = Math.max(0.05, (windowSeconds / 15) * rng.next());
      for (let i = 0; i < 10; i += 1) {
        t += step;
        ops.push({ kind: rng.next() < 0.3 ? 'read' : event(), at: t });
      }
    } else if (mode < 6) {
      // burst inside one second
      const second = Math.floor(t) + 1;
      for (let i = 0; i < 8; i += 1) ops.push({ kind: i % 4 === 3 ? 'read' : event(), at: second + i / 10 });
      t = second + 0.8;
    } else if (mode < 8) {
      // jump to a window edge relative to the current second, read on both sides of it
      const second = Math.floor(t);
      const edge = pick([windowSeconds - 1, windowSeconds, windowSeconds + 1]);
      ops.push({ kind: 'read', at: second + edge });
      ops.push({ kind: event(), at: second + edge + 0.999 });
      ops.push({ kind: 'read', at: second + edge + 1 });
      t = second + edge + 1;
    } else if (mode < 10) {
      // idle gap longer than the window, then one event
      t += windowSeconds + 1 + rng.int(windowSeconds * 2 + 5);
      t = Math.floor(t) + pick([0, 0.5, 0.999]);
      ops.push({ kind: 'read', at: t });
      ops.push({ kind: event(), at: t });
    } else {
      // the first second of the next hour: an event in it, reads in it and after it
      const hour = (Math.floor(t / 3600) + 1) * 3600;
      ops.push({ kind: event(), at: hour + 0.25 });
      ops.push({ kind: 'read', at: hour + 0.5 });
      ops.push({ kind: 'read', at: hour + 1 });
      t = hour + 1;
    }
  }
  return ops.slice(0, length);
}
