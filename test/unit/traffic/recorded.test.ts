import { describe, expect, it } from 'vitest';
import { evenTraffic } from '../../../src/traffic/events.js';
import { eventsOf, newestEvents, recordedEvents } from '../../../src/traffic/recorded.js';

describe('recorded seconds as a replay writes them', () => {
  it("puts a second's n events where bench's even traffic puts them, its failures spread among them", () => {
    const events = [...recordedEvents([{ second: 100, successes: 7, failures: 3 }], 1)];
    const bench = [...evenTraffic({ rate: 10, durationSeconds: 1, failureRate: 0, seed: 1, startAt: 100 })];
    expect(events.map((e) => e.at)).toEqual(bench.map((e) => e.at));
    expect(events.map((e) => e.outcome[0]).join('')).toBe('sssfssfssf');
    expect(new Set(events.map((e) => e.eventId)).size).toBe(10);
    expect(events.every((e) => /^[0-9a-f]{24}$/.test(e.eventId))).toBe(true);
  });

  it('keeps the newest events under a cap: whole seconds from the newest back, the oldest one cut', () => {
    const seconds = [
      { second: 1, successes: 5, failures: 5 },
      { second: 2, successes: 2, failures: 1 },
      { second: 3, successes: 4, failures: 0 },
    ];
    expect(newestEvents(seconds, 9)).toEqual([{ second: 1, successes: 2, failures: 0 }, seconds[1], seconds[2]]);
    expect(eventsOf(newestEvents(seconds, 9))).toBe(9);
    expect(newestEvents(seconds, 100)).toEqual(seconds);
  });
});
