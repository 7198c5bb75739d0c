import type { TrafficEvent } from './events.js';
import { createRng } from './random.js';

/** What a light's keys recorded for one second: 5.x members scored by the second, or a 6.0 bucket. */
export interface SecondCounts {
  readonly second: number;
  readonly successes: number;
  readonly failures: number;
}

/** Events of `seconds`, summed. */
export function eventsOf(seconds: readonly SecondCounts[]): number {
  return seconds.reduce((sum, s) => sum + s.successes + s.failures, 0);
}

/**
 * The newest `max` events of `seconds` (in time order): whole seconds from
 * the newest back, the oldest one kept cut to fit, failures first to go.
 */
export function newestEvents(seconds: readonly SecondCounts[], max: number): SecondCounts[] {
  const out: SecondCounts[] = [];
  let left = max;
  for (let i = seconds.length - 1; i >= 0 && left > 0; i -= 1) {
    const s = seconds[i] as SecondCounts;
    const n = s.successes + s.failures;
    if (n <= left) {
      out.push(s);
      left -= n;
      continue;
    }
    const successes = Math.min(s.successes, left);
    out.push({ second: s.second, successes, failures: left - successes });
    left = 0;
  }
  return out.reverse();
}

/**
 * Recorded per-second counts as events in time order, as a replay writes
 * them: the n events of a second at `second + k / n` (k = 0 … n − 1), which
 * is where bench's even traffic puts n events a second, with the second's
 * failures spread evenly among its successes (the keys keep no order inside
 * a second). Ids come from `seed`: the same counts give the same events.
 */
export function* recordedEvents(seconds: readonly SecondCounts[], seed: number): Generator<TrafficEvent> {
  const rng = createRng(seed);
  for (const { second, successes, failures } of seconds) {
    const n = successes + failures;
    for (let k = 0; k < n; k += 1) {
      const failure = Math.floor(((k + 1) * failures) / n) > Math.floor((k * failures) / n);
      yield { at: second + k / n, outcome: failure ? 'failure' : 'success', eventId: rng.hex(12) };
    }
  }
}
