import type { Redis } from 'ioredis';
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
  summarize,
  windowOf,
  type KeyHeader,
  type KeySpec,
} from '../inspect/keys.js';
import type { Bucket, BucketDrift, BucketInspection, EncodingLimits, JudgeOptions } from '../inspect/types.js';
import { escapeGlob, escapeRegExp } from './parse.js';
import { DEFAULT_SYSTEM, type InspectTarget, type KeyOwner, type LayoutInspector, type TargetRequest } from './types.js';

/** The 12 hex characters of SHA-256 that 6.0 keys carry instead of names. */
type ShortId = (name: string) => string;

/** A 6.0 light by the ids its keys carry. */
export interface V6Target extends InspectTarget {
  readonly prefix: string;
  readonly systemId: string;
  readonly lightId: string;
}

const BUCKET_FIELD = /^bucket:(\d+):([sf])$/;
const INDEX_MEMBER = /^bucket:(\d+)$/;
const TOTAL_FIELDS = new Set(['total_successes', 'total_failures']);
const METADATA_FIELDS = new Set([
  'last_success_at',
  'last_error_at',
  'last_error_json',
  'consecutive_errors',
  'consecutive_successes',
]);

const LIGHT_ID = /^[0-9a-f]{12}$/;
/** Fields that change with every write, so a read under load notices writes that keep the hash's size. */
const WATCH_FIELDS = ['total_successes', 'total_failures', 'consecutive_successes', 'consecutive_errors'];

/** The two keys of a 6.0 light. */
function v6Keys(target: Pick<V6Target, 'prefix' | 'systemId' | 'lightId'>): KeySpec[] {
  const base = `${target.prefix}:${target.systemId}:{${target.lightId}}:window_metrics`;
  return [
    { key: base, role: 'metrics', expectedType: 'hash', watchFields: WATCH_FIELDS },
    { key: `${base}:ts_idx`, role: 'index', expectedType: 'zset' },
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

  constructor(
    private readonly layout: string,
    private readonly prefix: string,
    private readonly shortId: ShortId,
  ) {
    this.keyPattern = new RegExp(
      `^((?:.*:)?${escapeRegExp(prefix)}):([0-9a-f]{12}):\\{([0-9a-f]{12})\\}(:window_metrics(?::ts_idx)?)?$`,
      's',
    );
  }

  scanPatterns(): string[] {
    return [`${escapeGlob(this.prefix)}:*`];
  }

  lightOfKey(key: string): KeyOwner | null {
    const match = this.keyPattern.exec(key);
    if (!match?.[4]) return null;
    return {
      light: match[3] as string,
      system: match[2] as string,
      role: match[4].endsWith(':ts_idx') ? 'index' : 'metrics',
      scoresAreSeconds: true,
    };
  }

  targetsFor(request: TargetRequest): V6Target[] {
    const { light } = request;
    // A full key, or the light's key base without the suffix.
    const key = this.keyPattern.exec(light);
    if (key) {
      const target = { light, prefix: key[1] as string, systemId: key[2] as string, lightId: key[3] as string };
      return [{ ...target, lookedFor: [v6Keys(target)[0]?.key ?? light] }];
    }
    const systemId = this.shortId(request.system ?? DEFAULT_SYSTEM);
    // A 12-hex text is tried as a light id first, then as a name.
    const ids = LIGHT_ID.test(light) ? [light, this.shortId(light)] : [this.shortId(light)];
    return ids.map((lightId) => {
      const target = { light, prefix: this.prefix, systemId, lightId };
      return { ...target, lookedFor: [v6Keys(target)[0]?.key ?? ''] };
    });
  }

  inspect(redis: Redis, target: V6Target, judge: JudgeOptions, limits: EncodingLimits): Promise<BucketInspection | null> {
    return inspectV6(redis, this.layout, target, judge, limits);
  }
}

/**
 * Reads a Stoplight 6.0 light without changing it: HSCAN of the hash and
 * ZRANGE pages of the index, never the layout's scripts (they evict).
 * Returns null when neither key exists.
 */
async function inspectV6(
  redis: Redis,
  layout: string,
  target: V6Target,
  judge: JudgeOptions,
  limits: EncodingLimits,
): Promise<BucketInspection | null> {
  const all = v6Keys(target);
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
  const cutoff = judge.windowSeconds === null ? null : judge.at - judge.windowSeconds;
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

  const totals = { successes: count(fields.get('total_successes')), failures: count(fields.get('total_failures')) };
  const bucketSum = {
    successes: buckets.reduce((sum, b) => sum + b.successes, 0),
    failures: buckets.reduce((sum, b) => sum + b.failures, 0),
  };
  const live = buckets.filter((b) => !b.stale && !b.future);
  const windowTotals = {
    successes: live.reduce((sum, b) => sum + b.successes, 0),
    failures: live.reduce((sum, b) => sum + b.failures, 0),
  };
  const drift = driftOf(totals, bucketSum, counters, indexed, badIndexMembers, unknownFields);

  const keys = headers.map((header: KeyHeader) => ({
    ...header,
    limits: limitsOf(header, limits, header.role === 'metrics' ? hashLongest : indexLongest),
  }));
  return {
    kind: 'buckets',
    light: target.light,
    layout,
    systemId: target.systemId,
    lightId: target.lightId,
    keys,
    totals,
    windowTotals,
    buckets,
    drift,
    metadata: decodeMetadata(metadata),
    window,
    summary: summarize(windowTotals, keys, { windowSeconds: judge.windowSeconds }),
    consistent,
    problems,
    unavailable: unavailable === null ? [] : [unavailable],
  };
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
