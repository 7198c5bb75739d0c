/**
 * How many lights a preset cell fills so that its bytes per light repeat from
 * one server process to the next.
 *
 * A sorted set past its listpack limit is a skiplist, and each skiplist node
 * gets a random level (p = 1/4) from the server's own random generator,
 * seeded per process. Its allocation is 24 + 16 × level bytes, rounded up to
 * a jemalloc size class 16 bytes apart (48, 64, 80, …), so one node's
 * MEMORY USAGE varies by about 16 × √(4/9) ≈ 10.7 bytes (standard deviation
 * of 16 × (level − 1), level − 1 geometric with mean 1/3). Measured on Redis
 * 7.0.15: the bucket index of a 6.0 light of 3 minutes (180 members) varies
 * by 130 bytes across 20 fresh servers, 0.26% of the light. Everything else a
 * light holds (listpacks, dicts settled by measureKeys, strings) repeats to
 * the byte.
 *
 * The figure stays what it was: MEMORY USAGE per light, averaged over the
 * cell's lights. More lights only narrow that average's spread, by √lights.
 */

/** Standard deviation of one skiplist node's allocation, in bytes (see above; 11 rounds 10.7 up). */
export const SKIPLIST_NODE_SD_BYTES = 11;

/** What a preset cell aims for: the spread of its bytes per light, relative to them. */
export interface SteadyLights {
  /** Standard deviation of bytes per light over the figure (0.0008 = 0.08%). */
  readonly relativeSd: number;
  /** Lights per cell at most. */
  readonly maxLights: number;
}

/** The default for a preset run without --lights: 0.08%, so two runs of one build agree within 0.5% with a wide margin. */
export const PRESET_STEADY_LIGHTS: SteadyLights = { relativeSd: 0.0008, maxLights: 32 };

/**
 * Lights a cell needs for `target`, from one light's keys: the skiplist
 * members' spread over its bytes, squared (the spread of a mean falls with
 * √lights). At least `have`, at most `target.maxLights` (never fewer than `have`).
 */
export function steadyLightCount(
  keys: readonly { readonly encoding: string; readonly elements: number }[],
  bytesPerLight: number,
  have: number,
  target: SteadyLights,
): number {
  const members = keys.reduce((sum, k) => sum + (k.encoding === 'skiplist' ? k.elements : 0), 0);
  if (members === 0 || bytesPerLight <= 0) return have;
  const sd = SKIPLIST_NODE_SD_BYTES * Math.sqrt(members);
  const needed = Math.ceil((sd / (target.relativeSd * bytesPerLight)) ** 2);
  return Math.max(have, Math.min(target.maxLights, needed));
}
