import type { ClientEnvironment } from './types.js';

/**
 * The clock a run moves (the shape of the run's injected clock): milliseconds since the epoch, fractions
 * allowed. A package that reads a native clock cannot be reached by replacing `Date.now` and
 * `process.hrtime`, so its adapter needs the clock itself.
 */
export interface MovedClock {
  readonly nowMs: number;
}

/**
 * A ClientEnvironment that may carry the run's clock. Given, the adapter makes the package read it; absent,
 * the package keeps its own clock (real time).
 */
export type ClockedEnvironment = ClientEnvironment & { readonly clock?: MovedClock };

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
export function driveMicroseconds(source: MicrosecondSource, clock: MovedClock): () => void {
  const original = source.now;
  const driven = (): number => Math.round(clock.nowMs * 1000);
  source.now = driven;
  return () => {
    if (source.now === driven) source.now = original;
  };
}
