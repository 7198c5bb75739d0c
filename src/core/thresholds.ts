/**
 * Thresholds that a use case decides with and a report states in words. They
 * live below both, so report/ reads them without importing a use case.
 */

/**
 * The `--suggest` rule, in numbers. An exact layout beats an approximate one, unless the
 * approximate one takes at most 1 / {@link APPROXIMATE_MIN_SAVING} of the
 * smallest exact layout's bytes AND decides differently from the exact window
 * on at most {@link APPROXIMATE_MAX_FLIPS} of the reads. Within a class,
 * fewer bytes win; layouts within {@link NEAR_TIE} of each other's bytes are
 * a near-tie, which the lower server µs per request breaks (then the name).
 */
export const SUGGEST_RULE = {
  /** An approximate layout must be at least this many times smaller than the smallest exact one. */
  APPROXIMATE_MIN_SAVING: 4,
  /** … and decide differently on at most this share of reads (0.01 = 1%). */
  APPROXIMATE_MAX_FLIPS: 0.01,
  /** Bytes within 10% of each other: server time decides. */
  NEAR_TIE: 0.1,
} as const;
export const { APPROXIMATE_MIN_SAVING, APPROXIMATE_MAX_FLIPS, NEAR_TIE } = SUGGEST_RULE;

/** A sweep combination at least this many times smaller than the default gets a line of advice. */
export const ADVICE_MIN_RATIO = 2;

/** Above this (max − min) / median across rounds, a figure is marked noisy. */
export const NOISY_SPREAD = 0.25;

/** Above this (max − min) / mean across repeats an instruction count is flagged: counts normally repeat within 0.3%. */
export const INSTRUCTIONS_SPREAD = 0.01;

/**
 * How long a run waits for others before giving up (`--wait-for-runs`): a
 * few seconds by default, so a run never sits silently behind another for
 * minutes; the message says how to wait longer.
 */
export const DEFAULT_TURN_TIMEOUT_MS = 10_000;
