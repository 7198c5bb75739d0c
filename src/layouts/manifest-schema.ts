/**
 * The layout manifest: a JSON file that describes a sliding-window layout
 * swc does not ship (its scripts, how to call them, how to read their
 * replies, its keys), validated field by field with one-line errors.
 */
import { InputFileError } from '../errors.js';
import { INCLUDE_CONVENTIONS, type IncludeConvention } from '../lua/source.js';
import { KEY_TYPES, type KeyDef, type KeyPart } from './kit/keys.js';
import type { WindowSemantics } from './types.js';

/** The manifest format version this swc reads. */
export const MANIFEST_VERSION = 1;

/** The operations a manifest describes, in the order they are reported. */
export const OPERATIONS = ['recordSuccess', 'recordFailure', 'getMetrics'] as const;
export type OperationName = (typeof OPERATIONS)[number];

/** Where a script gets the time from. */
export type ClockSource =
  /** An argument in seconds (fractional allowed): `{now}`, `{nowSeconds}`, `{windowStart}`, `{windowEnd}`. */
  | 'argv'
  /** An argument in milliseconds: `{nowMs}`, `{windowStartMs}`. */
  | 'argv-ms'
  /** Redis `TIME`; under an injected clock swc wraps the script so `TIME` returns the injected time. */
  | 'redis-time';

const CLOCKS: readonly ClockSource[] = ['argv', 'argv-ms', 'redis-time'];
const SEMANTICS: readonly WindowSemantics[] = ['closed', 'half-open'];

/**
 * Every placeholder a template may use, with what it stands for. Templates
 * write them in braces (`{lightId}`); a brace that does not open a
 * placeholder is literal, so a hash tag is `{{lightId}}`, and `{lbrace}` is a
 * literal `{` where a word in braces would otherwise read as a placeholder.
 */
export const PLACEHOLDERS = {
  prefix: "the key prefix (the manifest's `prefix`; a benchmark puts its namespace in front)",
  name: 'the light name, as given',
  system: 'the system name (default "default")',
  lightId: 'first 12 hex characters of SHA-256 of the light name',
  systemId: 'first 12 hex characters of SHA-256 of the system name',
  hour: 'start of the clock hour (Unix seconds, a multiple of 3600): of the event, or of each hour in an `eachHour` list',
  lbrace: 'a literal "{"',
  now: 'event or read time in seconds, fractional as given',
  nowSeconds: 'event or read time in whole seconds (floor)',
  nowMs: 'event or read time in whole milliseconds',
  window: 'window size in seconds (capped at maxWindowSeconds)',
  windowStart: 'nowSeconds - window',
  windowStartMs: 'nowMs - window × 1000',
  windowEnd: 'nowSeconds',
  hourCount: 'how many hours each `eachHour` list of this operation holds',
  eventId: 'a unique event id, 24 hex characters (writes only)',
  errorJson: 'the error as JSON text (recordFailure only)',
} as const;
export type Placeholder = keyof typeof PLACEHOLDERS;

/** Placeholders a light's key templates may use: they name keys without a clock or an event. */
const KEY_PLACEHOLDERS: ReadonlySet<Placeholder> = new Set(['prefix', 'name', 'system', 'lightId', 'systemId', 'hour', 'lbrace']);
const SECONDS_CLOCK: ReadonlySet<Placeholder> = new Set(['now', 'nowSeconds', 'windowStart', 'windowEnd']);
const MS_CLOCK: ReadonlySet<Placeholder> = new Set(['nowMs', 'windowStartMs']);

/** A template split into literal text and placeholders. */
export type Template = readonly (string | { readonly placeholder: Placeholder })[];

/** One KEYS or ARGV item: a template, a number, or one item per hour of the window. */
export type Item =
  | { readonly kind: 'template'; readonly template: Template }
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'eachHour'; readonly template: Template; readonly through: 'now' | 'now-1s' };

/**
 * Where a snapshot field is in a reply: a position in the reply array, or
 * field names in its hash; with `json`, that value is JSON text and the field
 * is its member of that name (Stoplight 6.0 replies no last_error_at: its
 * client reads the time from the error JSON).
 */
export type Pick = ({ readonly at: number } | { readonly fields: readonly string[] }) & { readonly json?: string };

/** How to read a reply as a snapshot. */
export interface ReplySpec {
  /** Position of a flat HGETALL array in the reply, for fields picked by name. */
  readonly hash?: number;
  readonly successes: Pick;
  readonly failures: Pick;
  readonly lastSuccessAt?: Pick;
  readonly lastErrorAt?: Pick;
  readonly lastErrorJson?: Pick;
  readonly consecutiveErrors?: Pick;
  readonly consecutiveSuccesses?: Pick;
}
const REPLY_FIELDS = ['hash', 'successes', 'failures', 'lastSuccessAt', 'lastErrorAt', 'lastErrorJson', 'consecutiveErrors', 'consecutiveSuccesses'];

/** One operation: its script and how to call it. */
export interface OperationSpec {
  /** The script's path under the scripts root, as written. */
  readonly script: string;
  readonly keys: readonly Item[];
  readonly args: readonly Item[];
  readonly reply?: ReplySpec;
}

/** One key a light has: a row of the layout's key table (kit/keys.ts), as the manifest wrote it. */
export interface KeySpec extends KeyDef {
  /** The template as written, for messages and inspection. */
  readonly text: string;
  readonly scoresAreSeconds: boolean;
}

/** A validated manifest. */
export interface Manifest {
  /** The file, as given. */
  readonly file: string;
  readonly name: string;
  readonly summary: string;
  readonly prefix: string;
  readonly windowSemantics: WindowSemantics;
  readonly maxWindowSeconds?: number;
  /** How the scripts stamp last_success_at / last_error_at: whole seconds (default) or with milliseconds. */
  readonly stampPrecision: 'seconds' | 'milliseconds';
  readonly clock: ClockSource;
  readonly includes: IncludeConvention;
  /** The scripts folder as written (relative to the manifest's folder). */
  readonly scriptsRoot: string;
  readonly capabilities: { readonly failureReturnsSnapshot: boolean; readonly readWrites: boolean };
  readonly keys: readonly KeySpec[];
  readonly operations: Readonly<Record<OperationName, OperationSpec>>;
}

type Fields = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value}"`;
  return typeof value === 'object' ? 'an object' : String(value);
}

/** Validates one manifest; every error is an InputFileError naming the file and the field. */
class Checker {
  constructor(private readonly file: string) {}

  fail(field: string, problem: string): never {
    throw new InputFileError(this.file, `${field}: ${problem}`);
  }

  object(field: string, value: unknown): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(field, `expected an object, got ${describe(value)}`);
    return value as Fields;
  }

  onlyKnown(field: string, fields: Fields, known: readonly string[]): void {
    for (const key of Object.keys(fields)) {
      if (!known.includes(key)) {
        this.fail(field ? `${field}.${key}` : key, `unknown field (known: ${known.filter((k) => k !== '$schema').join(', ')})`);
      }
    }
  }

  string(field: string, value: unknown, { empty = false } = {}): string {
    if (typeof value !== 'string' || (!empty && value === '')) this.fail(field, `expected a non-empty string, got ${describe(value)}`);
    return value;
  }

  choice<T extends string>(field: string, value: unknown, choices: readonly T[]): T {
    if (typeof value !== 'string' || !choices.includes(value as T)) {
      this.fail(field, `expected one of ${choices.map((c) => `"${c}"`).join(', ')}, got ${describe(value)}`);
    }
    return value as T;
  }

  boolean(field: string, value: unknown): boolean {
    if (typeof value !== 'boolean') this.fail(field, `expected true or false, got ${describe(value)}`);
    return value;
  }

  wholeNumber(field: string, value: unknown, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(field, `expected a whole number from ${min} to ${max}, got ${describe(value)}`);
    }
    return value;
  }

  array(field: string, value: unknown, { nonEmpty = false } = {}): unknown[] {
    if (!Array.isArray(value) || (nonEmpty && value.length === 0)) {
      this.fail(field, `expected ${nonEmpty ? 'a non-empty ' : 'an '}array, got ${describe(value)}`);
    }
    return value;
  }

  template(field: string, value: unknown, allowed: (p: Placeholder) => string | null): Template {
    const text = this.string(field, value, { empty: true });
    const parts: (string | { placeholder: Placeholder })[] = [];
    let last = 0;
    for (const match of text.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      const word = match[1] as string;
      if (!Object.hasOwn(PLACEHOLDERS, word)) {
        this.fail(field, `unknown placeholder "{${word}}" (known: ${Object.keys(PLACEHOLDERS).map((p) => `{${p}}`).join(', ')})`);
      }
      const refused = allowed(word as Placeholder);
      if (refused) this.fail(field, `placeholder "{${word}}" ${refused}`);
      if (match.index > last) parts.push(text.slice(last, match.index));
      parts.push(word === 'lbrace' ? '{' : { placeholder: word as Placeholder });
      last = match.index + match[0].length;
    }
    if (last < text.length) parts.push(text.slice(last));
    // Adjacent literals (a `{lbrace}` next to text) join into one.
    return parts.reduce<(string | { placeholder: Placeholder })[]>((joined, part) => {
      const previous = joined.at(-1);
      if (typeof part === 'string' && typeof previous === 'string') joined[joined.length - 1] = previous + part;
      else joined.push(part);
      return joined;
    }, []);
  }
}

/** The placeholders a list of KEYS or ARGV items uses, each once. */
export function placeholdersOf(items: readonly Item[]): Set<Placeholder> {
  const used = new Set<Placeholder>();
  for (const item of items) {
    if (item.kind === 'literal') continue;
    for (const part of item.template) if (typeof part !== 'string') used.add(part.placeholder);
  }
  return used;
}

function operation(check: Checker, field: string, value: unknown, name: OperationName, clock: ClockSource): OperationSpec {
  const fields = check.object(field, value);
  check.onlyKnown(field, fields, ['script', 'keys', 'args', 'reply', 'description']);
  const script = check.string(`${field}.script`, fields.script);
  if (!script.endsWith('.lua')) check.fail(`${field}.script`, `expected a path to a .lua file, got "${script}"`);
  const allowed = (inList: boolean) => (p: Placeholder): string | null => {
    if (p === 'errorJson' && name !== 'recordFailure') return 'is only known in recordFailure';
    if (p === 'eventId' && name === 'getMetrics') return 'is only known in recordSuccess and recordFailure';
    if (p === 'hourCount' && inList) return 'cannot be used inside an eachHour list';
    return null;
  };
  const items = (part: 'keys' | 'args'): Item[] =>
    check.array(`${field}.${part}`, fields[part]).map((raw, i): Item => {
      const at = `${field}.${part}[${i}]`;
      if (typeof raw === 'number') {
        if (!Number.isFinite(raw)) check.fail(at, `expected a finite number, got ${raw}`);
        return { kind: 'literal', value: String(raw) };
      }
      if (typeof raw === 'string') return { kind: 'template', template: check.template(at, raw, allowed(false)) };
      if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
        const list = raw as Fields;
        check.onlyKnown(at, list, ['eachHour', 'through']);
        const template = check.template(`${at}.eachHour`, list.eachHour, allowed(true));
        if (!template.some((p) => typeof p !== 'string' && p.placeholder === 'hour')) {
          check.fail(`${at}.eachHour`, 'must contain "{hour}" (one item per hour of the window)');
        }
        const through = list.through === undefined ? 'now' : check.choice(`${at}.through`, list.through, ['now', 'now-1s'] as const);
        return { kind: 'eachHour', template, through };
      }
      return check.fail(at, `expected a template string, a number or { "eachHour": … }, got ${describe(raw)}`);
    });
  const keys = items('keys');
  const args = items('args');
  const lists = [...keys, ...args].filter((item) => item.kind === 'eachHour');
  if (new Set(lists.map((l) => l.through)).size > 1) {
    check.fail(field, 'every eachHour list of one operation must use the same "through" ({hourCount} counts one of them)');
  }
  const used = placeholdersOf([...keys, ...args]);
  if (used.has('hourCount') && lists.length === 0) check.fail(field, '"{hourCount}" is used but no eachHour list is');
  const argUsed = placeholdersOf(args);
  const clockSet = clock === 'argv' ? SECONDS_CLOCK : clock === 'argv-ms' ? MS_CLOCK : null;
  if (clockSet && ![...clockSet].some((p) => argUsed.has(p))) {
    check.fail(
      `${field}.args`,
      `clock is "${clock}" but no argument carries the time (use ${[...clockSet].map((p) => `{${p}}`).join(', ')})`,
    );
  }
  const spec: OperationSpec = { script, keys, args };
  if (fields.reply === undefined) return spec;
  return { ...spec, reply: reply(check, `${field}.reply`, fields.reply) };
}

function reply(check: Checker, field: string, value: unknown): ReplySpec {
  const fields = check.object(field, value);
  check.onlyKnown(field, fields, REPLY_FIELDS);
  const hash = fields.hash === undefined ? undefined : check.wholeNumber(`${field}.hash`, fields.hash, 0, 1000);
  const pick = (name: string, input?: unknown): Pick | undefined => {
    const at = `${field}.${name}`;
    const raw = input ?? fields[name];
    if (raw === undefined) return undefined;
    if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
      const inner = raw as Fields;
      check.onlyKnown(at, inner, ['from', 'json']);
      if (inner.from === undefined) check.fail(`${at}.from`, 'required (a position in the reply, or hash field name(s))');
      const from = pick(`${name}.from`, inner.from) as Pick;
      return { ...from, json: check.string(`${at}.json`, inner.json) };
    }
    if (typeof raw === 'number') return { at: check.wholeNumber(at, raw, 0, 1000) };
    if (typeof raw !== 'string' && !Array.isArray(raw)) {
      check.fail(at, `expected a position, hash field name(s), or { "from": …, "json": "<member>" }, got ${describe(raw)}`);
    }
    const names = typeof raw === 'string' ? [raw] : check.array(at, raw, { nonEmpty: true }).map((n, i) => check.string(`${at}[${i}]`, n));
    if (names.some((n) => n === '')) check.fail(at, 'a hash field name cannot be empty');
    if (hash === undefined) check.fail(at, `picks hash field "${names[0]}" but "hash" (the position of the HGETALL array) is not set`);
    return { fields: names };
  };
  const successes = pick('successes');
  const failures = pick('failures');
  if (!successes) check.fail(`${field}.successes`, 'required (a position in the reply, or a hash field name)');
  if (!failures) check.fail(`${field}.failures`, 'required (a position in the reply, or a hash field name)');
  const optional = (name: keyof ReplySpec): Partial<ReplySpec> => {
    const p = pick(name);
    return p ? { [name]: p } : {};
  };
  return {
    ...(hash !== undefined ? { hash } : {}),
    successes,
    failures,
    ...optional('lastSuccessAt'),
    ...optional('lastErrorAt'),
    ...optional('lastErrorJson'),
    ...optional('consecutiveErrors'),
    ...optional('consecutiveSuccesses'),
  };
}

const TOP_LEVEL = [
  '$schema',
  'manifestVersion',
  'name',
  'summary',
  'description',
  'prefix',
  'windowSemantics',
  'maxWindowSeconds',
  'stampPrecision',
  'clock',
  'includes',
  'scriptsRoot',
  'capabilities',
  'keys',
  'operations',
];

/** Whether two templates are the same text and placeholders. */
function sameTemplate(a: readonly KeyPart[], b: Template): boolean {
  return (
    a.length === b.length &&
    a.every((part, i) => {
      const other = b[i];
      return typeof part === 'string' ? part === other : typeof other !== 'string' && other !== undefined && other.placeholder === part.placeholder;
    })
  );
}

/**
 * Every KEYS item of every operation must be one of the light's declared
 * keys: a literal key name, or a template of its own, would let a script
 * be handed a key outside swc's namespace (an application's key), which
 * swc would then write and never know to delete.
 */
function checkOperationKeys(check: Checker, keys: readonly KeySpec[], operations: Record<OperationName, OperationSpec>): void {
  const declared = keys.map((k) => k.text).join(', ');
  for (const op of OPERATIONS) {
    operations[op].keys.forEach((item, i) => {
      const at = `operations.${op}.keys[${i}]`;
      if (item.kind === 'literal') check.fail(at, `a literal key name is not allowed; KEYS must be among the declared keys (${declared})`);
      const field = item.kind === 'eachHour' ? `${at}.eachHour` : at;
      if (!keys.some((k) => sameTemplate(k.template, item.template))) {
        check.fail(field, `not one of the declared keys (${declared}): every key an operation passes must be a light key of "keys"`);
      }
    });
  }
}

/** Validates parsed manifest JSON from `file` (named in every error). */
export function parseManifest(file: string, value: unknown): Manifest {
  const check = new Checker(file);
  const top = check.object('manifest', value);
  // The version first: a newer format's fields would otherwise read as typos.
  if (top.manifestVersion !== MANIFEST_VERSION) {
    check.fail('manifestVersion', `expected ${MANIFEST_VERSION} (the manifest format this swc reads), got ${describe(top.manifestVersion)}`);
  }
  check.onlyKnown('', top, TOP_LEVEL);
  const name = check.string('name', top.name);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    check.fail('name', `expected letters, digits, ".", "_" or "-" (it names the layout in reports), got "${name}"`);
  }
  const summary = top.summary === undefined ? `${name} (from ${file})` : check.string('summary', top.summary);
  if (top.description !== undefined) check.string('description', top.description, { empty: true });
  const prefix = check.string('prefix', top.prefix);
  const windowSemantics = check.choice('windowSemantics', top.windowSemantics, SEMANTICS);
  const maxWindowSeconds =
    top.maxWindowSeconds === undefined ? undefined : check.wholeNumber('maxWindowSeconds', top.maxWindowSeconds, 1, 7 * 86_400);
  const stampPrecision =
    top.stampPrecision === undefined ? 'seconds' : check.choice('stampPrecision', top.stampPrecision, ['seconds', 'milliseconds'] as const);
  const clock = check.choice('clock', top.clock, CLOCKS);
  const includes = top.includes === undefined ? 'none' : check.choice('includes', top.includes, INCLUDE_CONVENTIONS);
  const scriptsRoot = top.scriptsRoot === undefined ? '.' : check.string('scriptsRoot', top.scriptsRoot);

  const caps = check.object('capabilities', top.capabilities);
  check.onlyKnown('capabilities', caps, ['failureReturnsSnapshot', 'readWrites']);
  const capabilities = {
    failureReturnsSnapshot: check.boolean('capabilities.failureReturnsSnapshot', caps.failureReturnsSnapshot),
    readWrites: check.boolean('capabilities.readWrites', caps.readWrites),
  };

  const keys = check.array('keys', top.keys, { nonEmpty: true }).map((raw, i): KeySpec => {
    const field = `keys[${i}]`;
    const fields = check.object(field, raw);
    check.onlyKnown(field, fields, ['template', 'role', 'type', 'scoresAreSeconds']);
    const text = check.string(`${field}.template`, fields.template);
    const template = check.template(`${field}.template`, text, (p) =>
      KEY_PLACEHOLDERS.has(p) ? null : "is not known in a light's key (keys name a light, not a moment or an event)",
    );
    // A benchmark puts its namespace in {prefix}: a key that does not start
    // with it would be written (and deleted) outside swc's namespace, among
    // the application's own keys.
    const first = template[0];
    if (typeof first === 'string' || first?.placeholder !== 'prefix') {
      check.fail(`${field}.template`, `must start with "{prefix}" (swc writes only under its own namespace, which {prefix} carries), got "${text}"`);
    }
    const type = check.choice(`${field}.type`, fields.type, KEY_TYPES);
    const scoresAreSeconds = fields.scoresAreSeconds === undefined ? false : check.boolean(`${field}.scoresAreSeconds`, fields.scoresAreSeconds);
    if (scoresAreSeconds && type !== 'zset') check.fail(`${field}.scoresAreSeconds`, `only a zset has scores, this key is a ${type}`);
    // Key templates use only key placeholders (checked above): the key table's.
    return { template: template as readonly KeyPart[], text, role: check.string(`${field}.role`, fields.role), type, scoresAreSeconds };
  });
  // Inspection finds a light by its keys: at least one must carry its name or id.
  if (!keys.some((k) => k.template.some((p) => typeof p !== 'string' && (p.placeholder === 'name' || p.placeholder === 'lightId')))) {
    check.fail('keys', 'no key template names the light (use {name} or {lightId})');
  }

  const ops = check.object('operations', top.operations);
  check.onlyKnown('operations', ops, OPERATIONS);
  const operations = Object.fromEntries(
    OPERATIONS.map((op) => {
      if (ops[op] === undefined) check.fail(`operations.${op}`, 'required');
      return [op, operation(check, `operations.${op}`, ops[op], op, clock)];
    }),
  ) as Record<OperationName, OperationSpec>;
  checkOperationKeys(check, keys, operations);
  if (!operations.getMetrics.reply) check.fail('operations.getMetrics.reply', 'required (how to read the window from the reply)');
  if (capabilities.failureReturnsSnapshot && !operations.recordFailure.reply) {
    check.fail('operations.recordFailure.reply', 'required when capabilities.failureReturnsSnapshot is true');
  }
  if (!capabilities.failureReturnsSnapshot && operations.recordFailure.reply) {
    check.fail('operations.recordFailure.reply', 'given, but capabilities.failureReturnsSnapshot is false');
  }
  if (operations.recordSuccess.reply) check.fail('operations.recordSuccess.reply', 'not read: swc ignores what a success returns');

  return {
    file,
    name,
    summary,
    prefix,
    windowSemantics,
    ...(maxWindowSeconds !== undefined ? { maxWindowSeconds } : {}),
    stampPrecision,
    clock,
    includes,
    scriptsRoot,
    capabilities,
    keys,
    operations,
  };
}
