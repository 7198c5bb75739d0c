/** A red light's "why" names the stored error only where it can be the one that tripped the light. */
import { describe, expect, it } from 'vitest';
import { lightState } from '../../../src/layouts/stoplight/state.js';

const error = (cls: string, time: number): string => JSON.stringify({ error: { class: cls, message: 'm' }, time });

describe('lightState: the error a red light names', () => {
  it('the last stored error at the breach: named', () => {
    const fields = { breached_at: '1000', consecutive_errors: '3', last_error_at: '1000.25', last_error_json: error('Timeout::Error', 1000) };
    expect(lightState(fields, 1100).reason).toBe('breached (strategy unknown): Timeout::Error');
  });

  it('an error stored after the breach (a failed probe): not named as the one that tripped it, and said so', () => {
    const fields = { breached_at: '1000', consecutive_errors: '4', last_error_at: '1060.5', last_error_json: error('Net::ReadTimeout', 1060) };
    expect(lightState(fields, 1100).reason).toBe(
      'breached (strategy unknown); the error that tripped it is not kept (the last stored, Net::ReadTimeout, came 61 s after the breach)',
    );
  });

  it('no last_error_at: the time inside the error JSON decides', () => {
    const later = { breached_at: '1000', last_error_json: error('E', 1030) };
    expect(lightState(later, 1100).reason).toMatch(/not kept \(the last stored, E, came 30 s after/);
    const same = { breached_at: '1000', last_error_json: error('E', 1000) };
    expect(lightState(same, 1100).reason).toBe('breached (strategy unknown): E');
  });
});
