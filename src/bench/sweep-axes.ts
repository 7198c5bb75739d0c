/** `--sweep <setting>=<v1>,<v2>,…`: the settings a sweep may change and the flag's parser (no measurement code). */
import { UsageError } from '../core/errors.js';

/** Combinations a sweep may run (each on a server of its own, the whole matrix each). */
export const MAX_SWEEP_COMBINATIONS = 16;

/** Largest value accepted for a size setting: far past any listpack worth having. */
const MAX_SIZE = 1_000_000;
/** Largest positive list-max-listpack-size: Redis caps a quicklist node's entry count at 32767. */
const MAX_LIST_ENTRIES = 32_767;

interface SettingSpec {
  /** The name in the `*-listpack-*` spelling (the one CONFIG GET and the reports use on Redis 7). */
  readonly canonical: string;
  readonly min: number;
  readonly max: number;
  /** Values in [min, max] the server does not take. */
  readonly excluded?: readonly number[];
  readonly range: string;
}

const size = (canonical: string): SettingSpec => ({ canonical, min: 0, max: MAX_SIZE, range: `0 to ${MAX_SIZE.toLocaleString('en-US')}` });

/**
 * The listpack, ziplist and intset settings of redis-server: every name a
 * sweep accepts (the `*-ziplist-*` names are Redis's older aliases). The
 * set-max-listpack ones exist from Redis 7.2; an older server is caught
 * when its first combination starts.
 */
const SETTINGS: ReadonlyMap<string, SettingSpec> = new Map([
  ['hash-max-listpack-entries', size('hash-max-listpack-entries')],
  ['hash-max-listpack-value', size('hash-max-listpack-value')],
  ['hash-max-ziplist-entries', size('hash-max-listpack-entries')],
  ['hash-max-ziplist-value', size('hash-max-listpack-value')],
  ['zset-max-listpack-entries', size('zset-max-listpack-entries')],
  ['zset-max-listpack-value', size('zset-max-listpack-value')],
  ['zset-max-ziplist-entries', size('zset-max-listpack-entries')],
  ['zset-max-ziplist-value', size('zset-max-listpack-value')],
  ['set-max-intset-entries', size('set-max-intset-entries')],
  ['set-max-listpack-entries', size('set-max-listpack-entries')],
  ['set-max-listpack-value', size('set-max-listpack-value')],
  ...(['list-max-listpack-size', 'list-max-ziplist-size'] as const).map((name): [string, SettingSpec] => [
    name,
    {
      canonical: 'list-max-listpack-size',
      min: -5,
      max: MAX_LIST_ENTRIES,
      excluded: [0],
      range: `-5 to -1 (node size 4 KB to 64 KB) or 1 to ${MAX_LIST_ENTRIES.toLocaleString('en-US')} (entries per node)`,
    },
  ]),
]);

/** Every setting name `--sweep` accepts, in a stable order. */
export const SWEEP_SETTINGS: readonly string[] = [...SETTINGS.keys()];

/** One `--sweep` flag: a setting and the values to try, in the order given. */
export interface SweepAxis {
  /** As typed (lower case): passed to redis-server under this name. */
  readonly setting: string;
  /** The `*-listpack-*` spelling, to catch the same setting twice. */
  readonly canonical: string;
  readonly values: readonly number[];
}

/** The canonical spelling of a setting name, or undefined when it is not one a sweep may change. */
export function canonicalSetting(name: string): string | undefined {
  return SETTINGS.get(name.toLowerCase())?.canonical;
}

/** Parses one `--sweep` value: `<setting>=<v1>,<v2>,…` with whole numbers in the setting's range. */
export function parseSweep(text: string): SweepAxis {
  const match = /^(?:--)?([A-Za-z][A-Za-z0-9-]*)=(.*)$/s.exec(text.trim());
  if (!match?.[1] || match[2] === undefined) {
    throw new UsageError(`--sweep: expected <setting>=<v1>,<v2>,… (e.g. hash-max-listpack-value=64,256), got "${text}"`);
  }
  const setting = match[1].toLowerCase();
  const spec = SETTINGS.get(setting);
  if (!spec) {
    throw new UsageError(`--sweep: ${setting} is not a listpack, ziplist or intset setting; accepted: ${SWEEP_SETTINGS.join(', ')}`);
  }
  const parts = match[2].split(',').map((p) => p.trim());
  if (match[2].trim() === '' || parts.some((p) => p === '')) {
    throw new UsageError(
      `--sweep: ${setting}: expected a comma-separated list of whole numbers (e.g. ${setting}=${spec.min === 0 ? '64,256' : '-2,-1'}), got "${match[2]}"`,
    );
  }
  const values: number[] = [];
  for (const part of parts) {
    const n = /^[+-]?\d+$/.test(part) ? Number(part) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < spec.min || n > spec.max || spec.excluded?.includes(n)) {
      throw new UsageError(`--sweep: ${setting} takes whole numbers from ${spec.range}, got "${part}"`);
    }
    if (!values.includes(n)) values.push(n);
  }
  return { setting, canonical: spec.canonical, values };
}
