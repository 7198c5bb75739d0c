/** The rule of `swc bench --suggest` in one sentence, apart from its renderer so bench's help states it without loading it. */
import { APPROXIMATE_MAX_FLIPS, APPROXIMATE_MIN_SAVING, NEAR_TIE } from '../core/thresholds.js';

/** The rule `suggest` (src/bench/suggest.ts) applies, in one sentence (also in --help and the README). */
export const SUGGEST_RULE_TEXT =
  `an exact layout (zero error over every read) beats an approximate one unless the approximate one is at least ${APPROXIMATE_MIN_SAVING}× smaller ` +
  `than the smallest exact layout and decides differently on at most ${APPROXIMATE_MAX_FLIPS * 100}% of reads; then fewer bytes per light win, ` +
  `and layouts within ${NEAR_TIE * 100}% of each other's bytes go by server µs per request`;
