import type { Redis } from 'ioredis';
import {
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
} from '../inspection-keys.js';
import type { EncodingLimits, EventInspection, EventKey, EventSecond, JudgeOptions, LightHealth, SurveyLight } from '../inspection.js';
import type { KeyTable, LightKey } from '../kit/keys.js';
import { escapeGlob, escapeRegExp } from '../parse.js';
import type { InspectTarget, KeyOwner, KeySearch, LayoutInspector, TargetRequest, WindowDeviation } from '../types.js';
import { lastCallSecond, lightState, NO_WINDOW_NOTE, readWindow, V5_FIRST_SECOND_OF_HOUR, windowNotes } from './state.js';

/** A 5.x light: its raw name is in every key. */
export interface V5Target extends InspectTarget {
  readonly prefix: string;
  readonly name: string;
}

/** `<outcome>:<hour_start>` after `…:metrics:<name>:`. */
const V5_EVENTS_SUFFIX = /^(success|failure|recovery_probe_success|recovery_probe_failure):(\d+)$/;

const OUTCOMES = ['success', 'failure', 'recovery_probe_success', 'recovery_probe_failure'] as const;
const HOUR = 3600;
/** An hour key lives a day after its last write, and that write fell in its hour or a little after: a day and two hours back covers it. */
const HOUR_KEY_REACH = 86_400 + 2 * HOUR;
/** Metadata stamps of writes: hour keys were written around them. */
const WRITE_STAMPS = ['last_success_at', 'last_error_at', 'recovered_at'];

/**
 * The hours whose keys may still exist around each moment: from a day and
 * two hours before it to the hour after it (a client clock slightly ahead),
 * at most a few dozen per moment.
 */
export function candidateHours(moments: readonly number[]): number[] {
  const hours = new Set<number>();
  for (const t of moments) {
    if (!Number.isFinite(t) || t <= 0) continue;
    const last = Math.floor(t / HOUR) * HOUR + HOUR;
    for (let h = Math.floor((t - HOUR_KEY_REACH) / HOUR) * HOUR; h <= last; h += HOUR) hours.add(h);
  }
  return [...hours].sort((a, b) => a - b);
}

/** A stamp as 5.x stores it (seconds, maybe with a fraction); null for anything else. */
function stampSecond(value: string | null | undefined): number | null {
  const n = Number(value ?? '');
  return value !== null && value !== undefined && value !== '' && Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
}

/**
 * The keys of a 5.x light that exist: its metadata hash and every hour key.
 * Both are named without SCAN: the metadata by the name, the hour keys by
 * the hours around the moment judged, the server's clock and the metadata's
 * write stamps (an hour key expires a day after its last write). Only when
 * none of them exists is `search` asked: its pattern also matches lights
 * whose name extends this one with a colon (`a` and `a:b`), so the rest of
 * each key must be exactly outcome and hour.
 */
async function v5Keys(redis: Redis, target: V5Target, judge: JudgeOptions, search: KeySearch): Promise<LightKey[]> {
  const metadata = `${target.prefix}:metadata:${target.name}`;
  const eventsPrefix = `${target.prefix}:metrics:${target.name}:`;
  const [metadataType] = await keyTypes(redis, [metadata]);
  const specs: LightKey[] = metadataType === 'none' ? [] : [{ key: metadata, role: 'metadata', type: 'hash' }];
  const moments = [judge.at];
  if (judge.clock === 'given') moments.push(Number((await redis.time())[0]));
  if (metadataType === 'hash') {
    for (const stamp of await redis.hmget(metadata, ...WRITE_STAMPS)) {
      const second = stampSecond(stamp);
      if (second !== null) moments.push(second);
    }
  }
  const named = candidateHours(moments).flatMap((hour) => OUTCOMES.map((outcome) => `${eventsPrefix}${outcome}:${hour}`));
  const types = await keyTypes(redis, named);
  let found = named.filter((_, i) => types[i] !== 'none');
  if (found.length === 0 && specs.length === 0) found = await search(`${escapeGlob(eventsPrefix)}*`, 'beyond');
  const events = found
    .map((key) => ({ key, match: V5_EVENTS_SUFFIX.exec(key.slice(eventsPrefix.length)) }))
    .filter((k): k is { key: string; match: RegExpExecArray } => k.match !== null)
    .sort((a, b) => Number(a.match[2]) - Number(b.match[2]) || (a.match[1] as string).localeCompare(b.match[1] as string));
  for (const { key, match } of events) specs.push({ key, role: `${match[1]} events`, type: 'zset' });
  return specs;
}

/**
 * Reads Stoplight 5.x lights: `<prefix>:metadata:<name>` (a hash) and
 * `<prefix>:metrics:<name>:<outcome>:<hour start>` (a sorted set of events per
 * clock hour). Names are raw and may hold colons, so a key is split from the
 * right: the last two parts are the outcome and the hour.
 */
export class StoplightV5Inspector implements LayoutInspector {
  private readonly metadataPattern: RegExp;
  private readonly metricsPattern: RegExp;
  private readonly prefix: string;

  constructor(
    private readonly layout: string,
    /** The layout's key table: where its lights' keys are. The names in them are decoded here, from the right. */
    private readonly table: KeyTable,
    /** The longest window the layout's read honours. */
    private readonly maxWindowSeconds: number,
    /** How the layout's read departs from the exact window (5.x: the first second of a clock hour). */
    private readonly deviations: readonly WindowDeviation[] = [V5_FIRST_SECOND_OF_HOUR],
  ) {
    const prefix = table.prefix;
    this.prefix = prefix;
    // `s`: names may hold any character, line breaks included. The first
    // `<prefix>:metadata:` wins (lazy): the name `proxy:stoplight:v5:metadata:inner`
    // is the rest of `stoplight:v5:metadata:proxy:stoplight:v5:metadata:inner`.
    this.metadataPattern = new RegExp(`^((?:.*?:)??${escapeRegExp(prefix)}):metadata:(.+)$`, 's');
    this.metricsPattern = new RegExp(`^((?:.*?:)??${escapeRegExp(prefix)}):metrics:(.+)$`, 's');
  }

  scanPatterns(): string[] {
    // Every key under the prefix: the recovery probes' hour keys are 5.x's too, though no write of swc makes them.
    return this.table.prefixPattern();
  }

  /** The prefix, the name and the role of a 5.x key; null for any other key. */
  parse(key: string): { prefix: string; name: string; role: string } | null {
    const metadata = this.metadataPattern.exec(key);
    const metrics = this.metricsPattern.exec(key);
    // The first prefix in the key wins, whichever kind of key follows it.
    const metadataFirst = metadata !== null && (metrics === null || (metadata[1] as string).length <= (metrics[1] as string).length);
    if (metadata && metadataFirst) return { prefix: metadata[1] as string, name: metadata[2] as string, role: 'metadata' };
    if (!metrics) return null;
    const rest = metrics[2] as string;
    const cut = rest.lastIndexOf(':', rest.lastIndexOf(':') - 1);
    const suffix = cut > 0 ? V5_EVENTS_SUFFIX.exec(rest.slice(cut + 1)) : null;
    if (!suffix) return null;
    return { prefix: metrics[1] as string, name: rest.slice(0, cut), role: `${suffix[1]} events` };
  }

  lightOfKey(key: string): KeyOwner | null {
    const parsed = this.parse(key);
    return parsed
      ? { light: parsed.name, system: null, role: parsed.role, scoresAreSeconds: true, expectedType: parsed.role === 'metadata' ? 'hash' : 'zset' }
      : null;
  }

  /**
   * A key gives its light; a name is looked for as is. Text that reads as
   * both (the name `proxy:stoplight:v5:metadata:inner` is also a key of the
   * light `inner` under the prefix `proxy:stoplight:v5`) is looked for both
   * ways, the key first: the first with keys wins.
   */
  targetsFor(request: TargetRequest): V5Target[] {
    const target = (prefix: string, name: string): V5Target => ({
      light: request.light,
      prefix,
      name,
      lookedFor: [`${prefix}:metadata:${name}`, `${prefix}:metrics:${name}:*`],
    });
    const parsed = this.parse(request.light);
    const asName = target(this.prefix, request.light);
    return parsed ? [target(parsed.prefix, parsed.name), asName] : [asName];
  }

  inspect(redis: Redis, target: V5Target, judge: JudgeOptions, limits: EncodingLimits, search?: KeySearch): Promise<EventInspection | null> {
    return inspectV5(redis, this.layout, this.maxWindowSeconds, this.deviations, target, judge, limits, search ?? scanSearch(redis));
  }

  /**
   * Events held (ZCARD, already read by the listing) and events outside the
   * window (one ZCOUNT per hour key, pipelined). Without a window, stale means older than the longest
   * window 5.x honours (a day): held, but outside every window.
   */
  async survey(redis: Redis, lights: readonly SurveyLight[], judge: JudgeOptions): Promise<LightHealth[]> {
    const windowSeconds = Math.min(judge.windowSeconds ?? this.maxWindowSeconds, this.maxWindowSeconds);
    const before = `(${judge.at - windowSeconds}`;
    const eventKeys = lights.map((light) =>
      light.keys.filter((k) => {
        const role = this.parse(k.key)?.role;
        return k.type === 'zset' && (role === 'success events' || role === 'failure events');
      }),
    );
    const metadataKeys = lights.map((light) => light.keys.find((k) => k.type === 'hash' && this.parse(k.key)?.role === 'metadata')?.key ?? null);
    // The metadata first (state, recovered_at, stamps): the window's start depends on it.
    const metaPipeline = redis.pipeline();
    for (const key of metadataKeys) {
      if (key === null) metaPipeline.echo('');
      else metaPipeline.hgetall(key);
    }
    const metas = ((await metaPipeline.exec()) ?? []).map(([err, value]) =>
      err || value === null || typeof value !== 'object' ? {} : (value as Record<string, string>),
    );
    // With --window, also the events inside it, as Stoplight's read counts them (readWindow), for the failure rate.
    const counted = judge.windowSeconds !== null;
    const windows = metas.map((meta) => readWindow(judge.at, windowSeconds, meta.recovered_at, 'closed', this.deviations));
    const pipeline = redis.pipeline();
    eventKeys.forEach((keys, i) => {
      const w = windows[i] as (typeof windows)[number];
      for (const k of keys) {
        pipeline.zcount(k.key, '-inf', before);
        if (counted) pipeline.zcount(k.key, w.fromSecond, w.toSecond);
      }
    });
    const replies = ((await pipeline.exec()) ?? []).map(([err, value]) => (err ? 0 : Number(value)));
    let next = 0;
    return lights.map((light, i) => {
      const keys = eventKeys[i] ?? [];
      const meta = metas[i] ?? {};
      const hasMetadata = metadataKeys[i] !== null;
      const events = keys.reduce((sum, k) => sum + k.elements, 0);
      let stale = 0;
      const window = { successes: 0, failures: 0 };
      for (const k of keys) {
        stale += replies[next++] ?? 0;
        if (!counted) continue;
        const n = replies[next++] ?? 0;
        if (this.parse(k.key)?.role === 'failure events') window.failures += n;
        else window.successes += n;
      }
      const errors = Number(meta.consecutive_errors);
      const notes =
        hasMetadata && light.keys.every((k) => k.type === 'hash') ? [NO_WINDOW_NOTE] : counted ? windowNotes(windows[i] as (typeof windows)[number]) : [];
      return {
        events,
        staleEvents: stale,
        staleBuckets: null,
        drift: null,
        window: counted ? window : null,
        ...(hasMetadata ? { state: lightState(meta, judge.moment ?? judge.at), lastCallSecond: lastCallSecond(meta) } : {}),
        consecutiveErrors: Number.isFinite(errors) && meta.consecutive_errors !== undefined ? errors : null,
        notes,
      };
    });
  }
}

/**
 * Reads a Stoplight 5.x light: the metadata hash, then every hour key in
 * ZRANGE pages, tallying events per second. Returns null when it has no key.
 */
async function inspectV5(
  redis: Redis,
  layout: string,
  maxWindowSeconds: number,
  deviations: readonly WindowDeviation[],
  target: V5Target,
  judge: JudgeOptions,
  limits: EncodingLimits,
  search: KeySearch,
): Promise<EventInspection | null> {
  const specs = await v5Keys(redis, target, judge, search);
  if (specs.length === 0) return null;

  const { result, consistent } = await readConsistently(
    redis,
    () => specs,
    async () => {
      const { headers, unavailable } = await describeKeys(redis, specs);
      let metadata = new Map<string, string>();
      const longest = new Map<string, Longest>();
      const perSecond = new Map<number, { successes: number; failures: number }>();
      const hours: EventKey[] = [];
      for (const header of headers) {
        const seen = new Longest();
        longest.set(header.key, seen);
        if (header.wrongType) continue;
        if (header.role === 'metadata') {
          metadata = await readHash(redis, header.key);
          for (const [field, value] of metadata) {
            seen.see(field, `field ${field}`);
            seen.see(value, `value of ${field}`);
          }
          continue;
        }
        const match = V5_EVENTS_SUFFIX.exec(header.key.slice(`${target.prefix}:metrics:${target.name}:`.length));
        const outcome = match?.[1] ?? '';
        let events = 0;
        let first: number | null = null;
        let last: number | null = null;
        await readSortedSet(redis, header.key, (members, scores) => {
          members.forEach((member, i) => {
            seen.see(member, 'member');
            const second = Math.floor(scores[i] as number);
            events += 1;
            first ??= second;
            last = second;
            if (outcome !== 'success' && outcome !== 'failure') return;
            const tally = perSecond.get(second) ?? { successes: 0, failures: 0 };
            if (outcome === 'success') tally.successes += 1;
            else tally.failures += 1;
            perSecond.set(second, tally);
          });
        });
        hours.push({ key: header.key, outcome, hour: Number(match?.[2]), events, firstSecond: first, lastSecond: last });
      }
      return { headers, metadata, longest, perSecond, hours, unavailable };
    },
  );
  const { headers, metadata, longest, perSecond, hours, unavailable } = result;

  const problems = headers
    .filter((h) => h.wrongType)
    .map((h) => `${h.key} is a ${h.type}, expected a ${h.expectedType}: not a Stoplight 5.x ${h.role} key, not read`);

  // Stoplight 5.x caps the window at a day, since hour keys live that long,
  // and never counts events from before the light last recovered.
  // The window rule is Stoplight's, stated once (state.ts): max(at - window, recovered_at), then the hour-key rule.
  const windowSeconds = Math.min(judge.windowSeconds ?? maxWindowSeconds, maxWindowSeconds);
  const fields = Object.fromEntries(metadata);
  const read = readWindow(judge.at, windowSeconds, fields.recovered_at, 'closed', deviations);
  const { recoveredAt, fromSecond } = read;
  const hasEvents = headers.some((h) => h.role !== 'metadata');

  const seconds: EventSecond[] = [...perSecond]
    .sort(([a], [b]) => a - b)
    .map(([second, tally]) => ({
      second,
      ageSeconds: judge.at - second,
      successes: tally.successes,
      failures: tally.failures,
      stale: second < fromSecond || second > read.toSecond,
    }));
  const live = seconds.filter((s) => !s.stale);
  const windowTotals = {
    successes: live.reduce((sum, s) => sum + s.successes, 0),
    failures: live.reduce((sum, s) => sum + s.failures, 0),
  };
  const totals = {
    successes: seconds.reduce((sum, s) => sum + s.successes, 0),
    failures: seconds.reduce((sum, s) => sum + s.failures, 0),
  };
  const keys = headers.map((header) => ({
    ...header,
    limits: limitsOf(header, limits, longest.get(header.key) ?? new Longest()),
  }));
  return {
    kind: 'events',
    light: target.light,
    layout,
    keys,
    totals,
    windowTotals,
    seconds,
    hours,
    metadata: decodeMetadata(metadata),
    recoveredAt,
    window: { lengthSeconds: windowSeconds, at: judge.at, clock: judge.clock, fromSecond, source: judge.windowSeconds === null ? 'layout' : 'given' },
    summary: summarize(windowTotals, keys, { heldEvents: hours.reduce((sum, h) => sum + h.events, 0) }),
    consistent,
    problems,
    unavailable: unavailable === null ? [] : [unavailable],
    ...(metadata.size > 0 ? { state: lightState(fields, judge.moment ?? judge.at) } : {}),
    windowNotes: hasEvents ? windowNotes(read) : [NO_WINDOW_NOTE],
  };
}
