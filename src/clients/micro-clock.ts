import type { ClientEnvironment } from './types.js';

/**
 * The run's clock, when the run drives one: milliseconds (fractions allowed) on the run's time line.
 * Absent, a package keeps its own clock (real time).
 */
export type RunClock = () => number;

/** A ClientEnvironment that may carry the run's clock (`now`). */
export type ClockedEnvironment = ClientEnvironment & { readonly now?: RunClock };

/** An object whose `now()` a package reads the time from in microseconds (the `microtime` module's shape). */
export interface MicrosecondSource {
  now: () => number;
}

/**
 * Makes `source.now()` answer the run's clock in whole microseconds, as the package's own source does, until the
 * returned function puts the original back. The package reads `source.now` at each call, so the replacement takes
 * effect at once. One run at a time per process: a second patch of the same source stacks on the first and must
 * be undone first.
 */
export function driveMicroseconds(source: MicrosecondSource, now: RunClock): () => void {
  const original = source.now;
  const driven = (): number => Math.round(now() * 1000);
  source.now = driven;
  return () => {
    if (source.now === driven) source.now = original;
  };
}
