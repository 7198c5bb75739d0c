import type { Redis } from 'ioredis';
import { NotFoundError, UsageError } from '../core/errors.js';
import { createLayout, registeredLayouts } from '../layouts/index.js';
import type { InspectTarget, Layout } from '../layouts/types.js';
import { readEncodingLimits } from '../layouts/inspection-keys.js';
import { SWC_VERSION } from '../core/version.js';
import type { BucketInspection, EventInspection, Inspection, JudgeOptions, KeysInspection, WindowView } from '../layouts/inspection.js';
import { isoMoment } from '../core/format.js';
import type { NameBook } from '../layouts/stoplight/names.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

/** What to inspect and how to judge it. */
export interface InspectRequest {
  /** A light name, an id, or a full key of any registered layout. */
  readonly light: string;
  /** Which registered layout to read; `auto` (default) reads every layout that has keys. */
  readonly layout?: string;
  /** System name, for layouts that scope lights by system; default `default`. */
  readonly system?: string;
  /** Window in seconds; default: the layout's (5.x: a day, its cap; otherwise none). */
  readonly windowSeconds?: number;
  /** Judge at this Unix time (seconds) instead of the server's clock. */
  readonly at?: number;
}

/** Where one layout will look for the light, in order (the first with keys wins). */
export interface LayoutTargets {
  readonly layout: Layout;
  readonly targets: readonly InspectTarget[];
}

/**
 * Turns what the user typed into the places to look, per registered layout:
 * a full key of a layout gives only that layout's light (and must agree with
 * `layout` when one is asked for); a name or id is looked for in every
 * layout, or only in the one asked for.
 */
export function resolveTargets(request: InspectRequest, names?: NameBook): LayoutTargets[] {
  const asked = request.layout ?? 'auto';
  const layouts = registeredLayouts();
  const owner = layouts.find((l) => l.inspector.lightOfKey(request.light) !== null);
  const target = { light: request.light, ...(request.system !== undefined ? { system: request.system } : {}), ...(names ? { names } : {}) };
  if (owner) {
    if (asked !== 'auto' && asked !== owner.name) {
      throw new UsageError(`--layout: "${request.light}" is a ${owner.name} key, but --layout ${asked} was given`);
    }
    return [{ layout: owner, targets: owner.inspector.targetsFor(target) }];
  }
  const chosen = asked === 'auto' ? layouts : [createLayout(asked)];
  return chosen.map((layout) => ({ layout, targets: layout.inspector.targetsFor(target) }));
}

/** The server's clock, floored to the second. */
async function serverSecond(redis: Redis): Promise<number> {
  const [seconds] = await redis.time();
  return Number(seconds);
}

/**
 * Looks inside one light on `redis`, read-only, in every layout asked for
 * that has keys (in registration order). Throws {@link NotFoundError} when
 * none has. What the server refuses to tell (bytes without MEMORY, limits
 * without CONFIG) is left null and named in each inspection's `unavailable`.
 */
export async function inspectLight(redis: Redis, request: InspectRequest, nodeOf?: (key: string) => string, names?: NameBook): Promise<Inspection[]> {
  const plan = resolveTargets(request, names);
  const { limits, unavailable } = await readEncodingLimits(redis);
  const given = request.at !== undefined;
  const at = given ? Math.floor(request.at as number) : await serverSecond(redis);
  const judge: JudgeOptions = { windowSeconds: request.windowSeconds ?? null, at, clock: given ? 'given' : 'server' };

  const found: Inspection[] = [];
  for (const { layout, targets } of plan) {
    for (const target of targets) {
      const inspection = await layout.inspector.inspect(redis, target, judge, limits);
      if (inspection) {
        const placed = nodeOf ? { ...inspection, keys: inspection.keys.map((k) => ({ ...k, node: nodeOf(k.key) })) } : inspection;
        found.push(unavailable === null ? placed : { ...placed, unavailable: [...placed.unavailable, unavailable] });
        break;
      }
    }
  }
  if (found.length === 0) {
    const looked = plan.flatMap((p) => p.targets.flatMap((t) => t.lookedFor));
    throw new NotFoundError(`light "${request.light}" not found: no key ${looked.join(', ')} (try swc lights)`);
  }
  return found;
}

/** A moment of the document: ISO 8601 where the inspection holds Unix seconds (docs/output.md). */
type Moments<T, K extends keyof T> = Omit<T, K> & { readonly [P in K]: null extends T[P] ? string | null : string };

/** An inspection as `--json` prints it: the judged moment and `recovered_at` as ISO 8601. */
export type InspectionJson =
  | (Omit<BucketInspection | KeysInspection, 'window'> & { readonly window: Moments<WindowView, 'at'> })
  | (Omit<EventInspection, 'window' | 'recoveredAt'> & { readonly window: Moments<WindowView, 'at'>; readonly recoveredAt: string | null });

/** What `swc inspect --json` prints: one object. */
export interface InspectDocument {
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly swcVersion: string;
  /** What was asked for, as given (`at` as ISO 8601). */
  readonly request: Moments<InspectRequest, 'at'> | Omit<InspectRequest, 'at'>;
  /** True when any inspection found drift (running totals or index against the buckets). */
  readonly drift: boolean;
  /** One per layout that holds the light, in registration order. */
  readonly inspections: readonly InspectionJson[];
  /** On Redis Cluster: every primary (`host:port`, slot ranges); each key then names its `node`. */
  readonly cluster?: { readonly primaries: readonly { readonly node: string; readonly slots: string }[] };
}

function inspectionJson(i: Inspection): InspectionJson {
  const window = { ...i.window, at: isoMoment(i.window.at) };
  const state = i.state ? { state: { ...i.state, since: i.state.since === null ? null : isoMoment(i.state.since) } } : {};
  return i.kind === 'events'
    ? ({ ...i, window, recoveredAt: i.recoveredAt === null ? null : isoMoment(i.recoveredAt), ...state } as InspectionJson)
    : ({ ...i, window, ...state } as InspectionJson);
}

/** The JSON document of an inspection (see README, "inspect --json"). */
export function inspectionDocument(request: InspectRequest, inspections: readonly Inspection[], cluster?: InspectDocument['cluster']): InspectDocument {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    request: request.at === undefined ? request : { ...request, at: isoMoment(request.at) },
    drift: inspections.some((i) => i.kind === 'buckets' && !i.drift.ok),
    inspections: inspections.map(inspectionJson),
    ...(cluster ? { cluster } : {}),
  };
}
