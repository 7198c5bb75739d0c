import type { ClientEnvironment, ClientLimiter } from './types.js';

/**
 * The clock a run moves (the shape of the run's injected clock): milliseconds since the epoch, fractions
 * allowed. A package that reads a native clock cannot be reached by replacing `Date.now` and
 * `process.hrtime`, so its adapter is best given the clock itself.
 */
export interface MovedClock {
  readonly nowMs: number;
}

/**
 * A ClientEnvironment that may carry the run's clock. Given, the adapter makes the package read it; absent,
 * the package reads the process's clock as a run may have replaced it (see {@link processClock}).
 */
export type ClockedEnvironment = ClientEnvironment & { readonly clock?: MovedClock };

/** An object whose `now()` a package reads the time from in microseconds (the `microtime` module's shape). */
export interface MicrosecondSource {
  now: () => number;
}

const NS_PER_MS = 1_000_000n;

/** `ns` to the nearest whole millisecond, in nanoseconds. */
function toWholeMs(ns: bigint): bigint {
  const half = ns < 0n ? -NS_PER_MS / 2n : NS_PER_MS / 2n;
  return ((ns + half) / NS_PER_MS) * NS_PER_MS;
}

/**
 * The process's clock, in milliseconds since the epoch: `process.hrtime.bigint()`, looked up at each reading (so a
 * run that replaces `process.hrtime` for its duration is followed), set against `Date.now()` once, here, to the
 * whole millisecond. A clock a run installs on both reads as itself (its hrtime counts from the epoch, and its
 * `Date.now` is the same time floored); the real ones read as real time, to within a millisecond.
 */
export function processClock(): MovedClock {
  const offsetNs = toWholeMs(BigInt(Date.now()) * NS_PER_MS - process.hrtime.bigint());
  return {
    get nowMs() {
      // Whole microseconds first (a BigInt), then milliseconds: no nanosecond digits lost to a double's precision.
      return Number((process.hrtime.bigint() + offsetNs + 500n) / 1000n) / 1000;
    },
  };
}

/**
 * Makes `source.now()` answer `clock` in whole microseconds, as the package's own source does, until the returned
 * function puts the original back. The package reads `source.now` at each call, so the replacement takes effect at
 * once. One run at a time per process: a second patch of the same source stacks on the first and must be undone
 * first.
 */
export function driveMicroseconds(source: MicrosecondSource, clock: MovedClock): () => void {
  const original = source.now;
  const driven = (): number => Math.round(clock.nowMs * 1000);
  source.now = driven;
  return () => {
    if (source.now === driven) source.now = original;
  };
}

/**
 * A limiter on a package whose clock {@link driveMicroseconds} drives: `source.now` answers `clock` until the
 * limiter is closed.
 */
export function limiterOnClock(source: MicrosecondSource, clock: MovedClock, decide: (id: string) => Promise<boolean>): ClientLimiter {
  const restore = driveMicroseconds(source, clock);
  return {
    decide,
    close: () => {
      restore();
      return Promise.resolve();
    },
  };
}
