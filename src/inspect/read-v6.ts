import type { Redis } from 'ioredis';
import type { ServerInfo } from '../redis/info.js';
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
  type KeyHeader,
  type KeySpec,
} from './keys.js';
import type { JudgeOptions, V6Bucket, V6Drift, V6Inspection, WindowView } from './types.js';

/** A 6.0 light by the ids its keys carry. */
export interface V6Target {
  /** The light as the user gave it, for reports. */
  readonly light: string;
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

/** The two keys of a 6.0 light. */
export function v6Keys(target: V6Target): KeySpec[] {
  const base = `${target.prefix}:${target.systemId}:{${target.lightId}}:window_metrics`;
  return [
    { key: base, role: 'metrics', expectedType: 'hash' },
    { key: `${base}:ts_idx`, role: 'index', expectedType: 'zset' },
  ];
}

/**
 * Reads a Stoplight 6.0 light without changing it: HSCAN of the hash and
 * ZRANGE pages of the index, never the layout's scripts (they evict).
 * Returns null when neither key exists.
 */
export async function inspectV6(
  redis: Redis,
  target: V6Target,
  judge: JudgeOptions,
  server: ServerInfo,
): Promise<V6Inspection | null> {
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
      const headers = await describeKeys(redis, specs);
      const hash = headers.find((h) => h.role === 'metrics' && !h.wrongType);
      const index = headers.find((h) => h.role === 'index' && !h.wrongType);
      const fields = hash ? await readHash(redis, hash.key) : new Map<string, string>();
      const members: { member: string; score: number }[] = [];
      if (index) {
        await readSortedSet(redis, index.key, (page, scores) => {
          page.forEach((member, i) => members.push({ member, score: scores[i] as number }));
        });
      }
      return { headers, fields, members };
    },
  );
  const { headers, fields, members } = result;

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
  const buckets: V6Bucket[] = [...counters]
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
    limits: limitsOf(header, server, header.role === 'metrics' ? hashLongest : indexLongest),
  }));
  return {
    light: target.light,
    layout: 'stoplight-v6',
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
  };
}

function driftOf(
  totals: { successes: number; failures: number },
  bucketSum: { successes: number; failures: number },
  counters: Map<number, unknown>,
  indexed: Set<number>,
  badIndexMembers: string[],
  unknownFields: string[],
): V6Drift {
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

/** The window as reports show it. */
export function windowOf(judge: JudgeOptions): WindowView {
  return {
    seconds: judge.windowSeconds,
    at: judge.at,
    clock: judge.clock,
    fromSecond: judge.windowSeconds === null ? null : judge.at - judge.windowSeconds + 1,
  };
}
