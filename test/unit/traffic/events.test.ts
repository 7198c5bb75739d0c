import { describe, expect, it } from 'vitest';
import { errorJsonFor, stampOf } from '../../../src/traffic/events.js';
import { HOUR_START } from '../../helpers.js';

describe('error JSON as each Stoplight version writes it', () => {
  it('5.x: the time in whole seconds', () => {
    expect(errorJsonFor(HOUR_START + 0.75, 0, 'seconds')).toBe(`{"error":{"class":"Timeout::Error","message":"execution expired"},"time":${HOUR_START}}`);
  });

  it('6.0: the time as a float of seconds, to the millisecond, ".0" when whole', () => {
    expect(errorJsonFor(HOUR_START + 0.25, 0, 'milliseconds')).toMatch(new RegExp(`"time":${HOUR_START}\\.25}$`));
    expect(errorJsonFor(HOUR_START + 0.1234567, 0, 'milliseconds')).toMatch(new RegExp(`"time":${HOUR_START}\\.123}$`));
    expect(errorJsonFor(HOUR_START, 0, 'milliseconds')).toMatch(new RegExp(`"time":${HOUR_START}\\.0}$`));
    expect(JSON.parse(errorJsonFor(HOUR_START + 0.5, 1, 'milliseconds')).time).toBe(HOUR_START + 0.5);
  });

  it("stampOf cuts to milliseconds within the time's own second, as lua/lib/now.lua does", () => {
    expect(stampOf(HOUR_START + 6.9999995, 'milliseconds')).toBe(HOUR_START + 6.999);
    expect(stampOf(HOUR_START + 0.123, 'milliseconds')).toBe(HOUR_START + 0.123);
    expect(stampOf(HOUR_START + 0.75, 'seconds')).toBe(HOUR_START);
  });
});
