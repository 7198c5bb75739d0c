import { breachErrorText } from './breach-error.js';
import { HOUR_SECONDS } from '../kit/keys.js';
import type { SecondRange, WindowDeviation } from '../types.js';

/**
 * A light's state as Stoplight decides it, and the window its read counts,
 * stated once for `swc inspect`, `swc lights` and the tests' model.
 *
 * Stoplight 5.x keeps the state fields in the light's metadata hash
 * (`stoplight:v5:metadata:<name>`); released 6.0 keeps them in a hash of
 * their own, `stoplight:v6:<system id>:{<light id>}:state` (fields
 * `locked_state`, `breached_at`, `recovery_scheduled_after`,
 * `recovery_started_at`, floats of seconds). The rule is the same in both:
 * a lock wins; then a recovery that is due or under way is yellow; then a
 * breach is red; else green.
 */

import { lightStates, type LightState, type LightStateName } from '../inspection.js';

export { lightStates, type LightState, type LightStateName };

/** The fields of the state, as stored. */
export const STATE_FIELDS = ['locked_state', 'breached_at', 'recovery_scheduled_after', 'recovery_started_at'] as const;

const stamp = (value: string | undefined): number | null => {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/** `locked_green` / `LOCKED_GREEN` / `locked green`: the lock a field says; null for unlocked or unknown. */
function lockOf(value: string | undefined): 'locked red' | 'locked green' | null {
  const v = (value ?? '').toLowerCase().replace(/[_\s-]+/g, ' ');
  if (v === 'locked red') return 'locked red';
  if (v === 'locked green') return 'locked green';
  return null;
}

/**
 * Stoplight's rule over a light's state fields (any object of field to
 * value; the 5.x metadata hash, or 6.0's state hash merged with its
 * window_metrics hash for the consecutive errors): `locked_state` first;
 * then `recovery_scheduled_after` at or before `at`, or `recovery_started_at`
 * set, means yellow; then `breached_at` means red; else green.
 */
export function lightState(fields: Readonly<Record<string, string>>, at: number): LightState {
  const lock = lockOf(fields.locked_state);
  if (lock !== null) return { state: lock, since: null, reason: `locked by an operator (locked_state ${fields.locked_state as string})` };
  const started = stamp(fields.recovery_started_at);
  if (started !== null) return { state: 'yellow', since: Math.floor(started), reason: 'a recovery probe is under way (recovery_started_at)' };
  const scheduled = stamp(fields.recovery_scheduled_after);
  const breached = stamp(fields.breached_at);
  if (scheduled !== null && scheduled <= at) {
    return { state: 'yellow', since: Math.floor(scheduled), reason: 'cool-off over: the next call probes recovery (recovery_scheduled_after passed)' };
  }
  if (breached !== null) {
    const errors = stamp(fields.consecutive_errors);
    const after = errors !== null && errors > 0 ? `breached after ${errors} consecutive error${errors === 1 ? '' : 's'}` : 'breached';
    // The stored error, only where it can be the one that tripped the light (src/layouts/stoplight/breach-error.ts).
    return { state: 'red', since: Math.floor(breached), reason: `${after}${breachErrorText(fields, breached)}` };
  }
  return { state: 'green', since: null, reason: 'no breach recorded' };
}

/** The newest of `last_success_at` and `last_error_at` (whole seconds), or null: when the light last saw a call. */
export function lastCallSecond(fields: Readonly<Record<string, string>>): number | null {
  const stamps = [stamp(fields.last_success_at), stamp(fields.last_error_at)].filter((s): s is number => s !== null);
  return stamps.length === 0 ? null : Math.floor(Math.max(...stamps));
}

/** Stoplight's window rule is pure arithmetic, stated in the model's layer so the model counts by it too. */
export { readWindow, type ReadWindow } from '../../model/read-window.js';
import type { ReadWindow } from '../../model/read-window.js';

/** What a window note says: the rules that moved the window, in words; empty when none did. */
export function windowNotes(window: ReadWindow<WindowDeviation>): string[] {
  const notes: string[] = [];
  if (window.recoveredAt !== null)
    notes.push(`starts at recovered_at ${new Date(window.recoveredAt * 1000).toISOString().replace('.000Z', 'Z')}, not at now - window`);
  for (const d of window.applied) notes.push(d.description);
  return notes;
}

/** The note for a light whose keys hold a metadata hash and no events: Stoplight's default config (no `window_size`). */
export const NO_WINDOW_NOTE = 'no window configured: Stoplight keeps no events for it';

/**
 * Stoplight 5.x's read leaves out the hour key of its own second when that
 * second is the first of an hour: the client's last hour key is the one
 * holding (window end - 1 s). Events in that second are counted from the
 * next second on. swc keeps this, as the real read does it.
 */
export const V5_FIRST_SECOND_OF_HOUR: WindowDeviation = {
  id: 'hour-key-of-window-end',
  description:
    "a read in the first second of a clock hour does not count that second's events: Stoplight 5.x's client reads the hour keys up to the one holding the window end minus one second",
  uncounted(at: number): SecondRange | null {
    const second = Math.floor(at);
    return second % HOUR_SECONDS === 0 ? { fromSecond: second, toSecond: second } : null;
  },
};
