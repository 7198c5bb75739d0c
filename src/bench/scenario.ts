import { InputFileError, UsageError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import path from 'node:path';
import { resolveLayoutName, type LayoutName } from '../layouts/index.js';
import { presets } from './presets.js';
import { checkInFlight, LIMITS, parseChoice, parseDuration, parseNumber } from './values.js';

/** The throughput phase a scenario asks for; see {@link Scenario.throughput}. */
export interface ScenarioThroughput {
  readonly connections: number;
  readonly pipeline: number;
  /** Operations per phase; when absent, `seconds` (or the bench default) applies. */
  readonly ops?: number;
  /** Seconds per phase. */
  readonly seconds?: number;
  /** Rounds per phase (`--rounds`). */
  readonly rounds?: number;
}

/**
 * A scenario file: the fields of one `swc bench` run, each optional (absent =
 * the flag's default). Flags given on the command line override fields.
 */
export interface Scenario {
  /** The file it came from, as given. */
  readonly file: string;
  readonly description?: string;
  readonly layouts?: readonly LayoutName[];
  /** Seconds. */
  readonly windows?: readonly number[];
  readonly rates?: readonly number[];
  readonly failureRate?: number;
  readonly lights?: number;
  /** Simulated traffic seconds per cell; absent = one window. */
  readonly duration?: number;
  readonly seed?: number;
  readonly preset?: string;
  /** `false` = memory only. */
  readonly throughput?: ScenarioThroughput | false;
  /** Measure accuracy (`--accuracy`). */
  readonly accuracy?: boolean;
  /** The failure ratio a light opens at (`--threshold`; implies accuracy). */
  readonly threshold?: number;
}

type Fields = Record<string, unknown>;

const KNOWN = ['$schema', 'description', 'layouts', 'windows', 'rates', 'failureRate', 'lights', 'duration', 'seed', 'preset', 'throughput', 'accuracy', 'threshold'];
const THROUGHPUT_KNOWN = ['connections', 'pipeline', 'ops', 'seconds', 'rounds'];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `"${value}"` : typeof value === 'object' ? 'an object' : String(value);
}

/** Re-throws a parser's UsageError as an InputFileError naming the file (the parser already named the field). */
function inFile<T>(file: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof UsageError && !(err instanceof InputFileError)) throw new InputFileError(file, err.message);
    throw err;
  }
}

function number(file: string, field: string, value: unknown, limits: Parameters<typeof parseNumber>[2]): number {
  if (typeof value !== 'number') throw new InputFileError(file, `${field}: expected a number, got ${describe(value)}`);
  return inFile(file, () => parseNumber(field, String(value), limits));
}

/** A duration field: seconds as a number, or a string such as "90s", "5m", "1h". */
function duration(file: string, field: string, value: unknown, limits: { min: number; max: number }): number {
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw new InputFileError(file, `${field}: expected seconds or a duration such as "5m", got ${describe(value)}`);
  }
  return inFile(file, () => parseDuration(field, String(value), limits));
}

function list<T>(file: string, field: string, value: unknown, item: (v: unknown, field: string) => T): T[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InputFileError(file, `${field}: expected a non-empty array, got ${describe(value)}`);
  }
  return [...new Set(value.map((v, i) => item(v, `${field}[${i}]`)))];
}

function onlyKnown(file: string, fields: Fields, known: readonly string[], where: string): void {
  const unknown = Object.keys(fields).find((k) => !known.includes(k));
  if (unknown !== undefined) {
    throw new InputFileError(file, `${where}${unknown}: unknown field (known: ${known.filter((k) => k !== '$schema').join(', ')})`);
  }
}

function flag(file: string, field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InputFileError(file, `${field}: expected true or false, got ${describe(value)}`);
  return value;
}

function throughputOf(file: string, value: unknown): ScenarioThroughput | false {
  if (value === false) return false;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputFileError(file, `throughput: expected false or an object with connections and pipeline, got ${describe(value)}`);
  }
  const t = value as Fields;
  onlyKnown(file, t, THROUGHPUT_KNOWN, 'throughput.');
  const connections = number(file, 'throughput.connections', t.connections, LIMITS.connections);
  const pipeline = number(file, 'throughput.pipeline', t.pipeline, LIMITS.pipeline);
  inFile(file, () => checkInFlight(connections, pipeline, ['throughput.connections', 'throughput.pipeline']));
  return {
    connections,
    pipeline,
    ...(t.ops !== undefined ? { ops: number(file, 'throughput.ops', t.ops, LIMITS.ops) } : {}),
    ...(t.seconds !== undefined ? { seconds: number(file, 'throughput.seconds', t.seconds, LIMITS.time) } : {}),
    ...(t.rounds !== undefined ? { rounds: number(file, 'throughput.rounds', t.rounds, LIMITS.rounds) } : {}),
  };
}

/**
 * Validates parsed JSON as a scenario. Every problem is an
 * {@link InputFileError} naming the file and the field, worded as the
 * matching flag's error would be (same parsers, same limits).
 */
export function parseScenario(file: string, json: unknown): Scenario {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new InputFileError(file, `expected a scenario object such as {"windows": [60], "rates": [1, 2]}, got ${describe(json)}`);
  }
  const f = json as Fields;
  onlyKnown(file, f, KNOWN, '');
  if (f.description !== undefined && typeof f.description !== 'string') {
    throw new InputFileError(file, `description: expected a string, got ${describe(f.description)}`);
  }
  const text = (field: string, v: unknown): string => {
    if (typeof v !== 'string') throw new InputFileError(file, `${field}: expected a string, got ${describe(v)}`);
    return v;
  };
  return {
    file,
    ...(f.description !== undefined ? { description: f.description as string } : {}),
    ...(f.layouts !== undefined
      ? {
          layouts: list(file, 'layouts', f.layouts, (v, field) => {
            const spec = text(field, v);
            // A manifest path is relative to the scenario file, as a user reading the file expects.
            try {
              return resolveLayoutName(spec, { baseDir: path.dirname(file) });
            } catch (err) {
              if (err instanceof UsageError && !(err instanceof InputFileError)) {
                throw new InputFileError(file, `${field}: ${err.message.replace(/^--layout: /, '')}`);
              }
              throw err;
            }
          }),
        }
      : {}),
    ...(f.windows !== undefined ? { windows: list(file, 'windows', f.windows, (v, field) => duration(file, field, v, LIMITS.window)) } : {}),
    ...(f.rates !== undefined ? { rates: list(file, 'rates', f.rates, (v, field) => number(file, field, v, LIMITS.rate)) } : {}),
    ...(f.failureRate !== undefined ? { failureRate: number(file, 'failureRate', f.failureRate, LIMITS.failureRate) } : {}),
    ...(f.lights !== undefined ? { lights: number(file, 'lights', f.lights, LIMITS.lights) } : {}),
    ...(f.duration !== undefined ? { duration: duration(file, 'duration', f.duration, LIMITS.duration) } : {}),
    ...(f.seed !== undefined ? { seed: number(file, 'seed', f.seed, LIMITS.seed) } : {}),
    ...(f.preset !== undefined ? { preset: inFile(file, () => parseChoice('preset', text('preset', f.preset), Object.keys(presets))) } : {}),
    ...(f.throughput !== undefined ? { throughput: throughputOf(file, f.throughput) } : {}),
    ...(f.accuracy !== undefined ? { accuracy: flag(file, 'accuracy', f.accuracy) } : {}),
    ...(f.threshold !== undefined ? { threshold: number(file, 'threshold', f.threshold, LIMITS.failureRate) } : {}),
  };
}

/** Reads and validates a scenario file (see {@link parseScenario}). */
export function loadScenario(file: string): Scenario {
  return parseScenario(file, readJsonFile(file));
}
