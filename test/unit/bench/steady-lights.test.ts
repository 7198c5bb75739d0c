import { describe, expect, it } from 'vitest';
import { PRESET_STEADY_LIGHTS, SKIPLIST_NODE_SD_BYTES, steadyLightCount } from '../../../src/bench/steady-lights.js';

const key = (encoding: string, elements: number) => ({ encoding, elements });

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
});
