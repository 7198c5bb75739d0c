import type { Redis } from 'ioredis';
import { EXACT_MEMORY_MAX_ELEMENTS, exec, keyTypes, scanKeys } from './keys.js';
import { V5_EVENTS_SUFFIX } from './read-v5.js';
import type { InspectedLayout, LightListing } from './types.js';

/** Keys described per pipeline, so a server with many lights gets many small round trips. */
const BATCH = 500;

interface Group {
  readonly layout: InspectedLayout;
  readonly light: string;
  readonly systemId: string | null;
  readonly keys: string[];
}

const V6_KEY = /^stoplight:v6:([0-9a-f]{12}):\{([0-9a-f]{12})\}:window_metrics(?::ts_idx)?$/;
const V5_METADATA = 'stoplight:v5:metadata:';
const V5_METRICS = 'stoplight:v5:metrics:';

/** Which light a key belongs to, or null for a key of neither layout. */
function groupOf(key: string): Omit<Group, 'keys'> | null {
  const v6 = V6_KEY.exec(key);
  if (v6) return { layout: 'stoplight-v6', light: v6[2] as string, systemId: v6[1] as string };
  if (key.startsWith(V5_METADATA)) return { layout: 'stoplight-v5', light: key.slice(V5_METADATA.length), systemId: null };
  if (key.startsWith(V5_METRICS)) {
    const rest = key.slice(V5_METRICS.length);
    const cut = rest.lastIndexOf(':', rest.lastIndexOf(':') - 1);
    if (cut > 0 && V5_EVENTS_SUFFIX.test(rest.slice(cut + 1))) {
      return { layout: 'stoplight-v5', light: rest.slice(0, cut), systemId: null };
    }
  }
  return null;
}

interface KeyFacts {
  bytes: number;
  exact: boolean;
  first: number | null;
  last: number | null;
}

async function keyFacts(redis: Redis, keys: readonly string[]): Promise<Map<string, KeyFacts>> {
  const facts = new Map<string, KeyFacts>();
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH);
    const types = await keyTypes(redis, batch);
    const sizes = redis.pipeline();
    batch.forEach((key, j) => {
      if (types[j] === 'zset') {
        sizes.zcard(key);
        sizes.zrange(key, 0, 0, 'WITHSCORES');
        sizes.zrange(key, -1, -1, 'WITHSCORES');
      } else {
        sizes.hlen(key).echo('').echo('');
      }
    });
    // A key of an unexpected type makes HLEN fail; it still counts, with sampled bytes.
    const replies = ((await sizes.exec()) ?? []).map(([err, value]) => (err ? null : value));
    const memory = redis.pipeline();
    const exact = batch.map((_, j) => Number(replies[3 * j] ?? Infinity) <= EXACT_MEMORY_MAX_ELEMENTS);
    batch.forEach((key, j) => {
      if (exact[j]) memory.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
      else memory.call('MEMORY', 'USAGE', key);
    });
    const bytes = await exec(memory);
    batch.forEach((key, j) => {
      const first = replies[3 * j + 1];
      const last = replies[3 * j + 2];
      facts.set(key, {
        bytes: Number(bytes[j] ?? 0),
        exact: exact[j] ?? false,
        first: Array.isArray(first) && first.length === 2 ? Math.floor(Number(first[1])) : null,
        last: Array.isArray(last) && last.length === 2 ? Math.floor(Number(last[1])) : null,
      });
    });
  }
  return facts;
}

/**
 * Every Stoplight light on the server, found with SCAN, largest first. 6.0
 * keys only carry hashed ids, so 6.0 lights are listed by id.
 */
export async function listLights(redis: Redis): Promise<LightListing[]> {
  const groups = new Map<string, Group>();
  for (const pattern of ['stoplight:v5:*', 'stoplight:v6:*']) {
    for (const key of await scanKeys(redis, pattern)) {
      const group = groupOf(key);
      if (!group) continue;
      const id = `${group.layout}\u0000${group.systemId ?? ''}\u0000${group.light}`;
      const existing = groups.get(id) ?? { ...group, keys: [] };
      existing.keys.push(key);
      groups.set(id, existing);
    }
  }
  const facts = await keyFacts(
    redis,
    [...groups.values()].flatMap((g) => g.keys),
  );
  const listings = [...groups.values()].map((group): LightListing => {
    const of = group.keys.map((key) => facts.get(key)).filter((f): f is KeyFacts => f !== undefined);
    const firsts = of.map((f) => f.first).filter((s): s is number => s !== null);
    const lasts = of.map((f) => f.last).filter((s): s is number => s !== null);
    const firstSecond = firsts.length > 0 ? Math.min(...firsts) : null;
    const lastSecond = lasts.length > 0 ? Math.max(...lasts) : null;
    return {
      layout: group.layout,
      light: group.light,
      systemId: group.systemId,
      keys: group.keys.length,
      bytes: of.reduce((sum, f) => sum + f.bytes, 0),
      bytesExact: of.every((f) => f.exact),
      firstSecond,
      lastSecond,
      spanSeconds: firstSecond === null || lastSecond === null ? 0 : lastSecond - firstSecond + 1,
    };
  });
  return listings.sort((a, b) => b.bytes - a.bytes || a.light.localeCompare(b.light));
}
