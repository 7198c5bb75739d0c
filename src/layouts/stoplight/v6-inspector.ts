import type { Redis } from 'ioredis';
import { lastCallSecond, lightState, NO_WINDOW_NOTE, readWindow, STATE_FIELDS } from './state.js';
import { configView, strategyOf, trippingOf } from './traffic-control.js';
import { UsageError } from '../../core/errors.js';
import {
  count,
  decodeMetadata,
  describeKeys,
  keyTypes,
  limitsOf,
  Longest,
  readConsistently,
  readHash,
  readSortedSet,
  scanSearch,
  summarize,
  windowOf,
  type KeyHeader,
} from '../inspection-keys.js';
import type { Bucket, BucketDrift, BucketInspection, EncodingLimits, JudgeOptions, LightHealth, SurveyLight } from '../inspection.js';
import { nameId, renderTemplate, type KeyTable, type LightKey } from '../kit/keys.js';
import { escapeGlob, escapeRegExp } from '../parse.js';
import type { InspectTarget, KeyOwner, KeySearch, LayoutInspector, TargetRequest } from '../types.js';
import { DEFAULT_SYSTEM } from '../types.js';
import { parseRegistryEntry, type NameBook, type RegistryEntry } from './names.js';

/** The table of 6.0's two keys (6.0's own, or a layout's with keys of the same shape). */
type V6Table = KeyTable<'metrics' | 'index'>;

/** A 6.0 light by the ids its keys carry. */
export interface V6Target extends InspectTarget {
  readonly prefix: string;
  readonly systemId: string;
  readonly lightId: string;
  /** Names known for ids, for the report and for the error that lists a name's systems. */
  readonly names?: NameBook;
}

const BUCKET_FIELD = /^bucket:(\d+):([sf])$/;
const INDEX_MEMBER = /^bucket:(\d+)$/;
const TOTAL_FIELDS = new Set(['total_successes', 'total_failures']);
const METADATA_FIELDS = new Set(['last_success_at', 'last_error_at', 'last_error_json', 'consecutive_errors', 'consecutive_successes']);

const LIGHT_ID = /^[0-9a-f]{12}$/;
/** `<system id>/<light id>`: the reference swc lights prints. */
const REFERENCE = /^([0-9a-f]{12})\/([0-9a-f]{12})$/;

/**
 * Every key Stoplight 6.0 writes for one light, after the light's key base
 * `<prefix>:<system id>:{<light id>}` (KeySpace, `key_space.rb` at
 * 7e3dd66c5fc8d6362f6fab53cb7b60849681c2e5), with its role and type:
 * the window metrics hash and its index (a light with a `window_size`),
 * the unbounded metrics hash (a light on the default config, no window:
 * `unbounded_metrics.rb`), the state hash (`state.rb`), the recovery probes'
 * metrics (`recovery_metrics.rb`) and the recovery lock, a string set with
 * NX and a TTL of the cool-off (`recovery_lock.rb`; these three at
 * 101a80a6d49e036b57c1a3feeb0aaef147aa1195 and e984cd620f6a9de957e02383c0907504a7c1fe7e).
 * The registry entry (`<prefix>:<system id>:lights`, field the light id) is
 * the light's too, though not a key of its own.
 */
export const V6_KEY_KINDS = [
  { suffix: ':window_metrics', kind: 'window_metrics', role: 'metrics', type: 'hash' },
  { suffix: ':window_metrics:ts_idx', kind: 'window_metrics:ts_idx', role: 'index', type: 'zset' },
  { suffix: ':state', kind: 'state', role: 'state', type: 'hash' },
  { suffix: ':metrics', kind: 'metrics', role: 'unbounded metrics', type: 'hash' },
  { suffix: ':recovery_metrics', kind: 'recovery_metrics', role: 'recovery metrics', type: 'hash' },
  { suffix: ':locks:recovery', kind: 'locks:recovery', role: 'recovery lock', type: 'string' },
] as const;
/** The kind a listing names for a light's registry entry. */
export const REGISTRY_KIND = 'registry';
const SUFFIX_ALTERNATION = V6_KEY_KINDS.map((k) => escapeRegExp(k.suffix)).join('|');
/** A key's suffix, to its kind. */
const KIND_OF_SUFFIX = new Map<string, (typeof V6_KEY_KINDS)[number]>(V6_KEY_KINDS.map((k) => [k.suffix, k]));
/** The system id of a key, after the prefix. */
const LIGHT_KEY = new RegExp(`^:([0-9a-f]{12}):\\{[0-9a-f]{12}\\}(?:${SUFFIX_ALTERNATION})$`);
/** A target's system id when only the light id is known: found with SCAN. */
const ANY_SYSTEM = '*';
/** Fields that change with every write, so a read under load notices writes that keep the hash's size. */
const WATCH_FIELDS = ['total_successes', 'total_failures', 'consecutive_successes', 'consecutive_errors'];

/** The key base of a 6.0 light's key: the key without its kind's suffix; null for another key. */
export function v6KeyBase(key: string): string | null {
  for (const kind of [...V6_KEY_KINDS].sort((a, b) => b.suffix.length - a.suffix.length)) {
    if (key.endsWith(kind.suffix)) return key.slice(0, key.length - kind.suffix.length);
  }
  return null;
}

/** Every key of a 6.0 light, off the layout's key table, under the target's prefix (which may carry a namespace). */
function v6Keys(table: V6Table, target: Pick<V6Target, 'prefix' | 'systemId' | 'lightId'>): LightKey[] {
  const values = { prefix: target.prefix, systemId: target.systemId, lightId: target.lightId };
  const { metrics, index } = table.rows;
  const windowKey = renderTemplate(metrics.template, values);
  const base = v6KeyBase(windowKey) ?? windowKey;
  return [
    { key: windowKey, role: metrics.inspectRole ?? metrics.role, type: metrics.type, watchFields: WATCH_FIELDS },
    { key: renderTemplate(index.template, values), role: index.inspectRole ?? index.role, type: index.type },
    ...V6_KEY_KINDS.slice(2).map((k) => ({
      key: `${base}${k.suffix}`,
      role: k.role,
      type: k.type,
      ...(k.kind === 'metrics' ? { watchFields: WATCH_FIELDS } : {}),
    })),
  ];
}

/**
 * Reads Stoplight 6.0 lights: keys `<prefix>:<system id>:{<light id>}:window_metrics`
 * (a hash of per-second counters, running totals and metadata) and
 * `…:ts_idx` (a sorted set indexing the buckets).
 */
export class StoplightV6Inspector implements LayoutInspector {
  /** Prefix (any namespace in front), system id, light id, and the key's suffix. */
  private readonly keyPattern: RegExp;
  private readonly prefix: string;
  /** The 12 hex characters of SHA-256 that 6.0 keys carry instead of names. */
  private readonly shortId: (name: string) => string;

  constructor(
    private readonly layout: string,
    private readonly table: V6Table,
  ) {
    this.prefix = table.prefix;
    this.shortId = table.hashName;
    const prefix = table.prefix;
    this.keyPattern = new RegExp(`^((?:.*:)?${escapeRegExp(prefix)}):([0-9a-f]{12}):\\{([0-9a-f]{12})\\}(${SUFFIX_ALTERNATION})?$`, 's');
  }

  scanPatterns(): string[] {
    return this.table.prefixPattern();
  }

  lightOfKey(key: string): KeyOwner | null {
    const match = this.keyPattern.exec(key);
    if (!match?.[4]) return null;
    const kind = KIND_OF_SUFFIX.get(match[4]);
    if (!kind) return null;
    return {
      light: match[3] as string,
      system: match[2] as string,
      role: kind.role,
      kind: kind.kind,
      scoresAreSeconds: kind.kind === 'window_metrics:ts_idx',
      expectedType: kind.type,
    };
  }

  /**
   * Where to look for what the user typed, in order (the first with keys or
   * a registry entry wins). The naming rule (docs/inspect.md, "Naming"):
   * with `--system`, the text is always a light's name (or its 12-hex id) in
   * that system. Without it, the text is tried as, in turn: a 6.0 key (or a
   * key base); `<system id>/<light id>`; `<system>/<light>` split at the
   * first `/`; then the whole text as a light's name (or id) in the
   * `default` system; and last, by a walk, in any system (not for a text
   * that is a key). So a light whose
   * name holds `/` or a key is reachable as `--system default <name>` (or
   * its reference), and an earlier form wins only where its keys exist.
   */
  targetsFor(request: TargetRequest): V6Target[] {
    const { light } = request;
    const names = request.names;
    const make = (systemId: string, lightId: string, prefix = this.prefix): V6Target => {
      const target = { light, prefix, systemId, lightId, ...(names ? { names } : {}) };
      const lookedFor = v6Keys(this.table, target)[0]?.key ?? '';
      return { ...target, lookedFor: [lookedFor] };
    };
    const ids = (text: string): string[] => (LIGHT_ID.test(text) ? [text, this.shortId(text)] : [this.shortId(text)]);
    if (request.system !== undefined) {
      // --system takes a name or the id the keys carry; a 12-hex text is tried as an id first.
      const systems = ids(request.system);
      return systems.flatMap((systemId) => ids(light).map((lightId) => make(systemId, lightId)));
    }
    const targets: V6Target[] = [];
    // A full key, or the light's key base without the suffix.
    const key = this.keyPattern.exec(light);
    if (key) targets.push({ ...make(key[2] as string, key[3] as string, key[1] as string), lookedFor: [light] });
    // `<system id>/<light id>`, as swc lights prints a 6.0 light.
    const pair = REFERENCE.exec(light);
    if (pair) targets.push(make(pair[1] as string, pair[2] as string));
    // `<system>/<light>` by names (as swc lights prints them where names are known), or a mix of a name and an id.
    const slash = light.indexOf('/');
    if (!pair && slash > 0 && slash < light.length - 1) {
      const systemId = LIGHT_ID.test(light.slice(0, slash)) ? light.slice(0, slash) : this.shortId(light.slice(0, slash));
      for (const id of ids(light.slice(slash + 1))) targets.push(make(systemId, id));
    }
    // The whole text as a light of the default system: its keys by name and its registry entry, no SCAN.
    const defaultId = this.shortId(DEFAULT_SYSTEM);
    for (const id of ids(light)) targets.push(make(defaultId, id));
    // Then any system: only a walk finds it (the output says so). Not for a text that is a key: a light
    // named like a key is reached with --system, and a key that does not exist costs no walk.
    if (!key) for (const id of ids(light)) targets.push(make(ANY_SYSTEM, id));
    return targets;
  }

  inspect(redis: Redis, target: V6Target, judge: JudgeOptions, limits: EncodingLimits, search?: KeySearch): Promise<BucketInspection | null> {
    return inspectV6(redis, this.layout, this.table, target, judge, limits, search ?? scanSearch(redis));
  }

  systemIdOf(system: string): string {
    return LIGHT_ID.test(system) ? system : this.shortId(system);
  }

  survey(redis: Redis, lights: readonly SurveyLight[], judge: JudgeOptions): Promise<LightHealth[]> {
    return surveyV6(redis, lights, judge);
  }
}

/** The fields of `from` named in `names` that it holds. */
function pick(from: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (from[n] !== undefined) out[n] = from[n] as string;
  return out;
}

/** A counter as Stoplight writes it (HINCRBY): a whole number; anything else is garbage. */
function isCount(value: string): boolean {
  return /^-?\d{1,15}$/.test(value);
}

/** The problem line of a counter field that holds something else. */
function garbageLine(key: string, field: string, value: string): string {
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return `${key} field ${field} holds "${shown}", not a count: counted as 0`;
}

/** Lights surveyed per pipeline. */
const SURVEY_BATCH = 200;
/** Larger hashes are left to `swc inspect` (it pages), so a listing never sends one huge HGETALL. */
const SURVEY_MAX_FIELDS = 20_000;

/** A light's key of one kind, among those a listing found. */
function keyOfKind(light: SurveyLight, kind: string): SurveyLight['keys'][number] | undefined {
  return light.keys.find((k) => kindOfKey(k.key) === kind);
}

/** The kind of a 6.0 key by its suffix (the longest that matches). */
function kindOfKey(key: string): string | null {
  const base = v6KeyBase(key);
  return base === null ? null : (KIND_OF_SUFFIX.get(key.slice(base.length))?.kind ?? null);
}

/**
 * Events held, stale buckets, drift and state of many 6.0 lights, with one
 * HGETALL and one ZRANGE of the window metrics, and one HGETALL of the state
 * and of the unbounded metrics per light, pipelined. A light's window is
 * its own (`windowSeconds`, its registered window) or the run's; without
 * one nothing is stale, and drift is null for a light too large to read here.
 */
async function surveyV6(redis: Redis, lights: readonly SurveyLight[], judge: JudgeOptions): Promise<LightHealth[]> {
  const out: LightHealth[] = [];
  for (let i = 0; i < lights.length; i += SURVEY_BATCH) {
    const batch = lights.slice(i, i + SURVEY_BATCH).map((light) => {
      const hash = keyOfKind(light, 'window_metrics');
      const index = keyOfKind(light, 'window_metrics:ts_idx');
      const stateKey = keyOfKind(light, 'state');
      const unbounded = keyOfKind(light, 'metrics');
      const small = (hash?.elements ?? 0) <= SURVEY_MAX_FIELDS && (index?.elements ?? 0) <= SURVEY_MAX_FIELDS;
      const windowSeconds = light.windowSeconds === undefined ? judge.windowSeconds : light.windowSeconds;
      // Stoplight's window rule (state.ts): 6.0's window is half-open and keeps no recovered_at in the window.
      const cutoff = windowSeconds === null ? null : readWindow(judge.at, windowSeconds, null, 'half-open').fromSecond - 1;
      return { light, hash, index, stateKey, unbounded, small, cutoff };
    });
    const pipeline = redis.pipeline();
    for (const { hash, index, small, stateKey, unbounded } of batch) {
      if (small && hash) pipeline.hgetall(hash.key);
      else pipeline.echo('');
      if (small && index) pipeline.zrange(index.key, 0, -1, 'WITHSCORES');
      else pipeline.echo('');
      if (stateKey) pipeline.hgetall(stateKey.key);
      else pipeline.echo('');
      if (unbounded && unbounded.elements <= SURVEY_MAX_FIELDS) pipeline.hgetall(unbounded.key);
      else pipeline.echo('');
    }
    const replies = ((await pipeline.exec()) ?? []).map(([err, value]) => (err ? null : value));
    const hashReply = (v: unknown): Record<string, string> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {});
    batch.forEach(({ light, hash, index, small, cutoff, unbounded }, j) => {
      const stored = pick(hashReply(replies[4 * j + 2]), [...STATE_FIELDS, 'recovered_at']);
      const unboundedFields = hashReply(replies[4 * j + 3]);
      const defaultConfig = unbounded !== undefined && !hash && !index;
      const strategy = light.trafficControl ?? (defaultConfig ? 'consecutive_errors' : null);
      const stateOf = (fields: Record<string, string>): LightHealth['state'] =>
        lightState({ ...pick(fields, ['consecutive_errors', 'last_error_json']), ...stored }, judge.moment ?? judge.at, strategy);
      if (!hash && !index) {
        // No window metrics: a light on the default config (its unbounded metrics), or one known only by its state or registry.
        const errors = unboundedFields.consecutive_errors;
        out.push({
          events: 0,
          staleEvents: cutoff === null ? null : 0,
          staleBuckets: cutoff === null ? null : 0,
          drift: null,
          // A window but no window metrics (cleared by a recovery probe, or none yet): nothing in it.
          window: cutoff === null || defaultConfig ? null : { successes: 0, failures: 0 },
          state: stateOf(unboundedFields),
          lastCallSecond: lastCallSecond(unboundedFields),
          consecutiveErrors: errors !== undefined && isCount(errors) ? count(errors) : null,
          notes: defaultConfig ? [NO_WINDOW_NOTE] : [],
          defaultConfig,
        });
        return;
      }
      if (!small) {
        out.push({ events: null, staleEvents: null, staleBuckets: null, drift: null, window: null, state: stateOf({}) });
        return;
      }
      const problems: string[] = [];
      const fields = hash ? hashReply(replies[4 * j]) : {};
      const flat = index && Array.isArray(replies[4 * j + 1]) ? (replies[4 * j + 1] as string[]) : [];
      const counters = new Map<number, number>();
      const sums = { successes: 0, failures: 0 };
      let staleEvents = 0;
      const inWindow = { successes: 0, failures: 0 };
      for (const [field, value] of Object.entries(fields)) {
        if (TOTAL_FIELDS.has(field) && !isCount(value)) problems.push(garbageLine(hash?.key ?? '', field, value));
        const bucket = BUCKET_FIELD.exec(field);
        if (!bucket) continue;
        const second = Number(bucket[1]);
        if (!isCount(value) || !Number.isSafeInteger(second)) {
          problems.push(garbageLine(hash?.key ?? '', field, value));
          continue;
        }
        const n = count(value);
        if (bucket[2] === 's') sums.successes += n;
        else sums.failures += n;
        counters.set(second, (counters.get(second) ?? 0) + n);
        if (cutoff !== null && second <= cutoff) staleEvents += n;
        else if (cutoff !== null && second <= judge.at) {
          if (bucket[2] === 's') inWindow.successes += n;
          else inWindow.failures += n;
        }
      }
      const indexed = new Set<number>();
      let badIndex = false;
      for (let k = 0; k + 1 < flat.length; k += 2) {
        const match = INDEX_MEMBER.exec(flat[k] as string);
        const score = Number(flat[k + 1]);
        if (match && Number(match[1]) === score) indexed.add(score);
        else badIndex = true;
      }
      const totalsOk = count(fields.total_successes) === sums.successes && count(fields.total_failures) === sums.failures;
      const indexOk = !badIndex && indexed.size === counters.size && [...counters.keys()].every((s) => indexed.has(s));
      out.push({
        events: sums.successes + sums.failures,
        staleEvents: cutoff === null ? null : staleEvents,
        staleBuckets: cutoff === null ? null : [...counters.keys()].filter((s) => s <= cutoff).length,
        drift: !(totalsOk && indexOk),
        window: cutoff === null ? null : inWindow,
        problems,
        state: stateOf(fields),
        lastCallSecond: lastCallSecond(fields),
        consecutiveErrors: isCount(fields.consecutive_errors ?? '') ? count(fields.consecutive_errors) : null,
      });
    });
  }
  return out;
}

/** A registry hash of light configs, beside a light's keys: `<prefix>:<system id>:lights`. */
function registryKey(target: Pick<V6Target, 'prefix' | 'systemId'>): string {
  return `${target.prefix}:${target.systemId}:lights`;
}

/** The light's registry entry, when its system's registry holds one (read-only; a key of another type is no registry). */
async function registryEntryOf(redis: Redis, target: Pick<V6Target, 'prefix' | 'systemId' | 'lightId'>): Promise<RegistryEntry | null> {
  try {
    const raw = await redis.hget(registryKey(target), target.lightId);
    return raw === null ? null : parseRegistryEntry(target.lightId, raw);
  } catch {
    return null;
  }
}

/**
 * The systems holding a light when only its id is known: the keys and the
 * registries a walk finds (through `search`, one SCAN pass). Returns the
 * system ids, with where each was seen.
 */
async function systemsHolding(table: V6Table, target: V6Target, search: KeySearch, redis: Redis): Promise<Set<string>> {
  const found = new Set<string>();
  const windowKey = renderTemplate(table.rows.metrics.template, { prefix: escapeGlob(target.prefix), systemId: '*', lightId: target.lightId });
  const pattern = `${v6KeyBase(windowKey) ?? windowKey}:*`;
  for (const key of await search(pattern, 'unnamed')) {
    const id = LIGHT_KEY.exec(key.slice(target.prefix.length))?.[1];
    if (id !== undefined) found.add(id);
  }
  // A light known only to a registry (locked before any traffic, say) has no key of its own.
  const registries = await search(`${escapeGlob(target.prefix)}:*:lights`, 'unnamed');
  const systems = registries.map((key) => /:([0-9a-f]{12}):lights$/.exec(key)?.[1]).filter((id): id is string => id !== undefined && !found.has(id));
  if (systems.length > 0) {
    const pipeline = redis.pipeline();
    for (const id of systems) pipeline.hexists(`${target.prefix}:${id}:lights`, target.lightId);
    const replies = (await pipeline.exec()) ?? [];
    systems.forEach((id, i) => {
      const [err, value] = replies[i] ?? [null, 0];
      if (!err && Number(value) === 1) found.add(id);
    });
  }
  return found;
}

/**
 * Reads a Stoplight 6.0 light without changing it: every key Stoplight
 * keeps for it (HSCAN of the hashes, ZRANGE pages of the index, never the
 * layout's scripts: they evict) and its registry entry. Returns null when
 * neither a key nor a registry entry exists.
 */
async function inspectV6(
  redis: Redis,
  layout: string,
  table: V6Table,
  target: V6Target,
  judge: JudgeOptions,
  limits: EncodingLimits,
  search: KeySearch,
): Promise<BucketInspection | null> {
  if (target.systemId === ANY_SYSTEM) {
    // Only a walk finds the system (one paced SCAN pass, as swc lights makes: this may walk a large keyspace).
    const systems = await systemsHolding(table, target, search, redis);
    if (systems.size === 0) return null;
    if (systems.size > 1) {
      const named = [...systems]
        .map((id) => {
          const name = target.names?.systems.get(id);
          return name === undefined ? id : `${name} (${id})`;
        })
        .sort();
      const what = LIGHT_ID.test(target.light) ? `light id ${target.lightId}` : `light "${target.light}"`;
      throw new UsageError(`${what} is in ${systems.size} systems: ${named.join(', ')}; give --system <name or id>, or <system>/${target.light}`);
    }
    const systemId = [...systems][0] as string;
    const found = await inspectV6(redis, layout, table, { ...target, systemId }, judge, limits, search);
    return found === null
      ? null
      : { ...found, lookup: `walked the keyspace (one SCAN pass): not in the default system's keys or registry; found in system ${systemId}` };
  }
  const all = v6Keys(table, target);
  const types = await keyTypes(
    redis,
    all.map((s) => s.key),
  );
  const specs = all.filter((_, i) => types[i] !== 'none');
  const registry = await registryEntryOf(redis, target);
  if (specs.length === 0 && registry === null) return null;

  const { result, consistent } = await readConsistently(
    redis,
    () => specs,
    async () => {
      const { headers, unavailable } = specs.length === 0 ? { headers: [], unavailable: null } : await describeKeys(redis, specs);
      const hashOf = (role: string): KeyHeader | undefined => headers.find((h) => h.role === role && !h.wrongType);
      const hash = hashOf('metrics');
      const index = headers.find((h) => h.role === 'index' && !h.wrongType);
      const fields = hash ? await readHash(redis, hash.key) : new Map<string, string>();
      const members: { member: string; score: number }[] = [];
      if (index) {
        await readSortedSet(redis, index.key, (page, scores) => {
          page.forEach((member, i) => members.push({ member, score: scores[i] as number }));
        });
      }
      const others = new Map<string, Map<string, string>>();
      for (const role of ['state', 'unbounded metrics', 'recovery metrics']) {
        const header = hashOf(role);
        if (header) others.set(role, await readHash(redis, header.key));
      }
      return { headers, fields, members, unavailable, others };
    },
  );
  const { headers, fields, members, unavailable, others } = result;

  const problems: string[] = [];
  for (const header of headers) {
    if (header.wrongType) {
      problems.push(`${header.key} is a ${header.type}, expected a ${header.expectedType}: not a Stoplight 6.0 ${header.role} key, not read`);
    }
  }
  const present = new Set(headers.map((h) => h.role));
  if (!present.has('index') && present.has('metrics')) problems.push(`${all[1]?.key} does not exist: no bucket is indexed`);
  if (!present.has('metrics') && present.has('index')) problems.push(`${all[0]?.key} does not exist: no counters or totals`);

  const hashLongest = new Longest();
  const counters = new Map<number, { successes: number; failures: number }>();
  const metadata = new Map<string, string>();
  const unknownFields: string[] = [];
  for (const [field, value] of fields) {
    hashLongest.see(field, `field ${field}`);
    hashLongest.see(value, `value of ${field}`);
    const bucket = BUCKET_FIELD.exec(field);
    if ((bucket || TOTAL_FIELDS.has(field)) && !isCount(value)) problems.push(garbageLine(all[0]?.key ?? '', field, value));
    if (bucket && !Number.isSafeInteger(Number(bucket[1]))) {
      problems.push(`${all[0]?.key ?? ''} field ${field}: not a second swc can place in time; not counted`);
      continue;
    }
    if (bucket) {
      const second = Number(bucket[1]);
      const entry = counters.get(second) ?? { successes: 0, failures: 0 };
      if (bucket[2] === 's') entry.successes = count(value);
      else entry.failures = count(value);
      counters.set(second, entry);
    } else if (!TOTAL_FIELDS.has(field)) {
      metadata.set(field, value);
      if (!METADATA_FIELDS.has(field)) unknownFields.push(field);
    }
  }
  // A light on the default config keeps its metadata in the unbounded metrics hash instead.
  const unbounded = others.get('unbounded metrics');
  const defaultConfig = unbounded !== undefined && !present.has('metrics') && !present.has('index');
  if (unbounded) for (const [field, value] of unbounded) if (!metadata.has(field)) metadata.set(field, value);

  const indexLongest = new Longest();
  const otherLongest = new Map<string, Longest>();
  for (const [role, hashFields] of others) {
    const longest = new Longest();
    for (const [field, value] of hashFields) {
      longest.see(field, `field ${field}`);
      longest.see(value, `value of ${field}`);
    }
    otherLongest.set(role, longest);
  }
  const indexed = new Set<number>();
  const badIndexMembers: string[] = [];
  for (const { member, score } of members) {
    indexLongest.see(member, `member ${member}`);
    const match = INDEX_MEMBER.exec(member);
    if (match && Number(match[1]) === score) indexed.add(score);
    else badIndexMembers.push(`${member} (score ${score})`);
  }

  // The window: --window, else the registry's window_size (said in window.source).
  const registeredWindow = registry?.config.windowSeconds ?? null;
  const windowSeconds = judge.windowSeconds ?? registeredWindow;
  const window = {
    ...windowOf({ ...judge, windowSeconds }),
    ...(judge.windowSeconds === null && registeredWindow !== null ? { source: 'registry' as const } : {}),
  };
  const cutoff = windowSeconds === null ? null : readWindow(judge.at, windowSeconds, null, 'half-open').fromSecond - 1;
  const buckets: Bucket[] = [...counters]
    .sort(([a], [b]) => a - b)
    .map(([second, c]) => ({
      second,
      ageSeconds: judge.at - second,
      successes: c.successes,
      failures: c.failures,
      stale: cutoff !== null && second <= cutoff,
      future: second > Math.floor(judge.at),
    }));

  const storedTotals = { successes: count(fields.get('total_successes')), failures: count(fields.get('total_failures')) };
  const bucketSum = {
    successes: buckets.reduce((sum, b) => sum + b.successes, 0),
    failures: buckets.reduce((sum, b) => sum + b.failures, 0),
  };
  const live = buckets.filter((b) => !b.stale && !b.future);
  // 6.0 stores no window size in the light's keys: without one given or registered, no rate is claimed.
  const windowTotals =
    windowSeconds === null ? null : { successes: live.reduce((sum, b) => sum + b.successes, 0), failures: live.reduce((sum, b) => sum + b.failures, 0) };
  const drift = driftOf(storedTotals, bucketSum, counters, indexed, badIndexMembers, unknownFields);

  const keys = headers.map((header: KeyHeader) => ({
    ...header,
    limits: limitsOf(
      header,
      limits,
      header.role === 'metrics' ? hashLongest : header.role === 'index' ? indexLongest : (otherLongest.get(header.role) ?? new Longest()),
    ),
  }));
  const names = namesFor(target, registry);
  const stored: Record<string, string> = {};
  const stateHash = others.get('state');
  for (const f of [...STATE_FIELDS, 'recovered_at']) {
    const v = stateHash?.get(f);
    if (v !== undefined) stored[f] = v;
  }
  const config = configView(registry?.config, judge.windowSeconds, defaultConfig);
  const strategy = strategyOf(registry?.config, defaultConfig)?.trafficControl ?? null;
  const state = lightState({ ...pick(Object.fromEntries(metadata), ['consecutive_errors', 'last_error_json']), ...stored }, judge.moment ?? judge.at, strategy);
  const consecutive = metadata.get('consecutive_errors');
  const closeness = trippingOf(config, windowTotals, consecutive !== undefined && isCount(consecutive) ? count(consecutive) : null);
  const base = v6KeyBase(all[0]?.key ?? '') ?? '';
  return {
    kind: 'buckets',
    light: target.light,
    layout,
    systemId: target.systemId,
    lightId: target.lightId,
    ...names,
    keys,
    keyKinds: [...V6_KEY_KINDS.filter((k) => present.has(k.role)).map((k) => k.kind), ...(registry ? [REGISTRY_KIND] : [])],
    totals: bucketSum,
    storedTotals,
    windowTotals,
    buckets,
    drift,
    metadata: decodeMetadata(metadata),
    stateFields: stored,
    ...(others.get('recovery metrics') ? { recoveryMetrics: Object.fromEntries(others.get('recovery metrics') as Map<string, string>) } : {}),
    registry: registry === null ? null : { key: registryKey(target), field: target.lightId, config: registry.config },
    config,
    ...closeness,
    window,
    summary: summarize(windowTotals, keys, { windowSeconds }),
    consistent,
    problems,
    unavailable: unavailable === null ? [] : [unavailable],
    state,
    windowNotes: defaultConfig ? [NO_WINDOW_NOTE] : [],
    lookup: base === '' ? '' : `read by name: ${base} and ${registryKey(target)}`,
  };
}

/**
 * The names of a 6.0 light's system and light: from the name book, the name
 * typed (when it hashes to the id), or the light's registry entry.
 */
function namesFor(target: V6Target, registry: RegistryEntry | null): { systemName: string | null; lightName: string | null } {
  const slash = target.light.indexOf('/');
  const typedSystem = slash > 0 ? target.light.slice(0, slash) : null;
  const systemName = target.names?.systems.get(target.systemId) ?? (typedSystem !== null && nameId(typedSystem) === target.systemId ? typedSystem : null);
  const typed = slash > 0 ? target.light.slice(slash + 1) : target.light;
  const lightName =
    target.names?.lights.get(target.lightId) ??
    (nameId(typed) === target.lightId ? typed : nameId(target.light) === target.lightId ? target.light : (registry?.name ?? null));
  return { systemName, lightName };
}

function driftOf(
  totals: { successes: number; failures: number },
  bucketSum: { successes: number; failures: number },
  counters: Map<number, unknown>,
  indexed: Set<number>,
  badIndexMembers: string[],
  unknownFields: string[],
): BucketDrift {
  const indexWithoutBucket = [...indexed].filter((s) => !counters.has(s)).sort((a, b) => a - b);
  const bucketWithoutIndex = [...counters.keys()].filter((s) => !indexed.has(s)).sort((a, b) => a - b);
  const totalsOk = totals.successes === bucketSum.successes && totals.failures === bucketSum.failures;
  return {
    ok: totalsOk && indexWithoutBucket.length === 0 && bucketWithoutIndex.length === 0 && badIndexMembers.length === 0,
    totalsOk,
    bucketSum,
    indexWithoutBucket,
    bucketWithoutIndex,
    badIndexMembers,
    unknownFields,
  };
}
