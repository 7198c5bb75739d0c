import type { Redis } from 'ioredis';
import { NotFoundError, UsageError } from '../errors.js';
import { shortId } from '../layouts/stoplight-v6.js';
import { DEFAULT_SYSTEM } from '../layouts/types.js';
import { serverInfo } from '../redis/info.js';
import { inspectV5, V5_EVENTS_SUFFIX, type V5Target } from './read-v5.js';
import { inspectV6, v6Keys, type V6Target } from './read-v6.js';
import type { InspectedLayout, Inspection, JudgeOptions } from './types.js';

/** What to inspect and how to judge it. */
export interface InspectRequest {
  /** A light name, a 12-hex 6.0 light id, or a full key of either layout. */
  readonly light: string;
  /** Which layout to read; `auto` reads every layout that has keys. */
  readonly layout?: InspectedLayout | 'auto';
  /** 6.0 system name; default {@link DEFAULT_SYSTEM}. */
  readonly system?: string;
  /** Window in seconds; default: a day for 5.x (its cap), none for 6.0. */
  readonly windowSeconds?: number;
  /** Judge at this Unix time (seconds) instead of the server's clock. */
  readonly at?: number;
}

const V5_PREFIX = 'stoplight:v5';
const V6_PREFIX = 'stoplight:v6';
const LIGHT_ID = /^[0-9a-f]{12}$/;
const V6_KEY = /^((?:.*:)?stoplight:v6):([0-9a-f]{12}):\{([0-9a-f]{12})\}(?::window_metrics(?::ts_idx)?)?$/;
const V5_METADATA_KEY = /^((?:.*:)?stoplight:v5):metadata:(.+)$/;
const V5_METRICS_KEY = /^((?:.*:)?stoplight:v5):metrics:(.+)$/;

/** Where to look for a light in each layout. */
interface Targets {
  readonly v5: V5Target | null;
  /** Candidates in order; the first with keys wins (an id, then the id of the name). */
  readonly v6: V6Target[];
}

/** Turns what the user typed into the keys to look at. */
export function resolveTargets(request: InspectRequest): Targets {
  const { light } = request;
  const layout = request.layout ?? 'auto';
  const fullKey = keyTarget(light);
  if (fullKey) {
    const keyLayout: InspectedLayout = fullKey.v5 ? 'stoplight-v5' : 'stoplight-v6';
    if (layout !== 'auto' && layout !== keyLayout) {
      throw new UsageError(`--layout: "${light}" is a ${keyLayout} key, but --layout ${layout} was given`);
    }
    return fullKey;
  }
  const systemId = shortId(request.system ?? DEFAULT_SYSTEM);
  const ids = LIGHT_ID.test(light) ? [light, shortId(light)] : [shortId(light)];
  return {
    v5: layout === 'stoplight-v6' ? null : { light, prefix: V5_PREFIX, name: light },
    v6: layout === 'stoplight-v5' ? [] : ids.map((lightId) => ({ light, prefix: V6_PREFIX, systemId, lightId })),
  };
}

function keyTarget(key: string): Targets | null {
  const v6 = V6_KEY.exec(key);
  if (v6) return { v5: null, v6: [{ light: key, prefix: v6[1] as string, systemId: v6[2] as string, lightId: v6[3] as string }] };
  const metadata = V5_METADATA_KEY.exec(key);
  if (metadata) return { v5: { light: key, prefix: metadata[1] as string, name: metadata[2] as string }, v6: [] };
  const metrics = V5_METRICS_KEY.exec(key);
  if (metrics) {
    const rest = metrics[2] as string;
    // The name may hold colons; the last two parts are outcome and hour.
    const cut = rest.lastIndexOf(':', rest.lastIndexOf(':') - 1);
    if (cut > 0 && V5_EVENTS_SUFFIX.test(rest.slice(cut + 1))) {
      return { v5: { light: key, prefix: metrics[1] as string, name: rest.slice(0, cut) }, v6: [] };
    }
  }
  return null;
}

/** The server's clock, floored to the second. */
async function serverSecond(redis: Redis): Promise<number> {
  const [seconds] = await redis.time();
  return Number(seconds);
}

/**
 * Looks inside one light on `redis`, read-only, in every layout asked for
 * that has keys (5.x first). Throws {@link NotFoundError} when none has.
 */
export async function inspectLight(redis: Redis, request: InspectRequest): Promise<Inspection[]> {
  const targets = resolveTargets(request);
  const server = await serverInfo(redis);
  const given = request.at !== undefined;
  const at = given ? Math.floor(request.at as number) : await serverSecond(redis);
  const judge = (windowSeconds: number | null): JudgeOptions => ({ windowSeconds, at, clock: given ? 'given' : 'server' });

  const found: Inspection[] = [];
  if (targets.v5) {
    const v5 = await inspectV5(redis, targets.v5, judge(request.windowSeconds ?? null), server);
    if (v5) found.push(v5);
  }
  for (const target of targets.v6) {
    const v6 = await inspectV6(redis, target, judge(request.windowSeconds ?? null), server);
    if (v6) {
      found.push(v6);
      break;
    }
  }
  if (found.length === 0) throw new NotFoundError(notFoundMessage(request.light, targets));
  return found;
}

function notFoundMessage(light: string, targets: Targets): string {
  const looked: string[] = [];
  if (targets.v5) {
    looked.push(`${targets.v5.prefix}:metadata:${targets.v5.name}`, `${targets.v5.prefix}:metrics:${targets.v5.name}:*`);
  }
  for (const target of targets.v6) looked.push(v6Keys(target)[0]?.key ?? '');
  return `light "${light}" not found: no key ${looked.join(', ')} (try swc inspect --list)`;
}
