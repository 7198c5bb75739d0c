import { InputFileError } from '../core/errors.js';
import { readJsonFile } from '../core/json-file.js';
import type { BenchReport } from '../measure/types.js';
import { READABLE_RESULT_VERSIONS, SCHEMA_VERSION } from '../core/schema-version.js';
import { upgradeResult } from './upgrade.js';

/** The result schema this swc writes; it reads {@link READABLE_RESULT_VERSIONS} (older ones upgraded on load). */
export const RESULT_SCHEMA_VERSION = SCHEMA_VERSION;

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the fields `swc compare` reads. Everything else in a result is
 * carried along unchecked, so results that gained fields still load.
 */
function check(file: string, report: Fields): void {
  const fail = (field: string, expected: string): never => {
    throw new InputFileError(file, `${field}: expected ${expected}`);
  };
  const num = (v: unknown, field: string): void => {
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(field, 'a number');
  };
  // A light always has keys and a cell always has traffic: zero or less is a broken file, not a result.
  const positive = (v: unknown, field: string): void => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(field, 'a number above 0');
  };
  if (!isObject(report.redis)) fail('redis', 'an object with version and memAllocator');
  const redis = report.redis as Fields;
  if (typeof redis.version !== 'string') fail('redis.version', 'a string');
  if (typeof redis.memAllocator !== 'string') fail('redis.memAllocator', 'a string');
  if (redis.config !== undefined && !isObject(redis.config)) fail('redis.config', 'an object');
  if (report.options !== undefined && !isObject(report.options)) fail('options', 'an object');
  // The traffic settings compare decides on: each of the type a bench writes (a string seed compares as "differs" and hides a bad file).
  if (isObject(report.options)) {
    const o = report.options;
    if (o.seed !== undefined && o.seed !== null && (typeof o.seed !== 'number' || !Number.isSafeInteger(o.seed))) fail('options.seed', 'a whole number');
    if (o.failureRate !== undefined && (typeof o.failureRate !== 'number' || !(o.failureRate >= 0 && o.failureRate <= 1)))
      fail('options.failureRate', 'a number from 0 to 1');
    if (o.lights !== undefined && (typeof o.lights !== 'number' || !Number.isSafeInteger(o.lights) || o.lights < 1))
      fail('options.lights', 'a whole number above 0');
    if (o.realtime !== undefined && typeof o.realtime !== 'boolean') fail('options.realtime', 'true or false');
  }
  if (!Array.isArray(report.results)) fail('results', 'an array');
  // An empty baseline would pass any run: every current cell would be "extra".
  if ((report.results as unknown[]).length === 0) fail('results', 'at least one result (the file has none, so it would pass or fail nothing)');
  const seen = new Set<string>();
  (report.results as unknown[]).forEach((r, i) => {
    const at = `results[${i}]`;
    if (!isObject(r)) return fail(at, 'an object');
    if (typeof r.layout !== 'string') fail(`${at}.layout`, 'a string');
    positive(r.windowSeconds, `${at}.windowSeconds`);
    positive(r.rate, `${at}.rate`);
    if (!isObject(r.memory)) return fail(`${at}.memory`, 'an object');
    positive(r.memory.bytesPerLight, `${at}.memory.bytesPerLight`);
    num(r.memory.usedMemoryDeltaPerLight, `${at}.memory.usedMemoryDeltaPerLight`);
    if (r.throughput !== undefined) {
      if (!isObject(r.throughput)) return fail(`${at}.throughput`, 'an object');
      for (const op of ['write', 'read', 'request']) {
        const stats = r.throughput[op];
        if (!isObject(stats)) return fail(`${at}.throughput.${op}`, 'an object');
        positive(stats.opsPerSec, `${at}.throughput.${op}.opsPerSec`);
      }
    }
    const cell = `${String(r.layout)} window ${String(r.windowSeconds)} s rate ${String(r.rate)}`;
    if (seen.has(cell)) throw new InputFileError(file, `${at}: a second result for ${cell}`);
    seen.add(cell);
  });
}

/**
 * Validates parsed JSON as a `swc bench --json` result. Throws an
 * {@link InputFileError} naming the file: not a swc result, a schemaVersion
 * this swc does not read, or a field it needs missing or mistyped.
 */
export function parseReport(file: string, json: unknown): BenchReport {
  // A sweep (swc bench --sweep) holds one report per setting: which one to compare is the user's choice.
  if (isObject(json) && Object.hasOwn(json, 'sweep') && json.kind === 'sweep') {
    throw new InputFileError(
      file,
      "a swc bench --sweep result (one report per setting), not one bench result; compare one of its reports, e.g. jq '.sweep[0].report' file > one.json",
    );
  }
  // Own properties only: a key named like an Object.prototype member must not be found through the prototype.
  if (!isObject(json) || !Object.hasOwn(json, 'schemaVersion') || !Object.hasOwn(json, 'results')) {
    throw new InputFileError(file, 'not a swc bench result (expected the JSON of `swc bench --json`, with schemaVersion and results)');
  }
  if (typeof json.schemaVersion !== 'number' || !READABLE_RESULT_VERSIONS.includes(json.schemaVersion)) {
    throw new InputFileError(
      file,
      `schemaVersion ${JSON.stringify(json.schemaVersion)} is not supported: this swc reads schemaVersion ${READABLE_RESULT_VERSIONS.join(' or ')}`,
    );
  }
  // Checked as written (the messages name the file's own fields), then read in today's shape.
  check(file, json);
  return upgradeResult(json) as unknown as BenchReport;
}

/** Reads and validates a result file (see {@link parseReport}). */
export function loadReport(file: string): BenchReport {
  return parseReport(file, readJsonFile(file));
}
