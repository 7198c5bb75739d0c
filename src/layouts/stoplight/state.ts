import { breachErrorText } from './breach-error.js';
import { HOUR_SECONDS } from '../kit/keys.js';
import type { SecondRange, WindowDeviation } from '../types.js';

/**
 * A light's state as Stoplight decides it, and the window its read counts,
 * stated once for `swc inspect`, `swc lights` and the tests' model.
 *
 * Stoplight 5.x keeps the state fields in the light's metadata hash
 * (`stoplight:v5:metadata:<name>`, whole seconds); released 6.0 keeps them
 * in a hash of its own, `stoplight:v6:<system id>:{<light id>}:state`
 * (fields `locked_state`, `breached_at`, `recovery_scheduled_after`,
 * `recovery_started_at`, and `recovered_at` once a recovery succeeds; floats
 * of seconds). The colour rule is the same in both (see {@link lightState}).
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

/** What trips a light: Stoplight's two traffic-control strategies. */
export type TrafficControl = 'error_rate' | 'consecutive_errors';

/**
 * Stoplight's colour rule over a light's state fields (any object of field
 * to value: the 5.x metadata hash, or 6.0's state hash with its metrics
 * hash's `consecutive_errors` and `last_error_json` for the reason), judged
 * at `at` (Unix seconds):
 *
 * 1. a lock wins: `locked_state` locked red or locked green;
 * 2. else yellow when the cool-off is over, `recovery_scheduled_after`
 *    strictly before `at` (at exactly that moment the light is still red),
 *    or when a recovery probe is under way (`recovery_started_at` set);
 * 3. else red when `breached_at` is set;
 * 4. else green. A light on the default config (no window) follows the same
 *    rule: only its metrics differ.
 *
 * Read from Stoplight's source: 6.0 `lib/stoplight/domain/state_snapshot.rb`
 * at 14c8ad88f8969da9c9e0252fab20eec17a2d0163 (`color`), the fields from
 * `lib/stoplight/infrastructure/redis/storage/state.rb` at
 * e984cd620f6a9de957e02383c0907504a7c1fe7e and `state/transition_to_*.lua`
 * (green 902e9c77fcf8acc3a06db29c11077957fb093f54, yellow
 * 37a24db38080b0c46db87ae337d9cf98c938d345, red
 * 5d02b9f8f61ba8c3c64983c9bf689f25fe9ea3eb); 5.x `lib/stoplight/metadata.rb`
 * at v5.3.6 (80682cdfe1d867c7c48c38b4d549d55486fe339c, `color`), the same
 * order and the same strict comparison. docs/layouts.md lists them.
 *
 * `strategy` names what trips the light, where known (a registry entry, or
 * a default-config light, which only consecutive errors can trip): the red
 * reason then says which; null says the strategy is unknown rather than guess.
 */
export function lightState(fields: Readonly<Record<string, string>>, at: number, strategy: TrafficControl | null = null): LightState {
  const lock = lockOf(fields.locked_state);
  if (lock !== null) return { state: lock, since: null, reason: `locked by an operator (locked_state ${fields.locked_state as string})` };
  const started = stamp(fields.recovery_started_at);
  if (started !== null) return { state: 'yellow', since: Math.floor(started), reason: 'a recovery probe is under way (recovery_started_at)' };
  const scheduled = stamp(fields.recovery_scheduled_after);
  const breached = stamp(fields.breached_at);
  if (scheduled !== null && scheduled < at) {
    return { state: 'yellow', since: Math.floor(scheduled), reason: 'cool-off over: the next call probes recovery (recovery_scheduled_after passed)' };
  }
  if (breached !== null) {
    const why = breachedBy(fields, strategy);
    // The stored error, only where it can be the one that tripped the light (src/layouts/stoplight/breach-error.ts).
    return { state: 'red', since: Math.floor(breached), reason: `${why}${breachErrorText(fields, breached)}` };
  }
  return { state: 'green', since: null, reason: 'no breach recorded' };
}

/** What a breach is said to come from: the strategy that trips the light, or that it is unknown. */
function breachedBy(fields: Readonly<Record<string, string>>, strategy: TrafficControl | null): string {
  if (strategy === 'error_rate') return 'breached by its error rate (error_rate)';
  if (strategy === 'consecutive_errors') {
    const errors = stamp(fields.consecutive_errors);
    return errors !== null && errors > 0 ? `breached by consecutive errors (${errors} now)` : 'breached by consecutive errors';
  }
  return 'breached (strategy unknown)';
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
