import path from 'node:path';
import type { z } from 'zod';
import { closedObject, expected, jointIssue, lazy, parseInput, zod } from '../core/input-schema.js';
import { InputFileError, UsageError } from '../core/errors.js';
import { readJsonFile } from '../core/json-file.js';
import { resolveLayoutName, type LayoutName } from '../layouts/index.js';
import { presets } from './presets.js';
import { checkInFlight, LIMITS, parseChoice, parseDuration, parseNumber } from '../run/values.js';

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

/**
 * Runs one of the flag parsers (values.ts) on a file field: its message
 * names the flag it was given, the field is named by the schema's path, so
 * the parser gets a stand-in name and its problem is the issue's message.
 */
const FIELD = 'field';
function byFlagParser<T>(parse: (field: string) => T, ctx: z.core.$RefinementCtx): T {
  try {
    return parse(FIELD);
  } catch (err) {
    if (!(err instanceof UsageError) || err instanceof InputFileError) throw err;
    ctx.issues.push({ code: 'custom', message: err.message.replace(`${FIELD}: `, ''), input: undefined });
    return zod().NEVER;
  }
}

const text = lazy(() => zod().string({ error: expected('a string') }));

function number(limits: Parameters<typeof parseNumber>[2]) {
  return zod()
    .number({ error: expected('a number') })
    .transform((value, ctx) => byFlagParser((field) => parseNumber(field, String(value), limits), ctx));
}

/** A duration field: seconds as a number, or a string such as "90s", "5m", "1h". */
function duration(limits: { min: number; max: number }) {
  const z = zod();
  return z
    .union([z.number(), z.string()], { error: expected('seconds or a duration such as "5m"') })
    .transform((value, ctx) => byFlagParser((field) => parseDuration(field, String(value), limits), ctx));
}

/** A non-empty list, duplicates dropped. */
function list<T extends z.ZodType>(item: T) {
  return zod()
    .array(item, { error: expected('a non-empty array') })
    .min(1, { error: expected('a non-empty array'), abort: true })
    .transform((items) => [...new Set(items)]);
}

const throughput = lazy(() =>
  zod().union(
    [
      zod().literal(false),
      closedObject({
        connections: number(LIMITS.connections),
        pipeline: number(LIMITS.pipeline),
        ops: number(LIMITS.ops).optional(),
        seconds: number(LIMITS.time).optional(),
        rounds: number(LIMITS.rounds).optional(),
      }).superRefine(({ connections, pipeline }, ctx) => {
        const names = ['throughput.connections', 'throughput.pipeline'] as const;
        try {
          checkInFlight(connections, pipeline, names);
        } catch (err) {
          if (!(err instanceof UsageError)) throw err;
          ctx.addIssue(jointIssue([['connections'], ['pipeline']], err.message.replace(`${names.join('/')}: `, '')));
        }
      }),
    ],
    { error: expected('false or an object with connections and pipeline') },
  ),
);

/** The schema of a scenario from `file`: its manifest paths are relative to the file's folder. */
function scenarioSchema(file: string) {
  const z = zod();
  const layout = text().transform((spec, ctx): LayoutName => {
    // A manifest path is relative to the scenario file, as a user reading the file expects.
    try {
      return resolveLayoutName(spec, { baseDir: path.dirname(file) });
    } catch (err) {
      if (!(err instanceof UsageError) || err instanceof InputFileError) throw err;
      ctx.issues.push({ code: 'custom', message: err.message.replace(/^--layout: /, ''), input: spec });
      return z.NEVER;
    }
  });
  return closedObject(
    {
      $schema: z.unknown().optional(),
      description: text().optional(),
      layouts: list(layout).optional(),
      windows: list(duration(LIMITS.window)).optional(),
      rates: list(number(LIMITS.rate)).optional(),
      failureRate: number(LIMITS.failureRate).optional(),
      lights: number(LIMITS.lights).optional(),
      duration: duration(LIMITS.duration).optional(),
      seed: number(LIMITS.seed).optional(),
      preset: text()
        .transform((name, ctx) => byFlagParser((field) => parseChoice(field, name, Object.keys(presets)), ctx))
        .optional(),
      throughput: throughput().optional(),
      accuracy: z.boolean({ error: expected('true or false') }).optional(),
      threshold: number(LIMITS.failureRate).optional(),
    },
    { what: 'a scenario object such as {"windows": [60], "rates": [1, 2]}' },
  );
}

/**
 * Validates parsed JSON as a scenario. Every problem is an
 * {@link InputFileError} naming the file and the field, worded as the
 * matching flag's error would be (same parsers, same limits).
 */
export function parseScenario(file: string, json: unknown): Scenario {
  const { $schema: _, ...fields } = parseInput(scenarioSchema(file), file, json);
  return { file, ...fields };
}

/** Reads and validates a scenario file (see {@link parseScenario}). */
export function loadScenario(file: string): Scenario {
  return parseScenario(file, readJsonFile(file));
}
