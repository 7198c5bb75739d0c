import type { Redis } from 'ioredis';
import { readView, type ReadWhere } from '../run/read.js';
import { NotFoundError, UsageError } from '../core/errors.js';
import { createLayout, registeredLayouts } from '../layouts/index.js';
import type { InspectTarget, Layout } from '../layouts/types.js';
import { exec, keyTypes, readEncodingLimits, readHash } from '../layouts/inspection-keys.js';
import { DEFAULT_SYSTEM, type KeySearch } from '../layouts/types.js';
import { globToRegExp, scanOnce, type ScanControl } from '../redis/scan.js';
import { closestNames, orList } from '../core/suggest.js';
import { addRegistry, nameId, newNameBook, registrySystemOf } from '../layouts/stoplight/names.js';
import { SWC_VERSION } from '../core/version.js';
import type { BucketInspection, EncodingLimits, EventInspection, Inspection, JudgeOptions, KeysInspection, WindowView } from '../layouts/inspection.js';
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

/** The server's clock, to the microsecond of its TIME. */
async function serverMoment(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) + Number(micros) / 1e6;
}

/** Names met during the pass that suggestions are drawn from, at most (a bound on memory, not a sample). */
const MAX_SEEN_NAMES = 10_000;
/** Registry hashes read for suggestions, at most. */
const MAX_REGISTRIES = 16;
/** Fields of a registry read for suggestions, at most. */
const MAX_REGISTRY_FIELDS = 100_000;
/** Prefixes a Stoplight registry of light configs lives under (names.ts, REGISTRY_KEY). */
const REGISTRY_PREFIXES = ['stoplight:v6', 'stoplight:v5'];

/** What a miss saw: names to suggest from. */
interface Seen {
  readonly names: Set<string>;
  readonly registries: Set<string>;
}

/** Reads every layout's targets in order, the first target with keys winning per layout. */
async function readPlan(
  redis: Redis,
  plan: readonly LayoutTargets[],
  judge: JudgeOptions,
  limits: EncodingLimits,
  search: ((layout: string) => KeySearch) | undefined,
): Promise<Inspection[]> {
  const found: Inspection[] = [];
  for (const { layout, targets } of plan) {
    for (const target of targets) {
      const inspection = await layout.inspector.inspect(redis, target, judge, limits, search?.(layout.name));
      if (inspection) {
        found.push(inspection);
        break;
      }
    }
  }
  return found;
}

/**
 * Looks inside one light on `redis`, read-only, in every layout asked for
 * that has keys (in registration order). Throws {@link NotFoundError} when
 * none has. What the server refuses to tell (bytes without MEMORY, limits
 * without CONFIG) is left null and named in each inspection's `unavailable`.
 *
 * With `--layout auto` and a name or id, the keys each layout can name
 * (6.0's hash and index under the system, 5.x's metadata and hour keys) are
 * read first, with no SCAN. Only when none exists does one paced SCAN pass
 * walk the keyspace for every layout at once (the keys only SCAN can find,
 * and the names a miss suggests from).
 */
export async function inspectLight(
  where: ReadWhere,
  request: InspectRequest,
  nodeOfKey?: (key: string) => string,
  names?: NameBook,
  scan: Pick<ScanControl, 'count'> = {},
): Promise<Inspection[]> {
  // A Target (the one door's, read-only) names each key's primary on a cluster; a bare connection reads one server.
  const view = readView(where);
  const { redis } = view;
  const nodeOf = nodeOfKey ?? view.nodeOf;
  const plan = resolveTargets(request, names);
  const { limits, unavailable } = await readEncodingLimits(redis);
  const given = request.at !== undefined;
  const moment = given ? (request.at as number) : await serverMoment(redis);
  const at = Math.floor(moment);
  const judge: JudgeOptions = { windowSeconds: request.windowSeconds ?? null, at, moment, clock: given ? 'given' : 'server' };

  const auto = (request.layout ?? 'auto') === 'auto' && !registeredLayouts().some((l) => l.inspector.lightOfKey(request.light) !== null);
  let found: Inspection[];
  const seen: Seen = { names: new Set(), registries: new Set() };
  if (auto) {
    // Known keys only: a search that finds nothing, and notes what a pass would look for, and for which layout.
    const wanted = new Set<string>();
    const unnamed = new Set<string>();
    const firstRead = await readPlan(redis, plan, judge, limits, (layout) => (pattern, why) => {
      wanted.add(pattern);
      if (why === 'unnamed') unnamed.add(layout);
      return Promise.resolve([]);
    });
    const hit = new Set(firstRead.map((i) => i.layout));
    // The pass: when nothing was found, or a Stoplight layout could not name its keys (6.0 without --system).
    const pass = hit.size === 0 || [...unnamed].some((l) => !hit.has(l) && l.startsWith('stoplight-'));
    if (pass) {
      const keys = await onePass(redis, [...wanted], seen, scan);
      const rest = await readPlan(
        redis,
        plan.filter((p) => !hit.has(p.layout.name)),
        judge,
        limits,
        () => (pattern) => {
          const test = globToRegExp(pattern);
          return Promise.resolve(keys.filter((k) => test.test(k)));
        },
      );
      const order = plan.map((p) => p.layout.name);
      found = [...firstRead, ...rest].sort((x, y) => order.indexOf(x.layout) - order.indexOf(y.layout));
    } else {
      found = firstRead;
    }
  } else {
    found = await readPlan(redis, plan, judge, limits, undefined);
  }
  if (found.length === 0) {
    // swc's own designs' keys would only crowd the line: name the Stoplight keys looked for, unless a design was asked for.
    const looked = plan.filter((p) => !auto || p.layout.name.startsWith('stoplight-')).flatMap((p) => p.targets.flatMap((t) => t.lookedFor));
    const suggestions = closestNames(request.light, await knownNames(redis, request, names, seen));
    const hint = suggestions.length > 0 ? `; did you mean ${orList(suggestions)}?` : '';
    throw new NotFoundError(`light "${request.light}" not found: no key ${looked.join(', ')}${hint} (try swc lights)`);
  }
  return found.map((inspection) => {
    const placed = nodeOf ? { ...inspection, keys: inspection.keys.map((k) => ({ ...k, node: nodeOf(k.key) })) } : inspection;
    return unavailable === null ? placed : { ...placed, unavailable: [...placed.unavailable, unavailable] };
  });
}

/**
 * The one SCAN pass of a miss: the keys matching `wanted` (what the layouts'
 * targets could only find by SCAN), and, from every key of every layout, the
 * names met and any Stoplight registry (into `seen`).
 */
async function onePass(redis: Redis, wanted: readonly string[], seen: Seen, scan: Pick<ScanControl, 'count'>): Promise<string[]> {
  const layouts = registeredLayouts();
  const tests = wanted.map(globToRegExp);
  const keys: string[] = [];
  const patterns = [...wanted, ...layouts.flatMap((l) => l.inspector.scanPatterns()), ...REGISTRY_PREFIXES.map((p) => `${p}:*`)];
  await scanOnce(
    redis,
    patterns,
    (key) => {
      if (tests.some((t) => t.test(key))) keys.push(key);
      if (registrySystemOf(key) !== null) {
        if (seen.registries.size < MAX_REGISTRIES) seen.registries.add(key);
        return;
      }
      if (seen.names.size >= MAX_SEEN_NAMES) return;
      for (const layout of layouts) {
        const owner = layout.inspector.lightOfKey(key);
        if (!owner) continue;
        // 6.0 keys carry ids, not names: its names come from a registry or --names.
        if (!(/^[0-9a-f]{12}$/.test(owner.light) && owner.system !== null)) seen.names.add(owner.light);
        break;
      }
    },
    scan,
  );
  return keys;
}

/**
 * Names a miss suggests from: --names, the registries of the system asked
 * for and of `default`, those the pass met, and the names its keys carry.
 */
async function knownNames(redis: Redis, request: InspectRequest, names: NameBook | undefined, seen: Seen): Promise<string[]> {
  const book = newNameBook();
  if (names) for (const [id, name] of names.lights) book.lights.set(id, name);
  const systems = new Set([nameId(DEFAULT_SYSTEM)]);
  if (request.system !== undefined) systems.add(/^[0-9a-f]{12}$/.test(request.system) ? request.system : nameId(request.system));
  const registries = new Set([...REGISTRY_PREFIXES.flatMap((p) => [...systems].map((id) => `${p}:${id}:lights`)), ...seen.registries]);
  const list = [...registries];
  const types = await keyTypes(redis, list);
  const hashes = list.filter((_, i) => types[i] === 'hash');
  const sizes = hashes.length === 0 ? [] : await exec(hashes.reduce((p, key) => p.hlen(key), redis.pipeline()));
  for (const [i, key] of hashes.entries()) {
    // A registry larger than any application's is not read for a hint.
    if (Number(sizes[i]) <= MAX_REGISTRY_FIELDS) addRegistry(book, key, await readHash(redis, key));
  }
  return [...seen.names, ...book.lights.values()];
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
  /** The server read, without credentials (or the snapshot file), as the table's first line names it. */
  readonly server?: string;
  /** What was not measured there (a figure the server refused; with --rdb the live server's bytes). */
  readonly notMeasured?: readonly string[];
  /** What was asked for, as given (`at` as ISO 8601). */
  readonly request: Moments<InspectRequest, 'at'> | Omit<InspectRequest, 'at'>;
  /** True when any inspection found drift (running totals or index against the buckets). */
  readonly drift: boolean;
  /** One per layout that holds the light, in registration order. */
  readonly inspections: readonly InspectionJson[];
  /** On Redis Cluster: every primary (`host:port`, slot ranges); each key then names its `node`. */
  readonly cluster?: { readonly primaries: readonly { readonly node: string; readonly slots: string }[] };
  /** Set (with no inspection) when no layout holds the light: why, as the stderr line says it (exit 1). */
  readonly notFound?: string;
}

function inspectionJson(i: Inspection): InspectionJson {
  const window = { ...i.window, at: isoMoment(i.window.at) };
  const state = i.state ? { state: { ...i.state, since: i.state.since === null ? null : isoMoment(i.state.since) } } : {};
  return i.kind === 'events'
    ? ({ ...i, window, recoveredAt: i.recoveredAt === null ? null : isoMoment(i.recoveredAt), ...state } as InspectionJson)
    : ({ ...i, window, ...state } as InspectionJson);
}

/** The JSON document of an inspection (see README, "inspect --json"). */
export function inspectionDocument(
  request: InspectRequest,
  inspections: readonly Inspection[],
  cluster?: InspectDocument['cluster'],
  server?: { readonly where: string; readonly notMeasured: readonly string[] },
): InspectDocument {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    ...(server !== undefined ? { server: server.where, notMeasured: server.notMeasured } : {}),
    request: request.at === undefined ? request : { ...request, at: isoMoment(request.at) },
    drift: inspections.some((i) => i.kind === 'buckets' && !i.drift.ok),
    inspections: inspections.map(inspectionJson),
    ...(cluster ? { cluster } : {}),
  };
}
