/**
 * Demo lights on a user's server, marked so that `swc clean` can prove they
 * are swc's and remove exactly them. Each key's name carries the demo's id
 * (`swc-demo:<8 hex>:` in front of every 5.x light name, and of every 6.0
 * key, whose system and light show only as hashes: `swc-demo:<8 hex>:stoplight:v6:…`,
 * under the system id of a marked system name too), and one marker
 * hash `swc-demo:<8 hex>:run` lists every key the demo wrote. clean removes a
 * key only when the marker lists it AND its name has the demo's shape: a
 * look-alike key of a user's (same shape, no marker; or a marker that does
 * not list it) is never touched.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RefusalError } from '../core/errors.js';
import { SWC_VERSION } from '../core/version.js';
import { nameId } from '../layouts/kit/keys.js';
import { DEMO_LIGHTS, demoV6Prefix, type DemoNaming } from './lights.js';

/** Every demo's marker and marked names start with this. */
export const DEMO_ROOT = 'swc-demo:';
const MARKER = /^swc-demo:([0-9a-f]{8}):run$/;
/** As long as the longest-lived demo key (7 days) plus an hour. */
const MARKER_TTL_SECONDS = 7 * 86400 + 3600;

/** A demo's id and the naming it writes with. */
export interface DemoMark extends DemoNaming {
  /** `swc-demo:<8 hex>`. */
  readonly prefix: string;
}

export function createDemoMark(): DemoMark {
  const prefix = `${DEMO_ROOT}${randomBytes(4).toString('hex')}`;
  return { prefix, mark: `${prefix}:` };
}

const markerKey = (prefix: string): string => `${prefix}:run`;

/** The 6.0 system ids a demo's marked system names hash to. */
function systemIds(prefix: string): string[] {
  return [...new Set(DEMO_LIGHTS.filter((l) => l.layout === 'stoplight-v6').map((l) => nameId(`${prefix}:${l.system ?? 'default'}`)))];
}

/** Whether `key` has the shape of a key of demo `prefix`: a 5.x key of a marked name, or a 6.0 key under the demo's 6.0 prefix and a marked system. */
export function isDemoKey(prefix: string, key: string): boolean {
  if (key.startsWith(`stoplight:v5:metadata:${prefix}:`) || key.startsWith(`stoplight:v5:metrics:${prefix}:`)) return true;
  const v6 = demoV6Prefix({ mark: `${prefix}:` });
  return systemIds(prefix).some((id) => key.startsWith(`${v6}:${id}:`));
}

/** Refuses (before any write) when a key the demo would write exists already. */
export async function refuseCollisions(redis: Redis, keys: readonly string[]): Promise<void> {
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.exists(key);
  const replies = (await pipeline.exec()) ?? [];
  const taken = keys.filter((_, i) => Number(replies[i]?.[1] ?? 0) > 0);
  if (taken.length > 0) {
    throw new RefusalError(`swc demo: ${taken.length} key(s) it would write exist already (first: ${taken[0] as string}): nothing written`);
  }
}

/** Writes the marker listing `keys` (before the keys themselves, so a demo cut short is still clean's to remove). */
export async function markDemo(redis: Redis, mark: DemoMark, keys: readonly string[], startedAt: number): Promise<void> {
  await redis.hset(markerKey(mark.prefix), {
    origin: 'swc',
    kind: 'demo',
    runId: mark.prefix.slice(DEMO_ROOT.length),
    startedAt: String(startedAt),
    host: os.hostname(),
    pid: String(process.pid),
    swcVersion: SWC_VERSION,
    keys: JSON.stringify(keys),
  });
  await redis.expire(markerKey(mark.prefix), MARKER_TTL_SECONDS);
}

/** A demo found on a server. */
export interface FoundDemo {
  readonly prefix: string;
  /** Its keys that exist now (those its marker lists and that have the demo's shape). */
  readonly keys: readonly string[];
  /** Sum of MEMORY USAGE … SAMPLES 0 over those keys; null when MEMORY is not allowed. */
  readonly bytes: number | null;
  readonly startedAt: number | null;
  readonly host: string | null;
  readonly pid: number | null;
  /** The marker proves swc wrote it; else the key under `swc-demo:` is someone else's and left alone. */
  readonly marked: boolean;
}

/** What a marker lists, when it is one of swc's: the keys of the demo's shape; null for anything else. */
function listedKeys(prefix: string, marker: Readonly<Record<string, string>>): string[] | null {
  if (marker.origin !== 'swc' || marker.kind !== 'demo' || marker.runId !== prefix.slice(DEMO_ROOT.length)) return null;
  if (!/^\d{10,16}$/.test(marker.startedAt ?? '')) return null;
  try {
    const keys: unknown = JSON.parse(marker.keys ?? '');
    if (!Array.isArray(keys)) return null;
    return keys.filter((k): k is string => typeof k === 'string' && isDemoKey(prefix, k));
  } catch {
    return null;
  }
}

/** Every demo marker on the server (SCAN `swc-demo:*:run`), with its keys that exist. Read-only. */
export async function listDemos(redis: Redis): Promise<FoundDemo[]> {
  const markers = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${DEMO_ROOT}*:run`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) if (MARKER.test(key)) markers.add(key);
  } while (cursor !== '0');
  const out: FoundDemo[] = [];
  for (const key of [...markers].sort()) {
    const prefix = key.slice(0, -':run'.length);
    const isHash = (await redis.type(key).catch(() => 'none')) === 'hash';
    const marker: Record<string, string> = isHash ? await redis.hgetall(key) : {};
    const listed = listedKeys(prefix, marker);
    let present: string[] = [];
    let bytes: number | null = 0;
    if (listed !== null && listed.length > 0) {
      const pipeline = redis.pipeline();
      for (const k of listed) pipeline.exists(k);
      const replies = (await pipeline.exec()) ?? [];
      present = listed.filter((_, i) => Number(replies[i]?.[1] ?? 0) > 0);
      const sizes = redis.pipeline();
      for (const k of present) sizes.call('MEMORY', 'USAGE', k, 'SAMPLES', '0');
      const sized = (await sizes.exec()) ?? [];
      bytes = sized.some(([err]) => err) ? null : sized.reduce((sum, [, n]) => sum + Number(n ?? 0), 0);
    }
    out.push({
      prefix,
      keys: present,
      bytes,
      startedAt: listed === null ? null : Number(marker.startedAt),
      host: listed === null ? null : (marker.host ?? null),
      pid: listed === null ? null : Number(marker.pid) || null,
      marked: listed !== null,
    });
  }
  return out;
}

/** Removes a marked demo: its keys, then its marker. Returns the keys removed (the marker included). */
export async function removeDemo(redis: Redis, demo: FoundDemo): Promise<number> {
  if (!demo.marked) throw new RefusalError(`${demo.prefix}: no marker of swc's: not removed`);
  // One DEL per key: a demo has a few dozen keys, and on a cluster each may sit in its own slot.
  const pipeline = redis.pipeline();
  for (const key of [...demo.keys, markerKey(demo.prefix)]) pipeline.del(key);
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([err]) => err);
  if (failed?.[0]) throw failed[0];
  return replies.reduce((sum, [, n]) => sum + Number(n ?? 0), 0);
}
