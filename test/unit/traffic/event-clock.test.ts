import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { EventClock } from '../../../src/traffic/event-clock.js';

describe('EventClock', () => {
  it('hands events to the lights in turn, each advancing 1 / rate', () => {
    const lights = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
    const clock = new EventClock(lights, 4, 1000);
    expect(clock.now).toBe(1000);
    const ticks = Array.from({ length: 7 }, () => clock.next());
    expect(ticks.map((t) => t.light.name)).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
    expect(ticks.map((t) => t.at)).toEqual([1000.25, 1000.25, 1000.25, 1000.5, 1000.5, 1000.5, 1000.75]);
    expect(clock.events).toBe(7);
    expect(clock.now).toBe(1000.75);
  });

  it('does not drift over many events', () => {
    const clock = new EventClock([{ name: 'a' }], 10, 0);
    for (let i = 0; i < 1_000_000; i += 1) clock.next();
    expect(clock.now).toBe(100_000);
  });

  it('rejects a rate that would not move the clock', () => {
    expect(() => new EventClock([{ name: 'a' }], 0, 0)).toThrow(UsageError);
    expect(() => new EventClock([], 1, 0)).toThrow(UsageError);
  });
});
