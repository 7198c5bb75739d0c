import type { Redis } from 'ioredis';
import { createLayout, registeredLayouts } from '../layouts/index.js';
import { keyTypes, memoryUsage, scanKeys } from './keys.js';
import type { LightList, LightListing } from './types.js';

/** Keys described per pipeline, so a server with many lights gets many small round trips. */
const BATCH = 500;

interface Group {
  readonly layout: string;
  readonly light: string;
  readonly systemId: string | null;
  readonly keys: { key: string; scoresAreSeconds: boolean }[];
}

interface KeyFacts {
  bytes: number | null;
  exact: boolean;
  first: number | null;
  last: number | null;
}

async function keyFacts(
  redis: Redis,
  keys: readonly { key: string; scoresAreSeconds: boolean }[],
): Promise<{ facts: Map<string, KeyFacts>; unavailable: string | null }> {
  const facts = new Map<string, KeyFacts>();
  let unavailable: string | null = null;
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH);
    const types = await keyTypes(
      redis,
      batch.map((k) => k.key),
    );
    const sizes = redis.pipeline();
    batch.forEach(({ key }, j) => {
      if (types[j] === 'zset') {
        sizes.zcard(key);
        sizes.zrange(key, 0, 0, 'WITHSCORES');
        sizes.zrange(key, -1, -1, 'WITHSCORES');
      } else if (types[j] === 'hash') {
        sizes.hlen(key).echo('').echo('');
      } else {
        sizes.echo('').echo('').echo('');
      }
    });
    const replies = ((await sizes.exec()) ?? []).map(([err, value]) => (err ? null : value));
    const memory = await memoryUsage(
      redis,
      batch.map(({ key }, j) => {
        // A string is measured whole; a set, list or stream of unknown size is sampled rather than walked.
        const elements = types[j] === 'zset' || types[j] === 'hash' ? Number(replies[3 * j]) : types[j] === 'string' ? 0 : Number.POSITIVE_INFINITY;
        return { key, elements };
      }),
    );
    unavailable ??= memory.unavailable;
    batch.forEach(({ key, scoresAreSeconds }, j) => {
      const first = scoresAreSeconds ? replies[3 * j + 1] : null;
      const last = scoresAreSeconds ? replies[3 * j + 2] : null;
      facts.set(key, {
        bytes: memory.bytes[j] ?? null,
        exact: memory.exact[j] ?? false,
        first: Array.isArray(first) && first.length === 2 ? Math.floor(Number(first[1])) : null,
        last: Array.isArray(last) && last.length === 2 ? Math.floor(Number(last[1])) : null,
      });
    });
  }
  return { facts, unavailable };
}

/**
 * Every light of every registered layout on the server, found with SCAN on
 * each layout's patterns, largest first. A key belongs to the first layout
 * (in registration order) that claims it. Layouts whose keys carry only
 * hashed ids (6.0) list lights by id. Bytes are null, and `unavailable` says
 * why, when the server refuses MEMORY. `only` limits the search to these
 * registered layouts.
 */
export async function listLights(redis: Redis, only?: readonly string[]): Promise<LightList> {
  const layouts = only === undefined ? registeredLayouts() : only.map((name) => createLayout(name));
  const groups = new Map<string, Group>();
  const claimed = new Set<string>();
  const patterns: string[] = [];
  for (const layout of layouts) {
    for (const pattern of layout.inspector.scanPatterns()) {
      patterns.push(pattern);
      for (const key of await scanKeys(redis, pattern)) {
        if (claimed.has(key)) continue;
        const owner = layout.inspector.lightOfKey(key);
        if (!owner) continue;
        claimed.add(key);
        const id = `${layout.name}\u0000${owner.system ?? ''}\u0000${owner.light}`;
        const group = groups.get(id) ?? { layout: layout.name, light: owner.light, systemId: owner.system, keys: [] };
        group.keys.push({ key, scoresAreSeconds: owner.scoresAreSeconds });
        groups.set(id, group);
      }
    }
  }
  const { facts, unavailable } = await keyFacts(
    redis,
    [...groups.values()].flatMap((g) => g.keys),
  );
  const lights = [...groups.values()].map((group): LightListing => {
    const of = group.keys.map(({ key }) => facts.get(key)).filter((f): f is KeyFacts => f !== undefined);
    const firsts = of.map((f) => f.first).filter((s): s is number => s !== null);
    const lasts = of.map((f) => f.last).filter((s): s is number => s !== null);
    const firstSecond = firsts.length > 0 ? Math.min(...firsts) : null;
    const lastSecond = lasts.length > 0 ? Math.max(...lasts) : null;
    return {
      layout: group.layout,
      light: group.light,
      systemId: group.systemId,
      keys: group.keys.length,
      bytes: of.some((f) => f.bytes === null) ? null : of.reduce((sum, f) => sum + (f.bytes ?? 0), 0),
      bytesExact: of.every((f) => f.exact),
      firstSecond,
      lastSecond,
      spanSeconds: firstSecond === null || lastSecond === null ? 0 : lastSecond - firstSecond + 1,
    };
  });
  lights.sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0) || a.layout.localeCompare(b.layout) || a.light.localeCompare(b.light));
  return { lights, patterns: [...new Set(patterns)], unavailable: unavailable === null ? [] : [unavailable] };
}
