import type { LuaScript, ScriptCall } from '../lua/source.js';

/** A light (one circuit breaker). `system` only matters to layouts that hash it. */
export interface Light {
  readonly name: string;
  /** Stoplight 6.0 scopes lights by a system name; defaults to {@link DEFAULT_SYSTEM}. */
  readonly system?: string;
}

/** The system name used when a light does not give one. */
export const DEFAULT_SYSTEM = 'default';

/** Which interval a layout counts as "in the window" at time `now` (seconds floored). */
export type WindowSemantics =
  /** `[now - W, now]`: W + 1 integer seconds (Stoplight 5.x). */
  | 'closed'
  /** `(now - W, now]`: W integer seconds (Stoplight 6.0). */
  | 'half-open';

/** The counts and metadata of one light at one moment. */
export interface Snapshot {
  readonly successes: number;
  readonly failures: number;
  readonly consecutiveSuccesses: number;
  readonly consecutiveErrors: number;
  /** Unix seconds as the layout stamps them (see {@link Layout.stampPrecision}), or null when never recorded. */
  readonly lastSuccessAt: number | null;
  readonly lastErrorAt: number | null;
  /** The stored error as written (JSON text), or null. */
  readonly lastErrorJson: string | null;
}

/** Options common to every operation. */
export interface CallOptions {
  /** Window size in seconds (at least 1). */
  readonly windowSeconds: number;
  /** Event or read time in Unix seconds, fractional allowed; omitted = the Redis server's clock. */
  readonly at?: number;
}

/** Options of a write. */
export interface RecordOptions extends CallOptions {
  /**
   * The event's unique id, for layouts that store one member per event
   * (24 hex characters); a random one when omitted. Benchmarks pass seeded ids
   * so memory figures repeat exactly.
   */
  readonly eventId?: string;
}

/** Options of a failure. */
export interface FailureOptions extends RecordOptions {
  /** The error as Stoplight stores it, e.g. `{"error":{"class":…,"message":…},"time":…}`. */
  readonly errorJson: string;
}

/** A key of a light and what it holds. */
export interface LightKey {
  readonly key: string;
  /** What the key is for, e.g. `metadata`, `success events`, `buckets`, `index`. */
  readonly role: string;
}

/** Whole seconds, or seconds with their milliseconds. */
export type StampPrecision = 'seconds' | 'milliseconds';

/** Whole seconds `fromSecond..toSecond`, both included. */
export interface SecondRange {
  readonly fromSecond: number;
  readonly toSecond: number;
}

/**
 * A documented way a layout's read differs from the exact window, kept on
 * purpose because the real design does the same. `swc verify` predicts the
 * deviating count with {@link uncounted}, reports each deviation apart from
 * findings, and flags it when it does not happen exactly as declared.
 */
export interface WindowDeviation {
  /** Stable id, e.g. `v5-hour-key-of-window-end`. */
  readonly id: string;
  /** One or two sentences: what differs, when, and why it is kept. */
  readonly description: string;
  /**
   * The whole seconds inside the exact window that a read at `at` (seconds,
   * fractional allowed) with this window does not count, or null when that
   * read counts the exact window.
   */
  uncounted(at: number, windowSeconds: number): SecondRange | null;
}

/**
 * One storage design for a light's sliding window. A layout only builds script
 * calls and parses replies; it never talks to Redis itself, so the same call
 * can run alone, in a pipeline, or be handed to another load generator.
 */
export interface Layout {
  /** Registry name, e.g. `stoplight-v6`. */
  readonly name: string;
  /** One line for `--help` and reports. */
  readonly summary: string;
  readonly windowSemantics: WindowSemantics;
  /** Key prefix, e.g. `stoplight:v6`; benchmarks put a namespace of their own in front. */
  readonly prefix: string;
  /** Every script this layout runs (installed once per connection). */
  readonly scripts: readonly LuaScript[];
  /** Whether reading the metrics also writes (evicts). */
  readonly readWrites: boolean;
  /** Deliberate differences of the read from the exact window; none when absent. */
  readonly deviations?: readonly WindowDeviation[];
  /**
   * How the layout stamps `last_success_at` / `last_error_at`, decides which
   * event is newer, and writes the time in its error JSON: whole seconds
   * (Stoplight 5.x, and the default) or seconds with milliseconds (6.0).
   */
  readonly stampPrecision?: StampPrecision;

  recordSuccess(light: Light, options: RecordOptions): ScriptCall;
  recordFailure(light: Light, options: FailureOptions): ScriptCall;
  getMetrics(light: Light, options: CallOptions): ScriptCall;
  /** Parses the reply of {@link getMetrics}. */
  parseMetrics(reply: unknown): Snapshot;
  /** Parses the reply of {@link recordFailure}: a snapshot when the layout returns one. */
  parseFailure(reply: unknown): Snapshot | null;

  /** The keys that hold the light's events in `[fromSecond, toSecond]`, plus its metadata. */
  keysOf(light: Light, fromSecond: number, toSecond: number): LightKey[];
  /** SCAN MATCH patterns that together cover every key of the light (glob characters escaped). */
  keyPatterns(light: Light): string[];
}
