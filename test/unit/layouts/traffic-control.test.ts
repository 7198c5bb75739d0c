import { describe, expect, it } from 'vitest';
import { lightState } from '../../../src/layouts/stoplight/state.js';
import { configView, trippingOf } from '../../../src/layouts/stoplight/traffic-control.js';
import { stateMatches } from '../../../src/inspect/list.js';

// Stoplight's rules (docs/layouts.md, "Stoplight 6.0's state machine"), worked by hand.

const AT = 1_800_000_000;

describe('the colour rule', () => {
  it('locks first; the cool-off ends strictly after recovery_scheduled_after; recovery under way is yellow; then a breach', () => {
    const breached = { breached_at: String(AT - 60) };
    expect(lightState({ ...breached, locked_state: 'locked_green' }, AT).state).toBe('locked green');
    expect(lightState({ recovery_started_at: String(AT - 5), locked_state: 'LOCKED_RED' }, AT).state).toBe('locked red');
    expect(lightState({ ...breached, recovery_scheduled_after: String(AT) }, AT).state).toBe('red');
    expect(lightState({ ...breached, recovery_scheduled_after: String(AT - 0.001) }, AT).state).toBe('yellow');
    expect(lightState({ recovery_started_at: String(AT - 5) }, AT).state).toBe('yellow');
    expect(lightState({ recovered_at: String(AT - 5) }, AT).state).toBe('green');
  });

  it('the red reason names the strategy, or says it is unknown', () => {
    const red = { breached_at: String(AT - 60), consecutive_errors: '4' };
    expect(lightState(red, AT, 'consecutive_errors').reason).toBe('breached by consecutive errors (4 now)');
    expect(lightState(red, AT, 'error_rate').reason).toBe('breached by its error rate (error_rate)');
    expect(lightState(red, AT).reason).toBe('breached (strategy unknown)');
  });

  it('--state red matches locked red; locked red matches only the locked ones', () => {
    expect(stateMatches('locked red', 'red')).toBe(true);
    expect(stateMatches('red', 'locked red')).toBe(false);
    expect(stateMatches('locked green', 'green')).toBe(true);
    expect(stateMatches('locked red', 'yellow')).toBe(false);
  });
});

describe('closeness by the strategy', () => {
  const consecutive = configView({ windowSeconds: 300, threshold: 3, trafficControl: 'consecutive_errors' }, null, false);
  const rate = configView({ windowSeconds: 300, threshold: 0.5, trafficControl: 'error_rate' }, null, false);

  it('consecutive errors are clamped to the failures in the window; without a window they are not', () => {
    expect(trippingOf(consecutive, { successes: 0, failures: 1 }, 3).tripping).toMatchObject({ value: 1, ratio: 1 / 3 });
    expect(trippingOf(consecutive, { successes: 0, failures: 3 }, 3).tripping?.ratio).toBe(1);
    const unbounded = configView(undefined, null, true);
    expect(unbounded.trafficControl).toEqual({ value: 'consecutive_errors', from: 'default config' });
    expect(trippingOf(configView({ windowSeconds: null, threshold: 3, trafficControl: 'consecutive_errors' }, null, true), null, 3).tripping?.ratio).toBe(1);
  });

  it('error rate needs its minimum of requests: 2 failures of 3 is not close, 5 of 10 trips', () => {
    expect(trippingOf(rate, { successes: 1, failures: 2 }, 2).tripping).toMatchObject({ requests: 3, minRequests: 10, ratio: 0.3 });
    expect(trippingOf(rate, { successes: 5, failures: 5 }, 5).tripping?.ratio).toBe(1);
  });

  it('an unknown strategy is said, not guessed; --window wins over the registry and says so', () => {
    expect(trippingOf(configView(undefined, 60, false), { successes: 1, failures: 1 }, 1)).toEqual({ trippingUnknown: 'strategy unknown (no registry entry)' });
    expect(configView({ windowSeconds: 300, threshold: 0.5 }, 60, false).windowSeconds).toEqual({ value: 60, from: '--window' });
    expect(rate.windowSeconds).toEqual({ value: 300, from: 'registry' });
  });
});
