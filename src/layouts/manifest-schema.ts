/**
 * The layout manifest: a JSON file that describes a sliding-window layout
 * swc does not ship (its scripts, how to call them, how to read their
 * replies, its keys). These are the types a validated manifest has; the
 * schema that validates one, with one-line errors, is manifest-zod.ts.
 */
import type { IncludeConvention } from '../lua/source.js';
import { KEY_TYPES, type KeyDef, type KeyType } from './kit/keys.js';
import type { WindowSemantics } from './types.js';

export { KEY_TYPES, type KeyType };

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
  windowStartExact: 'now - window, fractional as given (a caller that sends its float clock minus the window)',
  windowTwice: '2 × window (a TTL of two windows)',
  windowPlusHour: 'window + 3600 (a TTL of the window and an hour)',
  hourCount: 'how many hours each `eachHour` list of this operation holds',
  eventId: 'a unique event id, 24 hex characters (writes only)',
  errorJson: 'the error as JSON text (recordFailure only)',
} as const;
export type Placeholder = keyof typeof PLACEHOLDERS;

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

/** One operation: its script and how to call it. */
export interface OperationSpec {
  /** The script's path under the scripts root, as written. */
  readonly script: string;
  readonly keys: readonly Item[];
  readonly args: readonly Item[];
  readonly reply?: ReplySpec;
}

/** One key a light has. */
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

/** The placeholders a list of KEYS or ARGV items uses, each once. */
export function placeholdersOf(items: readonly Item[]): Set<Placeholder> {
  const used = new Set<Placeholder>();
  for (const item of items) {
    if (item.kind === 'literal') continue;
    for (const part of item.template) if (typeof part !== 'string') used.add(part.placeholder);
  }
  return used;
}
