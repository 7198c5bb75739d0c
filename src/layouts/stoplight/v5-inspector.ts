import type { Redis } from 'ioredis';
import { decodeMetadata, describeKeys, keyTypes, limitsOf, Longest, readConsistently, readHash, readSortedSet, summarize } from '../inspection-keys.js';
import type { EncodingLimits, EventInspection, EventKey, EventSecond, JudgeOptions, LightHealth, SurveyLight } from '../inspection.js';
import type { KeyTable, LightKey } from '../kit/keys.js';
import { scanOnce } from '../../redis/scan.js';
import { escapeGlob, escapeRegExp } from '../parse.js';
import type { InspectTarget, KeyOwner, LayoutInspector, TargetRequest } from '../types.js';
import { v6Estimate } from './v6-memory.js';

/** A 5.x light: its raw name is in every key. */
export interface V5Target extends InspectTarget {
  readonly prefix: string;
  readonly name: string;
}

/** `<outcome>:<hour_start>` after `…:metrics:<name>:`. */
const V5_EVENTS_SUFFIX = /^(success|failure|recovery_probe_success|recovery_probe_failure):(\d+)$/;

/**
 * The keys of a 5.x light that exist: its metadata hash and every hour key.
 * SCAN's pattern also matches lights whose name extends this one with a colon
 * (`a` and `a:b`), so the rest of each key must be exactly outcome and hour.
 */
async function v5Keys(redis: Redis, target: V5Target): Promise<LightKey[]> {
  const metadata = `${target.prefix}:metadata:${target.name}`;
  const eventsPrefix = `${target.prefix}:metrics:${target.name}:`;
  const [metadataType] = await keyTypes(redis, [metadata]);
  const specs: LightKey[] = metadataType === 'none' ? [] : [{ key: metadata, role: 'metadata', type: 'hash' }];
  // One paced SCAN pass, as swc lights makes: this walks the whole keyspace.
  const found: string[] = [];
  await scanOnce(redis, [`${escapeGlob(eventsPrefix)}*`], (key) => found.push(key));
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
  ) {
    const prefix = table.prefix;
    this.prefix = prefix;
    // `s`: names may hold any character, line breaks included.
    this.metadataPattern = new RegExp(`^((?:.*:)?${escapeRegExp(prefix)}):metadata:(.+)$`, 's');
    this.metricsPattern = new RegExp(`^((?:.*:)?${escapeRegExp(prefix)}):metrics:(.+)$`, 's');
  }

  scanPatterns(): string[] {
    // Every key under the prefix: the recovery probes' hour keys are 5.x's too, though no write of swc makes them.
    return this.table.prefixPattern();
  }

  /** The prefix, the name and the role of a 5.x key; null for any other key. */
  parse(key: string): { prefix: string; name: string; role: string } | null {
    const metadata = this.metadataPattern.exec(key);
    if (metadata) return { prefix: metadata[1] as string, name: metadata[2] as string, role: 'metadata' };
    const metrics = this.metricsPattern.exec(key);
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

  targetsFor(request: TargetRequest): V5Target[] {
    const parsed = this.parse(request.light);
    const prefix = parsed?.prefix ?? this.prefix;
    const name = parsed?.name ?? request.light;
    return [{ light: request.light, prefix, name, lookedFor: [`${prefix}:metadata:${name}`, `${prefix}:metrics:${name}:*`] }];
  }

  inspect(redis: Redis, target: V5Target, judge: JudgeOptions, limits: EncodingLimits): Promise<EventInspection | null> {
    return inspectV5(redis, this.layout, this.maxWindowSeconds, target, judge, limits);
  }

  /**
   * Events held (ZCARD, already read by the listing) and events outside the
   * window (one ZCOUNT per hour key, pipelined), with an estimate of the same
   * traffic in 6.0. Without a window, stale means older than the longest
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
    const pipeline = redis.pipeline();
    // With --window, also the events inside it ([at - window, at], as 5.x counts), for the failure rate.
    const counted = judge.windowSeconds !== null;
    for (const keys of eventKeys) {
      for (const k of keys) {
        pipeline.zcount(k.key, '-inf', before);
        if (counted) pipeline.zcount(k.key, judge.at - windowSeconds, judge.at);
      }
    }
    const replies = ((await pipeline.exec()) ?? []).map(([err, value]) => (err ? 0 : Number(value)));
    let next = 0;
    return lights.map((light, i) => {
      const keys = eventKeys[i] ?? [];
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
      return {
        events,
        staleEvents: stale,
        staleBuckets: null,
        drift: null,
        estimate: v6Estimate(light, events - stale, judge.windowSeconds, this.maxWindowSeconds),
        window: counted ? window : null,
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
  target: V5Target,
  judge: JudgeOptions,
  limits: EncodingLimits,
): Promise<EventInspection | null> {
  const specs = await v5Keys(redis, target);
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
  const windowSeconds = Math.min(judge.windowSeconds ?? maxWindowSeconds, maxWindowSeconds);
  const recovered = Number(metadata.get('recovered_at'));
  const start = judge.at - windowSeconds;
  const recoveredAt = Number.isFinite(recovered) && recovered > start ? Math.floor(recovered) : null;
  const fromSecond = recoveredAt ?? start;

  const seconds: EventSecond[] = [...perSecond]
    .sort(([a], [b]) => a - b)
    .map(([second, tally]) => ({
      second,
      ageSeconds: judge.at - second,
      successes: tally.successes,
      failures: tally.failures,
      stale: second < fromSecond || second > judge.at,
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
  };
}
