/**
 * The key model: a layout states its keys once, as a key table, and
 * everything that needs a light's keys reads them off that table: the KEYS of
 * its script calls, `keysOf` (what a benchmark measures and deletes), the
 * template inspector's SCAN patterns and key parsing, and a manifest's `keys`
 * (which are rows of the same shape).
 */
import { createHash } from 'node:crypto';
import { DEFAULT_SYSTEM, type Light } from '../../core/light.js';
import { escapeGlob } from '../parse.js';

/** The Redis types a layout may keep under a key. */
export const KEY_TYPES = ['hash', 'zset', 'string', 'list', 'set', 'stream'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/**
 * What a part of a key name stands for: the layout's prefix (a benchmark
 * puts its namespace in front), the light's and the system's names, their
 * hashed ids ({@link nameId}), the start of a clock hour, or any other whole
 * number (a bucket, a minute), which only an inspector can read back.
 */
export const KEY_PLACEHOLDERS = ['prefix', 'name', 'system', 'lightId', 'systemId', 'hour', 'number'] as const;
export type KeyPlaceholder = (typeof KEY_PLACEHOLDERS)[number];

/** Literal text, or a placeholder. */
export type KeyPart = string | { readonly placeholder: KeyPlaceholder };

/** A part of a key name under a known prefix: literal text, or what the name carries beside it. */
export type CarriedPart = string | { readonly placeholder: Exclude<KeyPlaceholder, 'prefix'> };

/** One row of a key table: a key every light has, or one per clock hour when the template holds `{hour}`. */
export interface KeyDef {
  /** What the key is for, e.g. `metadata`, `success events`; reports and the bench's key list show it. */
  readonly role: string;
  /** The key's name as parts, e.g. `[{prefix}, ':{', {name}, '}:ring']`. */
  readonly template: readonly KeyPart[];
  /** The type the layout keeps under this name. */
  readonly type: KeyType;
  /** Sorted-set scores of this key are Unix seconds (a listing then shows the span of a light's events). */
  readonly scoresAreSeconds?: boolean;
  /** The role `swc inspect` reports, where its decoder names the key otherwise (Stoplight 6.0's `metrics`, `index`). */
  readonly inspectRole?: string;
}

/** One key of one light, as a table names it. */
export interface LightKey {
  readonly key: string;
  /** What the key is for ({@link KeyDef.role}). */
  readonly role: string;
  /**
   * The type the layout keeps there (a {@link KeyType} for a table's keys);
   * an inspector that takes any type passes the one it found.
   */
  readonly type: string;
  /** Hash fields that change with every write (running counters): a consistent read watches them. */
  readonly watchFields?: readonly string[];
}

/** Seconds in the clock hour that `{hour}` stands for. */
export const HOUR_SECONDS = 3600;

/** The start of the clock hour that holds second `t`. */
export function hourStart(t: number): number {
  return Math.floor(t / HOUR_SECONDS) * HOUR_SECONDS;
}

/** 12 hex characters of SHA-256 of a name: `{lightId}` and `{systemId}` (as Stoplight 6.0 names systems and lights in keys). */
export function nameId(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 12);
}

/**
 * Parses a key template: `{prefix}`, `{name}`, `{system}`, `{lightId}`,
 * `{systemId}`, `{hour}` and `{number}` are placeholders; any other brace is
 * literal, so the Redis Cluster hash tag of `{prefix}:{systemId}:{{lightId}}`
 * stays in the key.
 */
export function parseTemplate(template: string): KeyPart[] {
  const parts: KeyPart[] = [];
  const pattern = new RegExp(`\\{(${KEY_PLACEHOLDERS.join('|')})\\}`, 'g');
  let last = 0;
  for (const match of template.matchAll(pattern)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    parts.push({ placeholder: match[1] as KeyPlaceholder });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

/** A key table's row from a template as written (see {@link parseTemplate}). */
export function keyDef(
  role: string,
  template: string,
  type: KeyType,
  options: { readonly scoresAreSeconds?: boolean; readonly inspectRole?: string } = {},
): KeyDef {
  return { role, template: parseTemplate(template), type, ...options };
}

/** Whether a template uses a placeholder. */
export function uses(template: readonly KeyPart[], placeholder: KeyPlaceholder): boolean {
  return template.some((part) => typeof part !== 'string' && part.placeholder === placeholder);
}

/** The values a light's keys carry; `hour` and `number` are given per key. */
export type KeyValues = Partial<Record<KeyPlaceholder, string>>;

/** A template with its values filled in (`hour`, when given, fills `{hour}`); a placeholder without a value renders as nothing. */
export function renderTemplate(template: readonly KeyPart[], values: KeyValues, hour?: number): string {
  let out = '';
  for (const part of template) {
    if (typeof part === 'string') out += part;
    else if (part.placeholder === 'hour' && hour !== undefined) out += String(hour);
    else out += values[part.placeholder] ?? '';
  }
  return out;
}

/** Options of a {@link KeyTable}. */
export interface KeyTableOptions {
  /**
   * How {@link KeyTable.keysOf} lists the keys of several hours: each row's
   * hours in turn (`row`, the default), or each hour's rows in turn (`hour`,
   * as Stoplight 5.x's keys are listed: success and failure of one hour together).
   */
  readonly order?: 'row' | 'hour';
  /** How names become `{lightId}` and `{systemId}`; default {@link nameId}. */
  readonly hashName?: (name: string) => string;
}

/** Cached ids and call keys per light: two SHA-256 per call would cost more client time than the call. */
const CACHE_LIGHTS = 10_000;

/**
 * A layout's keys, stated once, under one prefix: rows by the name the
 * layout's code uses for them, in the order the scripts take them. The rows'
 * templates start with `{prefix}`; the table fills it with the layout's
 * prefix (a benchmark's namespace included).
 */
export class KeyTable<K extends string = string> {
  readonly hashName: (name: string) => string;
  /** The rows, in table order. */
  readonly defs: readonly KeyDef[];
  private readonly order: 'row' | 'hour';
  private readonly hashed: boolean;
  private readonly values = new Map<string, KeyValues>();
  /** Call keys by light: a fill asks for the same few lights' keys hundreds of thousands of times. */
  private readonly calls = new Map<string, readonly string[]>();
  /** The last light asked for, most often the next one too. */
  private last: { readonly name: string; readonly system: string | undefined; readonly keys: readonly string[] } | undefined;

  constructor(
    readonly prefix: string,
    readonly rows: Readonly<Record<K, KeyDef>>,
    options: KeyTableOptions = {},
  ) {
    this.defs = Object.values<KeyDef>(rows);
    this.hashName = options.hashName ?? nameId;
    this.order = options.order ?? 'row';
    this.hashed = this.defs.some((def) => uses(def.template, 'lightId') || uses(def.template, 'systemId'));
  }

  /** The values of a light's keys (prefix, names and, when the table uses them, ids). */
  valuesOf(light: Light): KeyValues {
    const system = light.system ?? DEFAULT_SYSTEM;
    if (!this.hashed) return { prefix: this.prefix, name: light.name, system };
    const cacheKey = `${system}\u0000${light.name}`;
    let values = this.values.get(cacheKey);
    if (values === undefined) {
      values = { prefix: this.prefix, name: light.name, system, lightId: this.hashName(light.name), systemId: this.hashName(system) };
      if (this.values.size >= CACHE_LIGHTS) this.values.clear();
      this.values.set(cacheKey, values);
    }
    return values;
  }

  /** The key of row `row` for `light`; `hour` fills `{hour}`. */
  key(row: K, light: Light, hour?: number): string {
    return renderTemplate(this.rows[row].template, this.valuesOf(light), hour);
  }

  /** Every key of the table that is one per light (no `{hour}`), in table order: the KEYS most layouts' scripts take. */
  callKeys(light: Light): readonly string[] {
    const last = this.last;
    if (last !== undefined && last.name === light.name && last.system === light.system) return last.keys;
    const cacheKey = `${light.system ?? DEFAULT_SYSTEM}\u0000${light.name}`;
    let keys = this.calls.get(cacheKey);
    if (keys === undefined) {
      const values = this.valuesOf(light);
      keys = this.defs.filter((def) => !uses(def.template, 'hour')).map((def) => renderTemplate(def.template, values));
      if (this.calls.size >= CACHE_LIGHTS) this.calls.clear();
      this.calls.set(cacheKey, keys);
    }
    this.last = { name: light.name, system: light.system, keys };
    return keys;
  }

  /**
   * The keys that hold the light's events in `[fromSecond, toSecond]`: each
   * row once, and a row with `{hour}` once per clock hour of that span.
   */
  keysOf(light: Light, fromSecond: number, toSecond: number): LightKey[] {
    const values = this.valuesOf(light);
    const hours: number[] = [];
    for (let h = hourStart(fromSecond); h <= toSecond; h += HOUR_SECONDS) hours.push(h);
    const one = (def: KeyDef, hour?: number): LightKey => ({
      key: renderTemplate(def.template, values, hour),
      role: def.role,
      type: def.type,
    });
    if (this.order === 'row') return this.defs.flatMap((def) => (uses(def.template, 'hour') ? hours.map((h) => one(def, h)) : [one(def)]));
    const hourly = this.defs.filter((def) => uses(def.template, 'hour'));
    return [...this.defs.filter((def) => !uses(def.template, 'hour')).map((def) => one(def)), ...hours.flatMap((h) => hourly.map((def) => one(def, h)))];
  }

  /** A row's template with the prefix as literal text (what an inspector matches keys against). */
  resolved(def: KeyDef): CarriedPart[] {
    const parts: CarriedPart[] = [];
    for (const part of def.template) {
      const text = typeof part === 'string' ? part : part.placeholder === 'prefix' ? this.prefix : null;
      const previous = parts.at(-1);
      if (text === null) parts.push(part as CarriedPart);
      else if (typeof previous === 'string') parts[parts.length - 1] = previous + text;
      else parts.push(text);
    }
    return parts;
  }

  /** One SCAN MATCH pattern per distinct row (placeholders as `*`, literal text escaped). */
  scanPatterns(): string[] {
    const patterns = this.defs.map((def) =>
      this.resolved(def)
        .map((part) => (typeof part === 'string' ? escapeGlob(part) : '*'))
        .join(''),
    );
    return [...new Set(patterns)];
  }

  /**
   * One SCAN MATCH pattern for every key under the prefix, `<prefix>:*`: for
   * inspectors that decode more keys than the table states (Stoplight's
   * recovery probes) and take any key under the prefix as a candidate.
   */
  prefixPattern(): string[] {
    return [`${escapeGlob(this.prefix)}:*`];
  }
}
