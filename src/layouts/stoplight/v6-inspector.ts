import type { Redis } from 'ioredis';
import { lastCallSecond, lightState, readWindow, STATE_FIELDS } from './state.js';
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
import { addRegistry, newNameBook, type NameBook } from './names.js';

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
/** The system id of a key, after the prefix. */
const LIGHT_KEY = /^:([0-9a-f]{12}):\{[0-9a-f]{12}\}:window_metrics(?::ts_idx)?$/;
/** A target's system id when only the light id is known: found with SCAN. */
const ANY_SYSTEM = '*';
/** Fields that change with every write, so a read under load notices writes that keep the hash's size. */
const WATCH_FIELDS = ['total_successes', 'total_failures', 'consecutive_successes', 'consecutive_errors'];

/** The two keys of a 6.0 light, off the layout's key table, under the target's prefix (which may carry a namespace). */
function v6Keys(table: V6Table, target: Pick<V6Target, 'prefix' | 'systemId' | 'lightId'>): LightKey[] {
  const values = { prefix: target.prefix, systemId: target.systemId, lightId: target.lightId };
  const { metrics, index } = table.rows;
  return [
    { key: renderTemplate(metrics.template, values), role: metrics.inspectRole ?? metrics.role, type: metrics.type, watchFields: WATCH_FIELDS },
    { key: renderTemplate(index.template, values), role: index.inspectRole ?? index.role, type: index.type },
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
    this.keyPattern = new RegExp(`^((?:.*:)?${escapeRegExp(prefix)}):([0-9a-f]{12}):\\{([0-9a-f]{12})\\}(:window_metrics(?::ts_idx)?)?$`, 's');
  }

  scanPatterns(): string[] {
    return this.table.prefixPattern();
  }

  lightOfKey(key: string): KeyOwner | null {
    const match = this.keyPattern.exec(key);
    if (!match?.[4]) return null;
    return {
      light: match[3] as string,
      system: match[2] as string,
      role: match[4].endsWith(':ts_idx') ? 'index' : 'metrics',
      scoresAreSeconds: true,
      expectedType: match[4].endsWith(':ts_idx') ? 'zset' : 'hash',
    };
  }

  targetsFor(request: TargetRequest): V6Target[] {
    const { light } = request;
    // A full key, or the light's key base without the suffix.
    const key = this.keyPattern.exec(light);
    if (key) {
      const target = { light, prefix: key[1] as string, systemId: key[2] as string, lightId: key[3] as string };
      return [{ ...target, lookedFor: [v6Keys(this.table, target)[0]?.key ?? light] }];
    }
    const names = request.names;
    const make = (systemId: string, lightId: string): V6Target => {
      const target = { light, prefix: this.prefix, systemId, lightId, ...(names ? { names } : {}) };
      const lookedFor = v6Keys(this.table, target)[0]?.key ?? '';
      return { ...target, lookedFor: [lookedFor] };
    };
    // `<system id>/<light id>`, as swc lights prints a 6.0 light.
    const pair = REFERENCE.exec(light);
    if (pair && request.system === undefined) return [make(pair[1] as string, pair[2] as string)];
    // `<system>/<light>` by names (as swc lights prints them where names are known), or a mix of a name and an id.
    const slash = light.indexOf('/');
    if (slash > 0 && slash < light.length - 1 && request.system === undefined) {
      const system = light.slice(0, slash);
      const name = light.slice(slash + 1);
      const systemId = LIGHT_ID.test(system) ? system : this.shortId(system);
      const lightIds = LIGHT_ID.test(name) ? [name, this.shortId(name)] : [this.shortId(name)];
      return lightIds.map((id) => make(systemId, id));
    }
    // --system takes a name or the id the keys carry; a 12-hex text is tried as an id first.
    const systems =
      request.system === undefined ? [] : LIGHT_ID.test(request.system) ? [request.system, this.shortId(request.system)] : [this.shortId(request.system)];
    const targets: V6Target[] = [];
    if (LIGHT_ID.test(light)) {
      // A bare light id without --system is looked for in every system (lights prints ids, not system names).
      if (request.system === undefined) targets.push(make(ANY_SYSTEM, light));
      else for (const systemId of systems) targets.push(make(systemId, light));
    }
    for (const systemId of systems) targets.push(make(systemId, this.shortId(light)));
    // A name without --system: whichever system has it; a name in several systems is an error that lists them.
    if (request.system === undefined) targets.push(make(ANY_SYSTEM, this.shortId(light)));
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

/**
 * Events held, stale buckets and drift of many 6.0 lights, with one HGETALL
 * and one ZRANGE per light, pipelined. Without a window nothing is stale
 * (6.0 stores no window size), and drift is null for a light too large to read here.
 */
async function surveyV6(redis: Redis, lights: readonly SurveyLight[], judge: JudgeOptions): Promise<LightHealth[]> {
  const out: LightHealth[] = [];
  // Stoplight's window rule (state.ts): 6.0's window is half-open and keeps no recovered_at.
  const cutoff = judge.windowSeconds === null ? null : readWindow(judge.at, judge.windowSeconds, null, 'half-open').fromSecond - 1;
  for (let i = 0; i < lights.length; i += SURVEY_BATCH) {
    const batch = lights.slice(i, i + SURVEY_BATCH).map((light) => {
      const hash = light.keys.find((k) => k.type === 'hash' && !k.key.endsWith(':ts_idx'));
      const index = light.keys.find((k) => k.type === 'zset' && k.key.endsWith(':ts_idx'));
      const small = (hash?.elements ?? 0) <= SURVEY_MAX_FIELDS && (index?.elements ?? 0) <= SURVEY_MAX_FIELDS;
      return { hash, index, small };
    });
    const pipeline = redis.pipeline();
    for (const { hash, index, small } of batch) {
      if (small && hash) pipeline.hgetall(hash.key);
      else pipeline.echo('');
      if (small && index) pipeline.zrange(index.key, 0, -1, 'WITHSCORES');
      else pipeline.echo('');
      const base = (hash ?? index)?.key.replace(/:window_metrics(?::ts_idx)?$/, '');
      if (base !== undefined) pipeline.hmget(`${base}:state`, ...STATE_FIELDS);
      else pipeline.echo('');
    }
    const replies = ((await pipeline.exec()) ?? []).map(([err, value]) => (err ? null : value));
    const stateOf = (j: number, fields: Record<string, string>): LightHealth['state'] => {
      const raw = replies[3 * j + 2];
      const stored: Record<string, string> = {};
      if (Array.isArray(raw)) STATE_FIELDS.forEach((f, k) => (raw[k] === null || raw[k] === undefined ? undefined : (stored[f] = String(raw[k]))));
      return lightState({ ...pick(fields, ['consecutive_errors', 'last_error_json']), ...stored }, judge.at);
    };
    batch.forEach(({ hash, index, small }, j) => {
      if (!small) {
        out.push({ events: null, staleEvents: null, staleBuckets: null, drift: null, window: null, state: stateOf(j, {}) });
        return;
      }
      const problems: string[] = [];
      const fields = hash ? ((replies[3 * j] ?? {}) as Record<string, string>) : {};
      const flat = index ? ((replies[3 * j + 1] ?? []) as string[]) : [];
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
        state: stateOf(j, fields),
        lastCallSecond: lastCallSecond(fields),
        consecutiveErrors: isCount(fields.consecutive_errors ?? '') ? count(fields.consecutive_errors) : null,
      });
    });
  }
  return out;
}

/**
 * Reads a Stoplight 6.0 light without changing it: HSCAN of the hash and
 * ZRANGE pages of the index, never the layout's scripts (they evict).
 * Returns null when neither key exists.
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
    // Only a SCAN finds the system (by default one paced pass, as swc lights makes: this may walk a large keyspace).
    const found = new Set<string>();
    const pattern = `${renderTemplate(table.rows.metrics.template, { prefix: escapeGlob(target.prefix), systemId: '*', lightId: target.lightId })}*`;
    for (const key of await search(pattern, 'unnamed')) {
      const id = LIGHT_KEY.exec(key.slice(target.prefix.length))?.[1];
      if (id !== undefined) found.add(id);
    }
    const systems = found;
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
    return inspectV6(redis, layout, table, { ...target, systemId: [...systems][0] as string }, judge, limits, search);
  }
  const all = v6Keys(table, target);
  const types = await keyTypes(
    redis,
    all.map((s) => s.key),
  );
  const specs = all.filter((_, i) => types[i] !== 'none');
  if (specs.length === 0) return null;

  const { result, consistent } = await readConsistently(
    redis,
    () => specs,
    async () => {
      const { headers, unavailable } = await describeKeys(redis, specs);
      const hash = headers.find((h) => h.role === 'metrics' && !h.wrongType);
      const index = headers.find((h) => h.role === 'index' && !h.wrongType);
      const fields = hash ? await readHash(redis, hash.key) : new Map<string, string>();
      const members: { member: string; score: number }[] = [];
      if (index) {
        await readSortedSet(redis, index.key, (page, scores) => {
          page.forEach((member, i) => members.push({ member, score: scores[i] as number }));
        });
      }
      return { headers, fields, members, unavailable };
    },
  );
  const { headers, fields, members, unavailable } = result;

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

  const indexLongest = new Longest();
  const indexed = new Set<number>();
  const badIndexMembers: string[] = [];
  for (const { member, score } of members) {
    indexLongest.see(member, `member ${member}`);
    const match = INDEX_MEMBER.exec(member);
    if (match && Number(match[1]) === score) indexed.add(score);
    else badIndexMembers.push(`${member} (score ${score})`);
  }

  const window = windowOf(judge);
  const cutoff = judge.windowSeconds === null ? null : readWindow(judge.at, judge.windowSeconds, null, 'half-open').fromSecond - 1;
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
  // 6.0 stores no window size: without one given, no rate is claimed.
  const windowTotals =
    judge.windowSeconds === null ? null : { successes: live.reduce((sum, b) => sum + b.successes, 0), failures: live.reduce((sum, b) => sum + b.failures, 0) };
  const drift = driftOf(storedTotals, bucketSum, counters, indexed, badIndexMembers, unknownFields);

  const keys = headers.map((header: KeyHeader) => ({
    ...header,
    limits: limitsOf(header, limits, header.role === 'metrics' ? hashLongest : indexLongest),
  }));
  const names = await namesFor(redis, target);
  // Released 6.0 keeps the state in a hash of its own beside the window metrics.
  const base = (headers[0]?.key ?? '').replace(/:window_metrics(?::ts_idx)?$/, '');
  const stateFields = base === '' ? [] : await redis.hmget(`${base}:state`, ...STATE_FIELDS);
  const stored: Record<string, string> = {};
  STATE_FIELDS.forEach((f, k) => {
    const v = stateFields[k];
    if (v !== null && v !== undefined) stored[f] = v;
  });
  const state = lightState({ ...pick(Object.fromEntries(metadata), ['consecutive_errors', 'last_error_json']), ...stored }, judge.at);
  return {
    kind: 'buckets',
    light: target.light,
    layout,
    systemId: target.systemId,
    lightId: target.lightId,
    ...names,
    keys,
    totals: bucketSum,
    storedTotals,
    windowTotals,
    buckets,
    drift,
    metadata: decodeMetadata(metadata),
    window,
    summary: summarize(windowTotals, keys, { windowSeconds: judge.windowSeconds }),
    consistent,
    problems,
    unavailable: unavailable === null ? [] : [unavailable],
    state,
    windowNotes: [],
  };
}

/**
 * The names of a 6.0 light's system and light: from the name book, the name
 * typed (when it hashes to the light id), or the light's entry in a Stoplight
 * registry of light configs (`<prefix>:<system id>:lights`, read-only).
 */
async function namesFor(redis: Redis, target: V6Target): Promise<{ systemName: string | null; lightName: string | null }> {
  const slash = target.light.indexOf('/');
  const typedSystem = slash > 0 ? target.light.slice(0, slash) : null;
  const systemName = target.names?.systems.get(target.systemId) ?? (typedSystem !== null && nameId(typedSystem) === target.systemId ? typedSystem : null);
  let lightName = target.names?.lights.get(target.lightId) ?? null;
  const typed = slash > 0 ? target.light.slice(slash + 1) : target.light;
  if (lightName === null && nameId(typed) === target.lightId) lightName = typed;
  if (lightName === null) {
    try {
      const entry = await redis.hget(`${target.prefix}:${target.systemId}:lights`, target.lightId);
      if (entry !== null) {
        const book = newNameBook();
        addRegistry(book, `${target.prefix}:${target.systemId}:lights`, new Map([[target.lightId, entry]]));
        lightName = book.lights.get(target.lightId) ?? null;
      }
    } catch {
      // Not a registry (a key of another type under its name): the light keeps its id.
    }
  }
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
