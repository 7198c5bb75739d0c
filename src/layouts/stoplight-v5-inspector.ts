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
  scanKeys,
  summarize,
  type KeySpec,
} from '../inspect/keys.js';
import type { EncodingLimits, EventInspection, EventKey, EventSecond, JudgeOptions } from '../inspect/types.js';
import { escapeGlob, escapeRegExp } from './parse.js';
import type { InspectTarget, KeyOwner, LayoutInspector, TargetRequest } from './types.js';

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
async function v5Keys(redis: Redis, target: V5Target): Promise<KeySpec[]> {
  const metadata = `${target.prefix}:metadata:${target.name}`;
  const eventsPrefix = `${target.prefix}:metrics:${target.name}:`;
  const [metadataType] = await keyTypes(redis, [metadata]);
  const specs: KeySpec[] = metadataType === 'none' ? [] : [{ key: metadata, role: 'metadata', expectedType: 'hash' }];
  const events = (await scanKeys(redis, `${escapeGlob(eventsPrefix)}*`))
    .map((key) => ({ key, match: V5_EVENTS_SUFFIX.exec(key.slice(eventsPrefix.length)) }))
    .filter((k): k is { key: string; match: RegExpExecArray } => k.match !== null)
    .sort((a, b) => Number(a.match[2]) - Number(b.match[2]) || (a.match[1] as string).localeCompare(b.match[1] as string));
  for (const { key, match } of events) specs.push({ key, role: `${match[1]} events`, expectedType: 'zset' });
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

  constructor(
    private readonly layout: string,
    private readonly prefix: string,
    /** The longest window the layout's read honours. */
    private readonly maxWindowSeconds: number,
  ) {
    // `s`: names may hold any character, line breaks included.
    this.metadataPattern = new RegExp(`^((?:.*:)?${escapeRegExp(prefix)}):metadata:(.+)$`, 's');
    this.metricsPattern = new RegExp(`^((?:.*:)?${escapeRegExp(prefix)}):metrics:(.+)$`, 's');
  }

  scanPatterns(): string[] {
    return [`${escapeGlob(this.prefix)}:*`];
  }

  /** The prefix, the name and the role of a 5.x key; null for any other key. */
  private parse(key: string): { prefix: string; name: string; role: string } | null {
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
    return parsed ? { light: parsed.name, system: null, role: parsed.role, scoresAreSeconds: true } : null;
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
  const totals = {
    successes: live.reduce((sum, s) => sum + s.successes, 0),
    failures: live.reduce((sum, s) => sum + s.failures, 0),
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
    seconds,
    hours,
    metadata: decodeMetadata(metadata),
    recoveredAt,
    window: { seconds: windowSeconds, at: judge.at, clock: judge.clock, fromSecond },
    summary: summarize(totals, keys, { heldEvents: hours.reduce((sum, h) => sum + h.events, 0) }),
    consistent,
    problems,
    unavailable: unavailable === null ? [] : [unavailable],
  };
}
