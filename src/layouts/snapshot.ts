import { toIntOrNull, toStringOrNull } from './parse.js';
import type { Snapshot } from './types.js';

/** Reads a count as a number; approximate layouts send fractional counts as decimal text. */
function toCount(value: unknown): number {
  if (value === null || value === undefined || value === false) return 0;
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/**
 * Parses the reply shape every layout after 6.0 shares with it:
 * `{ successes, failures, last_success_at, last_error_at, last_error_json,
 * consecutive_errors, consecutive_successes }` (missing fields nil).
 */
export function parseCountsReply(reply: unknown): Snapshot {
  const [successes, failures, lastSuccessAt, lastErrorAt, lastErrorJson, consecutiveErrors, consecutiveSuccesses] = Array.isArray(reply)
    ? (reply as unknown[])
    : [];
  return {
    successes: toCount(successes),
    failures: toCount(failures),
    consecutiveSuccesses: Math.trunc(toCount(consecutiveSuccesses)),
    consecutiveErrors: Math.trunc(toCount(consecutiveErrors)),
    lastSuccessAt: toIntOrNull(lastSuccessAt),
    lastErrorAt: toIntOrNull(lastErrorAt),
    lastErrorJson: toStringOrNull(lastErrorJson),
  };
}
