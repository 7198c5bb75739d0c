import type { ReproCall } from './types.js';

/**
 * Replays candidate calls on a fresh light and returns the index of the
 * first call that still shows the problem, or null when none does.
 */
export type Reproduces = (calls: readonly ReproCall[]) => Promise<number | null>;

/** Limits on shrinking, shared by every finding of one run. */
export interface ShrinkBudget {
  /** `Date.now()` after which no replay starts. */
  readonly deadline: number;
  /** Replays sent so far. */
  replays: number;
  readonly maxReplays: number;
  /** Set when a limit stopped a shrink before it was done. */
  exhausted: boolean;
}

/** Sequences longer than this skip one-by-one removal: each try replays the whole sequence. */
const ONE_BY_ONE_MAX = 200;
/** Sequences longer than this keep their times as they are. */
const TIME_SIMPLIFY_MAX = 30;

/**
 * Shrinks `calls` (whose last call shows the problem) to a shorter sequence
 * that still shows it: delta debugging over chunks (each chunk alone, then
 * everything but each chunk, halving the chunks when neither works), then
 * removing calls one at a time, then making times rounder (whole seconds,
 * shorter gaps). Every accepted candidate is cut after its first failing
 * call. Stops early, keeping the best so far, when the budget runs out.
 */
export async function shrink(calls: readonly ReproCall[], reproduces: Reproduces, budget: ShrinkBudget): Promise<ReproCall[]> {
  const attempt = async (candidate: readonly ReproCall[]): Promise<ReproCall[] | null> => {
    if (candidate.length === 0) return null;
    if (Date.now() > budget.deadline || budget.replays >= budget.maxReplays) {
      budget.exhausted = true;
      return null;
    }
    budget.replays += 1;
    const at = await reproduces(candidate);
    return at === null ? null : candidate.slice(0, at + 1);
  };
  const out = (): boolean => budget.exhausted;

  let current = [...calls];
  let chunks = 2;
  while (current.length >= 2 && !out()) {
    const size = Math.ceil(current.length / chunks);
    let next: ReproCall[] | null = null;
    for (let start = 0; start < current.length && !next && !out(); start += size) {
      if (size < current.length) next = await attempt(current.slice(start, start + size));
      if (next) chunks = 2;
    }
    for (let start = 0; start < current.length && !next && !out(); start += size) {
      next = await attempt([...current.slice(0, start), ...current.slice(start + size)]);
      if (next) chunks = Math.max(chunks - 1, 2);
    }
    if (next) {
      current = next;
      continue;
    }
    if (chunks >= current.length) break;
    chunks = Math.min(current.length, chunks * 2);
  }

  if (current.length <= ONE_BY_ONE_MAX) {
    for (let i = current.length - 1; i >= 0 && current.length > 1 && !out(); i -= 1) {
      if (i >= current.length) continue;
      const next = await attempt([...current.slice(0, i), ...current.slice(i + 1)]);
      if (next) current = next;
    }
  }

  if (current.length <= TIME_SIMPLIFY_MAX) current = await simplifyTimes(current, attempt, out);
  return current;
}

/** Whole seconds where the fraction does not matter, then shorter gaps (later calls move with them). */
async function simplifyTimes(
  calls: ReproCall[],
  attempt: (candidate: readonly ReproCall[]) => Promise<ReproCall[] | null>,
  out: () => boolean,
): Promise<ReproCall[]> {
  let current = calls;
  for (let i = 0; i < current.length && !out(); i += 1) {
    const call = current[i] as ReproCall;
    const whole = Math.floor(call.at);
    const previous = i > 0 ? (current[i - 1] as ReproCall).at : Number.NEGATIVE_INFINITY;
    if (whole === call.at || whole < previous) continue;
    const next = await attempt(current.map((c, j) => (j === i ? { ...c, at: whole } : c)));
    if (next && next.length === current.length) current = next;
  }
  for (let i = 1; i < current.length && !out(); i += 1) {
    for (let tries = 0; tries < 6 && !out(); tries += 1) {
      const gap = (current[i] as ReproCall).at - (current[i - 1] as ReproCall).at;
      const shift = Math.floor(gap / 2);
      if (shift < 1) break;
      const next = await attempt(current.map((c, j) => (j >= i ? { ...c, at: c.at - shift } : c)));
      if (!next || next.length !== current.length) break;
      current = next;
    }
  }
  return current;
}
