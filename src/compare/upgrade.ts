/**
 * Results written by schemaVersion 1 (swc before the shared JSON contract,
 * docs/output.md) in today's shape, so `swc compare` and `--baseline` keep
 * reading baselines committed before it. Only names and units move; no
 * figure is recomputed, so the bytes per light of a baseline stay as written.
 */
import { isoMoment } from '../core/format.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Key roles of schemaVersion 1 and their names since (the names `swc inspect` uses). */
const ROLES_V1: Readonly<Record<string, string>> = { 'buckets, totals and metadata': 'metrics', 'bucket index': 'index' };

function rename(o: Fields, from: string, to: string): void {
  if (!Object.hasOwn(o, from)) return;
  if (!Object.hasOwn(o, to)) o[to] = o[from];
  delete o[from];
}

const moment = (v: unknown): unknown => (typeof v === 'number' && Number.isFinite(v) ? isoMoment(v) : v);

/** A spread of rounds (median, min, max, spread, noisy) or an instruction count (… spread, noisy): `spread` is a fraction. */
function upgradeSpreads(v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) upgradeSpreads(item);
    return;
  }
  if (!isObject(v)) return;
  if (typeof v.spread === 'number' || (v.spread === null && Object.hasOwn(v, 'noisy'))) rename(v, 'spread', 'spreadFraction');
  for (const value of Object.values(v)) upgradeSpreads(value);
}

function upgradeCell(cell: Fields): void {
  const memory = cell.memory;
  if (isObject(memory) && Array.isArray(memory.keys)) {
    for (const key of memory.keys) if (isObject(key) && typeof key.role === 'string') key.role = ROLES_V1[key.role] ?? key.role;
  }
  const throughput = cell.throughput;
  if (isObject(throughput)) {
    for (const op of ['write', 'read', 'request']) {
      const stats = throughput[op];
      if (isObject(stats)) rename(stats, 'seconds', 'durationSeconds');
    }
    throughput.clockEndAt = moment(throughput.clockEndAt);
    if (throughput.clockEndAt === undefined) delete throughput.clockEndAt;
  }
  const realtime = cell.realtime;
  if (isObject(realtime)) {
    rename(realtime, 'seconds', 'durationSeconds');
    rename(realtime, 'shortfall', 'shortfallFraction');
    realtime.startedAt = moment(realtime.startedAt);
    realtime.endedAt = moment(realtime.endedAt);
  }
  const accuracy = cell.accuracy;
  if (isObject(accuracy)) {
    rename(accuracy, 'seconds', 'durationSeconds');
    rename(accuracy, 'decisionMismatchShare', 'decisionMismatchFraction');
  }
  upgradeSpreads(cell);
}

/**
 * A parsed schemaVersion 1 bench result, upgraded in a copy to
 * {@link SCHEMA_VERSION}; anything else is returned as it is.
 */
export function upgradeResult(json: Fields): Fields {
  if (json.schemaVersion !== 1) return json;
  const copy = structuredClone(json);
  copy.schemaVersion = SCHEMA_VERSION;
  rename(copy, 'wallSeconds', 'measuringSeconds');
  rename(copy, 'instructionsWallSeconds', 'instructionsSeconds');
  if (Array.isArray(copy.results)) for (const cell of copy.results) if (isObject(cell)) upgradeCell(cell);
  if (Array.isArray(copy.encodingHints)) {
    for (const hint of copy.encodingHints) if (isObject(hint) && typeof hint.role === 'string') hint.role = ROLES_V1[hint.role] ?? hint.role;
  }
  for (const name of ['suggestion', 'suggestions']) {
    const value = copy[name];
    for (const row of Array.isArray(value) ? value : [value]) if (isObject(row)) upgradeSuggestion(row);
  }
  return copy;
}

function upgradeSuggestion(s: Fields): void {
  const rows = Array.isArray(s.ranking) ? s.ranking : [];
  for (const row of rows) if (isObject(row)) rename(row, 'decisionFlipShare', 'decisionFlipFraction');
}
