import type { Redis } from 'ioredis';
import { readView, type ReadWhere } from '../run/read.js';
import { UsageError } from '../core/errors.js';
import { createLayout, registeredLayouts } from '../layouts/index.js';
import type { Layout } from '../layouts/types.js';
import { keyTypes, memoryUsage, readHash } from '../layouts/inspection-keys.js';
import { rdbBoundOf } from './rdb-bound.js';
import { maxOf, minOf, pushAll } from '../core/arrays.js';
import {
  addRegistry,
  isLiteral,
  nameId,
  namesOf,
  newNameBook,
  parseRegistryEntry,
  REGISTRY_KEY,
  registrySystemOf,
  type NameBook,
} from '../layouts/stoplight/names.js';
import { configView, trippingOf } from '../layouts/stoplight/traffic-control.js';
import { scanOnce, type ScanControl } from '../redis/scan.js';
import { lightStates, type LightStateName } from '../layouts/stoplight/state.js';
import type { LightOrder } from './list-options.js';

export { lightOrders, parseStates, type LightOrder } from './list-options.js';
import type { JudgeOptions, LayoutTotals, LightHealth, LightList, LightListing, NodeShare, NodeTotals, SurveyLight } from '../layouts/inspection.js';

/** Keys described per pipeline, so a server with many lights gets many small round trips. */
const BATCH = 500;

interface GroupKey {
  key: string;
  scoresAreSeconds: boolean;
  /** The type the layout keeps under this name; null when any type may be (keys read from templates). */
  expectedType: string | null;
  role: string;
  /** What a listing calls the key's kind (6.0: its suffix); the role otherwise. */
  kind: string;
}

interface Group {
  readonly layout: Layout;
  readonly light: string;
  readonly systemId: string | null;
  readonly keys: GroupKey[];
  /** The light has an entry in its system's Stoplight registry (6.0). */
  registered?: boolean;
}

interface KeyFacts {
  type: string;
  elements: number;
  bytes: number | null;
  exact: boolean;
  first: number | null;
  last: number | null;
}

async function keyFacts(
  redis: Redis,
  keys: readonly { key: string; scoresAreSeconds: boolean }[],
  exactMaxElements?: number,
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
    const elementsOf = (j: number): number =>
      // A string is measured whole; a set, list or stream of unknown size is sampled rather than walked.
      types[j] === 'zset' || types[j] === 'hash' ? Number(replies[3 * j]) : types[j] === 'string' ? 0 : Number.POSITIVE_INFINITY;
    const memory = await memoryUsage(
      redis,
      batch.map(({ key }, j) => ({ key, elements: elementsOf(j) })),
      exactMaxElements,
    );
    unavailable ??= memory.unavailable;
    batch.forEach(({ key, scoresAreSeconds }, j) => {
      const first = scoresAreSeconds ? replies[3 * j + 1] : null;
      const last = scoresAreSeconds ? replies[3 * j + 2] : null;
      facts.set(key, {
        type: types[j] ?? 'none',
        elements: elementsOf(j),
        bytes: memory.bytes[j] ?? null,
        exact: memory.exact[j] ?? false,
        first: Array.isArray(first) && first.length === 2 ? Math.floor(Number(first[1])) : null,
        last: Array.isArray(last) && last.length === 2 ? Math.floor(Number(last[1])) : null,
      });
    });
  }
  return { facts, unavailable };
}

const NO_HEALTH: LightHealth = { events: null, staleEvents: null, staleBuckets: null, drift: null, window: null };

/** What to list and how to judge it. */
export interface ListOptions {
  /** Only these registered layouts (default every one). */
  readonly only?: readonly string[];
  /** Window for stale events and estimates, in seconds; default none (each layout says what it uses without one). */
  readonly windowSeconds?: number | null;
  /** Unix seconds to judge at; default the server's clock. */
  readonly at?: number;
  /** On Redis Cluster: the primary (`host:port`) that holds a key; each light then says where its keys are. */
  readonly nodeOf?: (key: string) => string;
  /** On Redis Cluster: every primary, so the per-node totals name the empty ones too. */
  readonly nodes?: readonly string[];
  /** Names known for 6.0 ids (a `--names` file, literal `--system`/`--match`); registries found on the server are added to it. */
  readonly names?: NameBook;
  /** Pace, progress and Ctrl-C of the one SCAN pass. */
  readonly scan?: ScanControl;
  /** A server of swc's own (an RDB snapshot): every MEMORY USAGE exact (SAMPLES 0), however large the key. */
  readonly exactMemory?: boolean;
  /** An RDB snapshot loaded on swc's own server: each light carries how far the live server's bytes can be from its own ({@link rdbBoundOf}). */
  readonly snapshot?: boolean;
}

/** Keys of benchmark runs: a namespace `swc-bench:<8 hex>`, whatever follows. */
const BENCH_KEY = /^(swc-bench:[0-9a-f]{8}):/;
const BENCH_PATTERN = 'swc-bench:*';
/**
 * The 6.0 keys `swc demo --write` makes on a user's server, under the demo's
 * mark (`swc-demo:<8 hex>:stoplight:v6:…`, src/demo/lights.ts): read as
 * lights (an inspector reads a key with a namespace in front as its own).
 */
const DEMO_PATTERN = 'swc-demo:*';

/**
 * Every light of the layouts asked for (default every registered one) on
 * the server, found in ONE SCAN pass whose keys are matched here against
 * every layout's patterns, largest first, with each light's health from its
 * layout's survey where the layout has one (events held, stale events,
 * drift, failures in the window, an estimate in another layout). A key
 * belongs to the first layout (in the order given) that claims it; a key of
 * the wrong type under a layout's names is a problem, never a light. Bytes
 * are null, and `unavailable` says why, when the server refuses MEMORY.
 * Read-only.
 */
export async function listLights(where: ReadWhere, options: ListOptions | readonly string[] = {}): Promise<LightList> {
  const asked: ListOptions = Array.isArray(options) ? { only: options as readonly string[] } : (options as ListOptions);
  // A Target (the one door's, read-only): on a cluster every primary is scanned and each key named by its primary.
  const view = readView(where);
  const { redis } = view;
  const opts: ListOptions = {
    ...(view.nodeOf && asked.nodeOf === undefined ? { nodeOf: view.nodeOf } : {}),
    ...(view.primaries && asked.nodes === undefined ? { nodes: view.primaries.map((p) => p.node) } : {}),
    ...asked,
  };
  const layouts = opts.only === undefined ? registeredLayouts() : opts.only.map((name) => createLayout(name));
  const given = opts.at !== undefined;
  // The colour rule compares Stoplight's fractional stamps with the moment itself; windows count whole seconds.
  const [seconds, micros] = given ? [opts.at as number, 0] : (await redis.time()).map(Number);
  const moment = (seconds as number) + (micros as number) / 1e6;
  const at = Math.floor(moment);
  const judge: JudgeOptions = { windowSeconds: opts.windowSeconds ?? null, at, moment, clock: given ? 'given' : 'server' };
  const names = opts.names ?? newNameBook();
  const groups = new Map<string, Group>();
  const patterns = [...new Set(layouts.flatMap((layout) => layout.inspector.scanPatterns()))];
  const registries: string[] = [];
  const leftovers = new Map<string, number>();
  const scan = await scanOnce(
    redis,
    [...patterns, BENCH_PATTERN, DEMO_PATTERN],
    (key) => {
      const bench = BENCH_KEY.exec(key);
      if (bench) {
        leftovers.set(bench[1] as string, (leftovers.get(bench[1] as string) ?? 0) + 1);
        return;
      }
      if (registrySystemOf(key) !== null) {
        registries.push(key);
        return;
      }
      for (const layout of layouts) {
        const owner = layout.inspector.lightOfKey(key);
        if (!owner) continue;
        const id = `${layout.name}\u0000${owner.system ?? ''}\u0000${owner.light}`;
        const group = groups.get(id) ?? { layout, light: owner.light, systemId: owner.system, keys: [] };
        group.keys.push({
          key,
          scoresAreSeconds: owner.scoresAreSeconds,
          expectedType: owner.expectedType ?? null,
          role: owner.role,
          kind: owner.kind ?? owner.role,
        });
        groups.set(id, group);
        return;
      }
    },
    opts.scan ?? {},
  );
  const problems: string[] = [];
  for (const key of registries.sort()) {
    let fields: Map<string, string>;
    try {
      fields = await readHash(redis, key);
    } catch (err) {
      // A key of the wrong type under the registry's name is not a registry.
      if (!(err instanceof Error && /WRONGTYPE/.test(err.message))) throw err;
      problems.push(`${key} is not a hash: not a Stoplight registry of light configs, not read`);
      continue;
    }
    pushAll(problems, addRegistry(names, key, fields));
    // Every registered light is a light, with keys or without (locked before any traffic: only its state; or none yet).
    const [, prefix, systemId] = REGISTRY_KEY.exec(key) ?? [];
    if (prefix === undefined || systemId === undefined) continue;
    for (const [field, value] of fields) {
      const entry = parseRegistryEntry(field, value);
      if (entry === null) continue;
      const probe = `${prefix}:${systemId}:{${entry.lightId}}:state`;
      const layout = layouts.find((l) => l.inspector.lightOfKey(probe) !== null);
      if (!layout) continue;
      const id = `${layout.name}\u0000${systemId}\u0000${entry.lightId}`;
      const group = groups.get(id) ?? { layout, light: entry.lightId, systemId, keys: [] };
      group.registered = true;
      groups.set(id, group);
    }
  }
  for (const group of groups.values()) group.keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const all = [...groups.values()].sort((a, b) => (a.keys[0]?.key ?? '').localeCompare(b.keys[0]?.key ?? ''));
  const { facts, unavailable } = await keyFacts(
    redis,
    all.flatMap((g) => g.keys),
    opts.exactMemory ? Number.POSITIVE_INFINITY : undefined,
  );
  const base = all
    .map((group) => {
      const present = group.keys.map((k) => ({ ...k, ...(facts.get(k.key) as KeyFacts) })).filter((f) => f.type !== undefined && f.type !== 'none');
      // Under a layout's names, a key of another type is someone else's: a problem to report, never part of a light.
      const wrong = present.filter((f) => f.expectedType !== null && f.type !== f.expectedType);
      for (const f of wrong) {
        problems.push(`${f.key} is a ${f.type}, expected a ${f.expectedType as string}: not a ${group.layout.name} ${f.role} key, not listed`);
      }
      const of = present.filter((f) => !wrong.includes(f));
      const firsts = of.map((f) => f.first).filter((s): s is number => s !== null);
      const lasts = of.map((f) => f.last).filter((s): s is number => s !== null);
      return {
        group,
        of,
        firstSecond: firsts.length > 0 ? minOf(firsts) : null,
        lastSecond: lasts.length > 0 ? maxOf(lasts) : null,
      };
    })
    .filter((b) => b.of.length > 0 || b.group.registered === true);
  // A light's window: --window, else its registered window_size; its strategy from the registry.
  const configOf = (group: Group) => (group.systemId === null ? undefined : names.configs.get(`${group.systemId}/${group.light}`));
  // Each layout reads its own lights' health in one batched pass.
  const health = new Map<(typeof base)[number], LightHealth>();
  for (const layout of layouts) {
    const mine = base.filter((b) => b.group.layout === layout);
    if (mine.length === 0 || !layout.inspector.survey) continue;
    const surveyed: SurveyLight[] = mine.map((b) => ({
      light: b.group.light,
      systemId: b.group.systemId,
      keys: b.of.map((f) => ({ key: f.key, type: f.type, elements: f.elements })),
      firstSecond: b.firstSecond,
      lastSecond: b.lastSecond,
      windowSeconds: opts.windowSeconds ?? configOf(b.group)?.windowSeconds ?? null,
      trafficControl: configOf(b.group)?.trafficControl ?? null,
    }));
    const results = await layout.inspector.survey(redis, surveyed, judge);
    mine.forEach((b, i) => health.set(b, results[i] ?? NO_HEALTH));
  }
  const lights = base.map(({ group, of, firstSecond, lastSecond }, i): LightListing => {
    const {
      problems: lightProblems,
      window,
      state,
      lastCallSecond,
      consecutiveErrors,
      notes,
      defaultConfig,
      ...h
    } = health.get(base[i] as (typeof base)[number]) ?? NO_HEALTH;
    // Without events, the metadata's newest stamp says when the light last saw a call (a light on Stoplight's default config).
    const lastSeen = lastSecond ?? lastCallSecond ?? null;
    problems.push(...(lightProblems ?? []));
    const named = group.systemId === null ? { systemName: null, lightName: null } : namesOf(names, group.systemId, group.light);
    const config = configOf(group);
    const view = group.systemId === null ? null : configView(config, opts.windowSeconds ?? null, defaultConfig === true);
    const windowEvents = window ? window.successes + window.failures : null;
    // A light whose keys all sit under a namespace (swc demo --write's mark) is found by inspect only by a full key: that is its reference.
    const own = group.layout.inspector.scanPatterns().map(globRegExp);
    const keyed = of.every((f) => !own.some((p) => p.test(f.key))) ? [...of].map((f) => f.key).sort()[0] : undefined;
    return {
      layout: group.layout.name,
      light: group.light,
      systemId: group.systemId,
      reference: keyed ?? (group.systemId === null ? group.light : `${group.systemId}/${group.light}`),
      ...named,
      name: keyed ?? (group.systemId === null ? group.light : `${named.systemName ?? group.systemId}/${named.lightName ?? group.light}`),
      ...(config ? { registered: config } : {}),
      keys: of.length,
      bytes: of.some((f) => f.bytes === null) ? null : of.reduce((sum, f) => sum + (f.bytes ?? 0), 0),
      bytesExact: of.every((f) => f.exact),
      ...(opts.snapshot ? { rdbBound: rdbBoundOf(of, of.some((f) => f.bytes === null) ? null : of.reduce((sum, f) => sum + (f.bytes ?? 0), 0)) } : {}),
      firstSecond,
      lastSecond,
      spanSeconds: firstSecond === null || lastSecond === null ? 0 : lastSecond - firstSecond + 1,
      idleSeconds: lastSeen === null ? null : Math.max(0, at - lastSeen),
      ...h,
      // A scan stopped early may have missed any light's other keys: totals against buckets found so far are no finding.
      ...(scan.partial ? { drift: null } : {}),
      partial: scan.partial,
      state: state?.state ?? null,
      stateSinceSecond: state?.since ?? null,
      stateReason: state?.reason ?? null,
      ...(view === null
        ? { trippingUnknown: 'strategy unknown (5.x keeps no config)' }
        : { config: view, ...trippingOf(view, window, consecutiveErrors ?? null) }),
      keyKinds: [...new Set(of.map((f) => f.kind)), ...(group.registered ? ['registry'] : [])],
      notes: notes ?? [],
      windowSuccesses: window ? window.successes : null,
      windowFailures: window ? window.failures : null,
      failureRate: window && windowEvents !== null && windowEvents > 0 ? window.failures / windowEvents : null,
      ...(opts.nodeOf ? placementOf(of, opts.nodeOf) : {}),
    };
  });
  lights.sort(byOrder.bytes);
  return {
    lights,
    patterns,
    unavailable: unavailable === null ? [] : [unavailable],
    at,
    clock: judge.clock,
    windowSeconds: judge.windowSeconds,
    problems,
    leftovers: [...leftovers].sort(([a], [b]) => a.localeCompare(b)).map(([namespace, keys]) => ({ namespace, keys })),
    scan,
    partial: scan.partial,
    ...(opts.nodes ? { nodes: [...opts.nodes] } : {}),
  };
}

/** Where a light's keys are on a cluster: its keys and bytes per primary. */
function placementOf(keys: readonly { key: string; bytes: number | null }[], nodeOf: (key: string) => string): { node: string; placement: NodeShare[] } {
  const shares = new Map<string, { keys: number; bytes: number | null }>();
  for (const k of keys) {
    const node = nodeOf(k.key);
    const share = shares.get(node) ?? { keys: 0, bytes: 0 };
    share.keys += 1;
    share.bytes = share.bytes === null || k.bytes === null ? null : share.bytes + k.bytes;
    shares.set(node, share);
  }
  const placement = [...shares].map(([node, share]) => ({ node, ...share })).sort((a, b) => a.node.localeCompare(b.node));
  return { node: placement.map((p) => p.node).join(' + '), placement };
}

/**
 * Totals per primary over `lights` (their placement), one row for every
 * node in `nodes` (in that order, empty ones included), then any other.
 */
export function nodeTotalsOf(lights: readonly LightListing[], nodes: readonly string[]): NodeTotals[] {
  const out = new Map<string, { lights: number; keys: number; bytes: number | null }>(nodes.map((n) => [n, { lights: 0, keys: 0, bytes: 0 }]));
  for (const light of lights) {
    for (const share of light.placement ?? []) {
      const t = out.get(share.node) ?? { lights: 0, keys: 0, bytes: 0 };
      t.lights += 1;
      t.keys += share.keys;
      t.bytes = t.bytes === null || share.bytes === null ? null : t.bytes + share.bytes;
      out.set(share.node, t);
    }
  }
  return [...out].map(([node, t]) => ({ node, ...t }));
}

const byName = (a: LightListing, b: LightListing): number =>
  a.layout.localeCompare(b.layout) || a.name.localeCompare(b.name) || a.reference.localeCompare(b.reference);
/** Unknown figures (null) sort last in every order. */
const desc = (a: number | null, b: number | null): number => (b ?? -1) - (a ?? -1);

const byOrder: Record<LightOrder, (a: LightListing, b: LightListing) => number> = {
  bytes: (a, b) => desc(a.bytes, b.bytes) || byName(a, b),
  idle: (a, b) => desc(a.idleSeconds, b.idleSeconds) || byName(a, b),
  events: (a, b) => desc(a.events, b.events) || byName(a, b),
  name: byName,
  // Highest failure rate first; among equal rates the busier light first.
  rate: (a, b) => desc(a.failureRate, b.failureRate) || desc(a.windowFailures, b.windowFailures) || byName(a, b),
  // Red first, then yellow, locked red, locked green, green; unknown last; then the highest rate.
  state: (a, b) => stateRank(a) - stateRank(b) || desc(a.failureRate, b.failureRate) || byName(a, b),
};

function stateRank(l: LightListing): number {
  const i = l.state ? lightStates.indexOf(l.state) : -1;
  return i < 0 ? lightStates.length : i;
}

/** Which lights of a listing to show. */
export interface LightSelection {
  readonly sort?: LightOrder;
  /** Show only the first N after sorting. */
  readonly top?: number;
  /** A system: its name or the id the keys carry. */
  readonly system?: string;
  /** A glob (`*`, `?`, `[…]`) on the light's name or reference; a literal also matches the 6.0 light id it hashes to. */
  readonly match?: string;
  /** Marks lights whose failure rate in the window is at or over this fraction. */
  readonly threshold?: number;
  /** Only lights in these states. */
  readonly states?: readonly LightStateName[];
}

/** A glob as a whole-text regular expression: `*` any run, `?` one character, `[…]` a class. */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i] as string;
    if (ch === '*') out += '[\\s\\S]*';
    else if (ch === '?') out += '[\\s\\S]';
    else if (ch === '\\' && i + 1 < glob.length) out += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) throw new UsageError(`--match: unclosed [ in "${glob}"`);
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = end;
    } else out += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * Filters and orders a listing (pure). Totals are computed by
 * {@link totalsOf} over what matched, before `top` cuts the list.
 */
export function selectLights(list: LightList, selection: LightSelection): { matched: LightListing[]; shown: LightListing[] } {
  const layouts = new Map(registeredLayouts().map((l) => [l.name, l]));
  let matched = list.lights;
  if (selection.system !== undefined) {
    const system = selection.system;
    matched = matched.filter((l) => {
      if (l.systemId === null) return false;
      const inspector = layouts.get(l.layout)?.inspector;
      return l.systemId === system || (inspector?.systemIdOf !== undefined && l.systemId === inspector.systemIdOf(system));
    });
  }
  if (selection.match !== undefined) {
    const pattern = globRegExp(selection.match);
    // A literal is a name: 6.0 keys carry its hash.
    const id = isLiteral(selection.match) ? nameId(selection.match) : null;
    matched = matched.filter(
      (l) =>
        pattern.test(l.light) ||
        pattern.test(l.reference) ||
        pattern.test(l.name) ||
        (l.lightName !== null && pattern.test(l.lightName)) ||
        (id !== null && l.systemId !== null && l.light === id),
    );
  }
  if (selection.states !== undefined) {
    const states = selection.states;
    matched = matched.filter((l) => l.state !== null && l.state !== undefined && states.some((wanted) => stateMatches(l.state as LightStateName, wanted)));
  }
  if (selection.threshold !== undefined) {
    const threshold = selection.threshold;
    // Stoplight keeps a light locked green green, whatever it fails; a light whose own config trips on
    // consecutive errors does not use a failure-rate threshold; one whose own config says error_rate is marked against its own.
    matched = matched.map((l) => ({ ...l, overThreshold: overThreshold(l, threshold) }));
  }
  matched = [...matched].sort(byOrder[selection.sort ?? 'bytes']);
  const shown = selection.top === undefined ? matched : matched.slice(0, selection.top);
  return { matched, shown };
}

/**
 * Whether a light in `state` answers `--state wanted`: Stoplight's colour of
 * a light locked red is red, and of one locked green green, so `red`
 * matches every red light, locked or not, and `locked red` only the locked
 * ones (the same for green).
 */
export function stateMatches(state: LightStateName, wanted: LightStateName): boolean {
  return state === wanted || (state === `locked ${wanted}` && (wanted === 'red' || wanted === 'green'));
}

function overThreshold(l: LightListing, threshold: number): boolean {
  if (l.state === 'locked green') return false;
  if (l.tripping) return l.tripping.ratio >= 1;
  if (l.registered?.trafficControl === 'consecutive_errors') return false;
  return l.failureRate !== null && l.failureRate >= threshold;
}

/** One total per layout, in the order layouts first appear, over `lights`. */
export function totalsOf(lights: readonly LightListing[]): LayoutTotals[] {
  const out = new Map<
    string,
    { lights: number; keys: number; bytes: number | null; events: number | null; staleEvents: number | null; drifted: number; unfinished: number }
  >();
  const add = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);
  for (const l of lights) {
    const t = out.get(l.layout) ?? { lights: 0, keys: 0, bytes: 0, events: 0, staleEvents: 0, drifted: 0, unfinished: 0 };
    t.lights += 1;
    t.keys += l.keys;
    t.bytes = add(t.bytes, l.bytes);
    t.events = add(t.events, l.events);
    t.staleEvents = add(t.staleEvents, l.staleEvents);
    if (l.partial) t.unfinished += 1;
    else if (l.drift === true) t.drifted += 1;
    out.set(l.layout, t);
  }
  return [...out].map(([layout, t]) => ({ layout, ...t }));
}
