/**
 * The injected clock of a run: while installed, `Date.now`, `performance.now`,
 * `process.hrtime` and `process.hrtime.bigint` all read the run's clock, so a
 * package that takes its time from any of them sees the run's time. Removed
 * by the function it returns (the run calls it on every way out).
 */

/** A clock the run moves: milliseconds since the epoch. */
export interface RunClock {
  nowMs: number;
}

/**
 * Where an injected clock starts: a fixed moment (2027-01-15, a whole number of hours since the epoch), so a
 * package that numbers its windows from the epoch (floor(now / window)) sees the same phase in every run and a
 * reproduction replays the same; in the future, so a key a package expires at an absolute time outlives the run.
 */
export const INJECTED_EPOCH_MS = 1_800_000_000_000;

/** Installs `clock` as the process's time sources; returns what restores them. */
export function installClock(clock: RunClock): () => void {
  const saved = { dateNow: Date.now, perfNow: performance.now, hrtime: process.hrtime, bigint: process.hrtime.bigint };
  const startMs = clock.nowMs;
  Date.now = () => Math.floor(clock.nowMs);
  // performance.now counts from an origin: the installed clock's start.
  performance.now = () => clock.nowMs - startMs;
  const nanos = (): bigint => BigInt(Math.round(clock.nowMs * 1e6));
  const hrtime = ((previous?: [number, number]): [number, number] => {
    let ns = nanos();
    if (previous) ns -= BigInt(previous[0]) * 1_000_000_000n + BigInt(previous[1]);
    return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  }) as typeof process.hrtime;
  hrtime.bigint = nanos;
  process.hrtime = hrtime;
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    Date.now = saved.dateNow;
    performance.now = saved.perfNow;
    process.hrtime = saved.hrtime;
  };
}

const realPerformanceNow = performance.now.bind(performance);

/** Real milliseconds from an arbitrary origin, whatever clock is installed (for timing the run itself). */
export function realNowMs(): number {
  return realPerformanceNow();
}
