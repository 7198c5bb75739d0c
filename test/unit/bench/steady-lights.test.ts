import { describe, expect, it } from 'vitest';
import { PRESET_STEADY_LIGHTS, SKIPLIST_NODE_SD_BYTES, steadyLightCount, steadyTarget } from '../../../src/bench/steady-lights.js';
import { copyNameOf } from '../../../src/measure/memory.js';

const key = (encoding: string, elements: number, copies?: number) => ({ encoding, elements, ...(copies !== undefined ? { copies } : {}) });

describe('lights a preset cell fills so that its skiplists average out', () => {
  it('keeps the lights asked for when nothing is a skiplist (listpacks and settled dicts repeat to the byte)', () => {
    expect(steadyLightCount([key('listpack', 60), key('hashtable', 127)], 11_152, 1, PRESET_STEADY_LIGHTS)).toBe(1);
    expect(steadyLightCount([], 0, 3, PRESET_STEADY_LIGHTS)).toBe(3);
  });

  it('a 6.0 light of 3 minutes (a 180-member bucket index, 50 KB): (11 × √180 / (0.08% × 50 KB))² lights', () => {
    const sd = SKIPLIST_NODE_SD_BYTES * Math.sqrt(180);
    const expected = Math.ceil((sd / (0.0008 * 50_400)) ** 2);
    expect(expected).toBe(14);
    expect(steadyLightCount([key('hashtable', 367), key('skiplist', 180)], 50_400, 1, PRESET_STEADY_LIGHTS)).toBe(expected);
  });

  it('a large light needs no more (a 5.x light of 10 minutes at 100/s: 60,000 members, 7 MB)', () => {
    expect(steadyLightCount([key('hashtable', 5), key('skiplist', 30_000), key('skiplist', 30_000)], 7_086_000, 1, PRESET_STEADY_LIGHTS)).toBe(1);
  });

  it('never more than the cap, never fewer than asked', () => {
    expect(steadyLightCount([key('skiplist', 129)], 2_000, 1, PRESET_STEADY_LIGHTS)).toBe(PRESET_STEADY_LIGHTS.maxLights);
    expect(steadyLightCount([key('skiplist', 180)], 50_400, 40, PRESET_STEADY_LIGHTS)).toBe(40);
  });

  it('a skiplist averaged over copies counts its members over its readings: 13 copies of that index need no more lights', () => {
    expect(steadyLightCount([key('hashtable', 367), key('skiplist', 180, 13)], 50_400, 1, PRESET_STEADY_LIGHTS)).toBe(1);
    // Too few copies: the rest of the spread is made up with lights (14 readings wanted, 3 had: 5 lights).
    expect(steadyLightCount([key('hashtable', 367), key('skiplist', 180, 2)], 50_400, 1, PRESET_STEADY_LIGHTS)).toBe(5);
    // One key of two without copies (its copy name was taken): that key's spread alone.
    const one = steadyLightCount([key('skiplist', 293, 19), key('skiplist', 307)], 76_000, 1, PRESET_STEADY_LIGHTS);
    const alone = Math.ceil((SKIPLIST_NODE_SD_BYTES ** 2 * (293 / 20 + 307)) / (0.0008 * 76_000) ** 2);
    expect(one).toBe(alone);
    expect(one).toBeGreaterThan(1);
  });

  it('applies to a cell filled with the injected clock on one server only', () => {
    const plan = { steadyLights: PRESET_STEADY_LIGHTS };
    expect(steadyTarget(plan, false)).toBe(PRESET_STEADY_LIGHTS);
    expect(steadyTarget(plan, true)).toBeUndefined();
    expect(steadyTarget({ ...plan, realtime: true }, false)).toBeUndefined();
    expect(steadyTarget({}, false)).toBeUndefined();
  });
});

describe('the name a copy of a key is measured under', () => {
  it('the same length, prefix and hash tag, the last character changed; none for a key that ends in its hash tag', () => {
    expect(copyNameOf('swc-bench:ab12cd34:{light}:index')).toBe('swc-bench:ab12cd34:{light}:inde#');
    expect(copyNameOf('swc-bench:ab12cd34:{light}:inde#')).toBe('swc-bench:ab12cd34:{light}:inde$');
    expect(copyNameOf('swc-bench:ab12cd34:x:{light}')).toBeNull();
    expect(copyNameOf('')).toBeNull();
  });
});
