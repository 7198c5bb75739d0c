import type { Redis } from 'ioredis';
import type { EncodingLimits, Inspection, JudgeOptions, LightHealth, SurveyLight } from './inspection.js';
import type { LuaScript, ScriptCall } from '../lua/source.js';
import type { Light, StampPrecision, WindowSemantics } from '../core/light.js';
import type { LightKey } from './kit/keys.js';

// The domain types live in core/ (the model and the traffic use them too); a layout's callers get them here.
export { DEFAULT_SYSTEM, type Light, type StampPrecision, type WindowSemantics } from '../core/light.js';

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

/** A key of a light, what it is for and the type it holds: one key model for every layout (kit/keys.ts). */
export type { LightKey } from './kit/keys.js';

/** Options every layout accepts when it is built. */
export interface LayoutOptions {
  /** Key prefix in front of every key; each layout has its own default (e.g. `stoplight:v6`). */
  readonly prefix?: string;
  /** Where the scripts are read from: an edited copy of swc's `lua/` folder; default swc's own. */
  readonly scriptsDir?: string;
}

/** What a layout's scripts do beyond counting, for the code that drives or reads them. */
export interface LayoutCapabilities {
  /** The reply of {@link Layout.recordFailure} carries the light's snapshot ({@link Layout.parseFailure} returns it). */
  readonly failureReturnsSnapshot: boolean;
  /** Reading the metrics also writes (evicts), so a read-only look must not run the read script. */
  readonly readWrites: boolean;
  /** The longest window the read honours, in seconds (longer ones are cut to it); null = any. */
  readonly maxWindowSeconds: number | null;
}

/** What a memory bound gets to know about a bench cell ({@link Layout.peakBytesPerLight}). */
export interface FootprintCell {
  readonly windowSeconds: number;
  readonly rate: number;
  readonly durationSeconds: number;
  /** Events per light the throughput phase adds after the fill. */
  readonly extraEvents: number;
}

/** Whose key a key is, as an inspector reads it off the key's name. */
export interface KeyOwner {
  /** The light: its name, or its id when the layout's keys carry only a hash of the name. */
  readonly light: string;
  /** The system (name or id) for layouts that scope lights by system; null otherwise. */
  readonly system: string | null;
  /** What the key is for, e.g. `metadata`, `success events`, `index`. */
  readonly role: string;
  /** The key's kind as a listing names it (6.0: its suffix, e.g. `state`, `window_metrics:ts_idx`); absent: the role. */
  readonly kind?: string;
  /** Sorted-set scores of this key are Unix seconds (so a listing can show the span of a light's events). */
  readonly scoresAreSeconds: boolean;
  /** The type the layout keeps under this name (`hash`, `zset`); a key of another type is a problem, not the light's. Absent: any type. */
  readonly expectedType?: string;
}

/** What the user typed, as an inspector needs it to find a light. */
export interface TargetRequest {
  /** A light name, an id, or a full key. */
  readonly light: string;
  /** The system name, for layouts that scope lights by system. */
  readonly system?: string;
  /** Names known for ids (6.0 keys carry hashes of names), so reports and errors can name systems and lights. */
  readonly names?: NameBook;
}

/**
 * How an inspector finds keys only a SCAN can find: the keys matching a SCAN
 * pattern. `swc inspect --layout auto` first hands every inspector one that
 * finds nothing (known keys only), then one that answers from a single pass
 * made for every layout at once.
 */
export type KeySearch = (pattern: string, why: SearchReason) => Promise<string[]>;

/**
 * Why an inspector asks for a SCAN: `unnamed`, the keys cannot be named at
 * all (a 6.0 light without its system); `beyond`, the keys it could name do
 * not exist, and others may (5.x hour keys older than a day, never expired).
 */
export type SearchReason = 'unnamed' | 'beyond';

/** One place an inspector will look for a light; each inspector extends it with what it needs. */
export interface InspectTarget {
  /** The light as the user gave it, for reports. */
  readonly light: string;
  /** The keys (or SCAN patterns) looked at, for the message when none exists. */
  readonly lookedFor: readonly string[];
}

/**
 * A layout's read-only view of Redis: which keys are its lights', and what a
 * light holds. It never runs the layout's scripts (a read may write).
 */
export interface LayoutInspector {
  /** SCAN MATCH patterns that together cover every key of every light of the layout (glob characters escaped). */
  scanPatterns(): string[];
  /** The light a key belongs to, or null when the key is not one of the layout's (any namespace in front is accepted). */
  lightOfKey(key: string): KeyOwner | null;
  /**
   * Where to look for what the user typed, in order; the first target with
   * keys wins. A full key of this layout gives exactly its light.
   */
  targetsFor(request: TargetRequest): InspectTarget[];
  /**
   * Reads one target (made by {@link targetsFor}) without changing it; null
   * when it has no key. Keys the inspector can name (exact keys, and keys
   * that follow from a clock: 5.x hour keys) are read directly; keys only a
   * SCAN can find are asked of `search` (default: one paced pass of its own).
   */
  inspect(redis: Redis, target: InspectTarget, judge: JudgeOptions, limits: EncodingLimits, search?: KeySearch): Promise<Inspection | null>;
  /**
   * Optional: the health of many lights at once for `swc lights` (events,
   * stale events, drift), read-only and in few round trips; one entry per
   * light, in order. Layouts without it list bytes, keys and span only.
   */
  survey?(redis: Redis, lights: readonly SurveyLight[], judge: JudgeOptions): Promise<LightHealth[]>;
  /** Optional: how the keys carry a system name (6.0: its 12-hex id), so `--system` accepts names and ids. */
  systemIdOf?(system: string): string;
}

/** Successes and failures, as exact counts or as the bound of an error. */
export interface CountPair {
  readonly successes: number;
  readonly failures: number;
}

/**
 * How far an approximate layout's counts may be from the exact window (the
 * layout's {@link WindowSemantics}), stated so that a checker can hold every
 * read to it.
 */
export interface Approximation {
  /** The bound in words, as the layout's TSDoc states it. */
  readonly description: string;
  /**
   * The largest absolute error of the successes and of the failures that a
   * read at `at` (seconds, fractional allowed) may return, given the exact
   * counts of any whole seconds `fromSecond..toSecond` (both included) of the
   * light's traffic.
   */
  errorBound(at: number, windowSeconds: number, countIn: (fromSecond: number, toSecond: number) => CountPair): CountPair;
}

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
  /**
   * The counts a failure replies miss the same way (a write that replies a
   * snapshot read through the same hour keys); absent: only reads deviate.
   */
  readonly failureReplies?: boolean;
}

/**
 * One storage design for a light's sliding window. A layout only builds script
 * calls and parses replies; it never talks to Redis itself, so the same call
 * can run alone, in a pipeline, or be handed to another load generator. Its
 * {@link inspector} reads what the scripts stored, read-only.
 */
export interface Layout {
  /** Registry name, e.g. `stoplight-v6`. */
  readonly name: string;
  readonly windowSemantics: WindowSemantics;
  /** Key prefix, e.g. `stoplight:v6`; benchmarks put a namespace of their own in front. */
  readonly prefix: string;
  /** Every script this layout runs (installed once per connection). */
  readonly scripts: readonly LuaScript[];
  readonly capabilities: LayoutCapabilities;
  readonly inspector: LayoutInspector;
  /** Present when reads only approximate the window: the error bound they keep. Absent = exact. */
  readonly approximation?: Approximation;
  /** Deliberate differences of the read from the exact window; none when absent. */
  readonly deviations?: readonly WindowDeviation[];
  /**
   * How the layout stamps `last_success_at` / `last_error_at`, decides which
   * event is newer, and writes the time in its error JSON: whole seconds
   * (Stoplight 5.x, and the default) or seconds with milliseconds (6.0).
   */
  readonly stampPrecision?: StampPrecision;
  /**
   * The caller passes the time and the scripts store it as given (a
   * manifest's `clock: "argv"`): a stored stamp may carry more digits than
   * {@link stampPrecision}, which verify then compares at that precision.
   */
  readonly stampsAsPassed?: boolean;

  recordSuccess(light: Light, options: RecordOptions): ScriptCall;
  recordFailure(light: Light, options: FailureOptions): ScriptCall;
  getMetrics(light: Light, options: CallOptions): ScriptCall;
  /** Parses the reply of {@link getMetrics}. */
  parseMetrics(reply: unknown): Snapshot;
  /** Parses the reply of {@link recordFailure}: the snapshot when {@link LayoutCapabilities.failureReturnsSnapshot}, else null. */
  parseFailure(reply: unknown): Snapshot | null;

  /** The keys that hold the light's events in `[fromSecond, toSecond]`, plus its metadata. */
  keysOf(light: Light, fromSecond: number, toSecond: number): LightKey[];
  /**
   * An upper bound of the bytes one light holds at the end of a bench cell,
   * which the preflight holds against `maxmemory`. Absent: the larger of the
   * shapes in `src/layouts/footprint.ts`, safe for any layout that stores at
   * most one member per event.
   */
  peakBytesPerLight?(cell: FootprintCell): number;
}

/** Names known for 6.0 ids: read from a Stoplight registry, a `--names` file, or a literal `--system` / `--match` value. */
export interface NameBook {
  /** System id → system name. */
  readonly systems: Map<string, string>;
  /** Light id → light name: a light's id does not depend on its system, so a name known anywhere names it everywhere. */
  readonly lights: Map<string, string>;
  /** `<system id>/<light id>` → the light's config as its registry holds it (window and threshold), where a registry was read. */
  readonly configs: Map<string, RegisteredConfig>;
}

/** What a registry entry says of a light, besides its name. */
export interface RegisteredConfig {
  readonly windowSeconds: number | null;
  readonly threshold: number | null;
  /** What trips the light: `error_rate` (threshold a fraction) or `consecutive_errors` (threshold a count); absent when the config does not say. */
  readonly trafficControl?: 'error_rate' | 'consecutive_errors';
  /** The registry's `cool_off_time`, seconds; null or absent when the entry has none. */
  readonly coolOffSeconds?: number | null;
}
