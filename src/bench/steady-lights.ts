/**
 * How a preset cell keeps its bytes per light the same from one server
 * process to the next.
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
 * Both ways to narrow the spread average more draws of the levels:
 *
 * - Copies, where the server allows them: each skiplist key's MEMORY USAGE
 *   is averaged over the key and server-side copies of it (COPY inserts
 *   every member anew, each node with a level of its own; measure/memory.ts,
 *   copiesUsage). A copy costs the server well under a microsecond per
 *   member, where filling a light costs it tens of microseconds per event,
 *   so the cell fills its lights as given. On Redis 7.0.15, over 54
 *   skiplists of six preset cells, each key's own reading sat within the
 *   spread of its copies' (mean z −0.14, standard deviation 1.09).
 * - More lights, where copies cannot be made (a server before 6.2, COPY not
 *   allowed) or do not look like the key (a copy sizes its dict to its
 *   members; a key that lost members keeps a larger one): the cell fills
 *   more lights, each with the whole cell's traffic.
 *
 * The figure stays what it was: MEMORY USAGE per light, averaged over the
 * cell's lights. Either way only narrows that average's spread, by √draws.
 */
import type { Redis } from 'ioredis';
import type { LightKey } from '../layouts/types.js';
import { copiesUsage, measureKeys } from '../measure/memory.js';
import type { KeyMemory } from '../measure/types.js';

/** Standard deviation of one skiplist node's allocation, in bytes (see above; 11 rounds 10.7 up). */
export const SKIPLIST_NODE_SD_BYTES = 11;

/** What a preset cell aims for: the spread of its bytes per light, relative to them. */
export interface SteadyLights {
  /** Standard deviation of bytes per light over the figure (0.0008 = 0.08%). */
  readonly relativeSd: number;
  /** Lights per cell at most, where copies cannot be made. */
  readonly maxLights: number;
  /** Copies per skiplist key at most. */
  readonly maxCopies: number;
}

/** The default for a preset run without --lights: 0.08%, so two runs of one build agree within 0.5% with a wide margin. */
export const PRESET_STEADY_LIGHTS: SteadyLights = { relativeSd: 0.0008, maxLights: 32, maxCopies: 255 };

/**
 * A key's reading further from its copies' mean than this many of one
 * reading's standard deviations is not like them (a dict of another size:
 * at least 8 bytes a member, 8 standard deviations or more at 129 members).
 */
const UNLIKE_SDS = 6;

/**
 * Copies aim this far under the target: their mean moves the light's bytes
 * a little (a few tenths of a percent), and the target is checked again
 * against the moved bytes, which must not leave it just over.
 */
export const COPIES_HEADROOM = 0.9;

/** The variance of a light's bytes from its skiplists' levels: each key's members, over the readings averaged. */
function levelVariance(keys: readonly { readonly encoding: string; readonly elements: number; readonly copies?: number }[]): number {
  const members = keys.reduce((sum, k) => sum + (k.encoding === 'skiplist' ? k.elements / (1 + (k.copies ?? 0)) : 0), 0);
  return SKIPLIST_NODE_SD_BYTES ** 2 * members;
}

/**
 * Lights a cell needs for `target`, from one light's keys: the skiplist
 * members' spread over its bytes, squared (the spread of a mean falls with
 * √lights); a key averaged over copies counts its members over its
 * readings. At least `have`, at most `target.maxLights` (never fewer than `have`).
 */
export function steadyLightCount(
  keys: readonly { readonly encoding: string; readonly elements: number; readonly copies?: number }[],
  bytesPerLight: number,
  have: number,
  target: Pick<SteadyLights, 'relativeSd' | 'maxLights'>,
): number {
  const variance = levelVariance(keys);
  if (variance === 0 || bytesPerLight <= 0) return have;
  const needed = Math.ceil(variance / (target.relativeSd * bytesPerLight) ** 2);
  return Math.max(have, Math.min(target.maxLights, needed));
}

/** Where a plan's target applies: a cell filled with the injected clock on one server (the lights' fallback runs only there). */
export function steadyTarget(plan: { readonly steadyLights?: SteadyLights; readonly realtime?: boolean }, cluster: boolean): SteadyLights | undefined {
  return plan.realtime || cluster ? undefined : plan.steadyLights;
}

/**
 * Measures a light's keys (measureKeys); with `target`, each skiplist key's
 * bytes are its mean over the key and as many copies as bring the light's
 * spread under the target (the same count for every skiplist key of the
 * light, at most `target.maxCopies`), with `copies` saying how many. A key
 * the copies cannot stand for (see the file's head) keeps its own reading,
 * without `copies`: {@link steadyLightCount} then asks for more lights.
 */
export async function measureSteadyKeys(redis: Redis, keys: readonly Pick<LightKey, 'key' | 'role'>[], target: SteadyLights | undefined): Promise<KeyMemory[]> {
  const measured = await measureKeys(redis, keys);
  if (!target) return measured;
  const bytes = measured.reduce((sum, k) => sum + k.bytes, 0);
  const readings = steadyLightCount(measured, bytes, 1, { relativeSd: target.relativeSd * COPIES_HEADROOM, maxLights: target.maxCopies + 1 });
  if (readings <= 1) return measured;
  const out: KeyMemory[] = [];
  for (const key of measured) {
    const usages = key.encoding === 'skiplist' ? await copiesUsage(redis, key.key, readings - 1) : null;
    if (!usages || usages.length === 0) {
      out.push(key);
      continue;
    }
    const copiesMean = usages.reduce((sum, u) => sum + u, 0) / usages.length;
    const sd = SKIPLIST_NODE_SD_BYTES * Math.sqrt(key.elements);
    if (Math.abs(key.bytes - copiesMean) > UNLIKE_SDS * sd) {
      out.push(key);
      continue;
    }
    out.push({ ...key, bytes: Math.round((key.bytes + copiesMean * usages.length) / (usages.length + 1)), copies: usages.length });
  }
  return out;
}
