import type { ScanReport } from '../redis/scan.js';
import type { EncodingSetting } from '../redis/info.js';

/** The five states, in the order `swc lights --sort state` shows them (worst first). */
export const lightStates = ['red', 'yellow', 'locked red', 'locked green', 'green'] as const;
export type LightStateName = (typeof lightStates)[number];

/** What Stoplight decides of one light, and why. */
export interface LightState {
  readonly state: LightStateName;
  /** Unix seconds the state holds since, where the fields say (breach, recovery start); null otherwise. */
  readonly since: number | null;
  /** One phrase: why, e.g. `breached by consecutive errors (3 now): Timeout`. */
  readonly reason: string;
}

/** The server's listpack limits, by setting; null where CONFIG GET is refused. */
export type EncodingLimits = Readonly<Record<EncodingSetting, number | null>>;

/** How close one key is to the limits that keep it a compact listpack. */
export interface KeyLimits {
  /** `hash-max-listpack-entries` or `zset-max-listpack-entries`. */
  readonly entriesSetting: EncodingSetting;
  /** The server's value; null when CONFIG GET is refused. */
  readonly entriesLimit: number | null;
  /** `hash-max-listpack-value` or `zset-max-listpack-value`. */
  readonly valueSetting: EncodingSetting;
  readonly valueLimit: number | null;
  /** Bytes of the longest hash field or value, or sorted-set member. */
  readonly longestBytes: number;
  /** What the longest one is, e.g. `last_error_json` (a hash value) or a member. */
  readonly longest: string | null;
}

/** One key of a light, as the server holds it. */
export interface KeyInspection {
  readonly key: string;
  /** What the key is for, e.g. `metrics`, `index`, `metadata`, `success events`. */
  readonly role: string;
  /** The type the layout expects under this name (a layout read from key templates expects the type found). */
  readonly expectedType: string;
  /** The type found (`TYPE`). */
  readonly type: string;
  readonly wrongType: boolean;
  /** `OBJECT ENCODING`; null for a key of the wrong type. */
  readonly encoding: string | null;
  /** HLEN, ZCARD, SCARD, LLEN, XLEN or STRLEN; null for a key of the wrong type. */
  readonly elements: number | null;
  /** `MEMORY USAGE`; exact (`SAMPLES 0`) unless {@link bytesExact} is false; null when the server refuses MEMORY. */
  readonly bytes: number | null;
  /** False when the key was too large to walk in one call and Redis sampled it. */
  readonly bytesExact: boolean;
  /** Seconds to live; null when the key never expires. */
  readonly ttlSeconds: number | null;
  /** Redis Cluster slot (of the hash tag when the key has one). */
  readonly slot: number;
  /** On Redis Cluster: `host:port` of the primary that holds the key (absent on a single server). */
  readonly node?: string;
  /** Null for a key of the wrong type, and for types without listpack limits. */
  readonly limits: KeyLimits | null;
}

/** Success and failure counts. */
export interface Counts {
  readonly successes: number;
  readonly failures: number;
}

/** The window a light is judged against. */
export interface WindowView {
  /** Window size in seconds; null (6.0 without `--window`) = everything, nothing stale. */
  readonly lengthSeconds: number | null;
  /** The second the window ends at (floored). */
  readonly at: number;
  /** Where {@link at} came from. */
  readonly clock: 'server' | 'given';
  /** First second inside the window; null when there is no window. */
  readonly fromSecond: number | null;
  /** `given` (--window), `registry` (6.0: the light's registered `window_size`), `layout` (the layout's longest window, 5.x: a day), or `none` (no window given, none known). */
  readonly source: 'given' | 'registry' | 'layout' | 'none';
}

/** The summary line. */
export interface InspectionSummary {
  /** failures / (successes + failures) in the window; null without events, and without a window. */
  readonly errorRate: number | null;
  /** Every key of the light together (MEMORY USAGE); null when the server refuses MEMORY. */
  readonly bytes: number | null;
  /** 6.0: bytes / window seconds; null without a window, and for 5.x (its bytes follow events, not seconds). */
  readonly bytesPerWindowSecond: number | null;
  /** 5.x: bytes / events held (in the window or not, until their hour key expires); null for 6.0. */
  readonly bytesPerEvent: number | null;
}

/** Metadata fields as stored, plus `last_error_json` decoded. */
export interface LightMetadata {
  readonly fields: Readonly<Record<string, string>>;
  /** `last_error_json` parsed; null when absent or not valid JSON. */
  readonly lastError: unknown;
  /** Set when `last_error_json` is present but not valid JSON. */
  readonly lastErrorInvalid: boolean;
}

/** What every inspection carries. */
export interface InspectionBase {
  /** The registered layout that read it. */
  readonly layout: string;
  /** The light as asked for (a name, an id or a key). */
  readonly light: string;
  readonly keys: KeyInspection[];
  readonly window: WindowView;
  /**
   * Success and failure events the keys hold now, in the window or not
   * (6.0: the sum of every bucket; 5.x: every success and failure member);
   * the same meaning in every layout. Null when the layout's keys are not decoded.
   */
  readonly totals: Counts | null;
  /** The events inside the window; null without a window, or when the keys are not decoded. */
  readonly windowTotals: Counts | null;
  readonly summary: InspectionSummary;
  /**
   * False when the keys kept changing while they were read (a server under
   * write load), so the figures may mix two moments.
   */
  readonly consistent: boolean;
  /** Things a user should know about: keys of the wrong type, missing keys. */
  readonly problems: string[];
  /**
   * What this server would not let swc read, and so is missing (e.g. bytes
   * when MEMORY is renamed or denied); empty when everything was read.
   */
  readonly unavailable: string[];
  /** The light's state as Stoplight decides it from its state fields; absent for layouts that keep none. */
  readonly state?: LightState;
  /** Why the window is not simply `[at - window, at]`: `recovered_at`, the layout's hour-key rule, no window configured. Empty when none applied. */
  readonly windowNotes?: readonly string[];
}

/** One bucket: one second that saw traffic, as a per-second counter. */
export interface Bucket {
  readonly second: number;
  /** Seconds before the window's end (negative: in the future). */
  readonly ageSeconds: number;
  readonly successes: number;
  readonly failures: number;
  /** Outside the window but not evicted yet (no read or write since). */
  readonly stale: boolean;
  /** Later than the time judged at (`--at` in the past): not counted in the window. */
  readonly future: boolean;
}

/** Whether a light's counters, running totals and bucket index agree with each other. */
export interface BucketDrift {
  readonly ok: boolean;
  /** The running totals equal the sum of every bucket. */
  readonly totalsOk: boolean;
  /** The sum of every bucket in the hash. */
  readonly bucketSum: Counts;
  /** Seconds in the index with no counter in the hash. */
  readonly indexWithoutBucket: number[];
  /** Seconds with a counter in the hash but no index member. */
  readonly bucketWithoutIndex: number[];
  /** Index members whose score is not their second, or that are not `bucket:<second>`. */
  readonly badIndexMembers: string[];
  /** Hash fields that are neither buckets, totals nor known metadata. */
  readonly unknownFields: string[];
}

/** A light kept as per-second counters with running totals and a bucket index (Stoplight 6.0). */
export interface BucketInspection extends InspectionBase {
  readonly kind: 'buckets';
  /** The ids of the system and of the light, as they appear in the keys. */
  readonly systemId: string;
  readonly lightId: string;
  /** Their names where known (`default`, --system, --names, the name asked for, a Stoplight registry); null otherwise. */
  readonly systemName: string | null;
  readonly lightName: string | null;
  readonly totals: Counts;
  /** The running totals as stored in the hash (`total_successes`, `total_failures`); equal to {@link totals} unless drifted. */
  readonly storedTotals: Counts;
  /** In time order. */
  readonly buckets: Bucket[];
  readonly drift: BucketDrift;
  readonly metadata: LightMetadata;
  /** 6.0: which of the light's keys exist, by kind (`window_metrics`, `window_metrics:ts_idx`, `state`, `metrics`, `recovery_metrics`, `locks:recovery`), and `registry` when its registry holds an entry. */
  readonly keyKinds?: readonly string[];
  /** 6.0: the state hash's fields as stored (`locked_state`, `breached_at`, `recovery_scheduled_after`, `recovery_started_at`, `recovered_at`). */
  readonly stateFields?: Readonly<Record<string, string>>;
  /** 6.0: the recovery probes' metrics hash, when it exists. */
  readonly recoveryMetrics?: Readonly<Record<string, string>>;
  /** 6.0: the light's registry entry (`<prefix>:<system id>:lights`, field the light id); null when none. */
  readonly registry?: { readonly key: string; readonly field: string; readonly config: RegisteredConfigView } | null;
  /** 6.0: the config the light is judged by, each value with its source. */
  readonly config?: LightConfigView;
  /** How close the light is to tripping by its own strategy, where that can be said. */
  readonly tripping?: Tripping;
  /** Why closeness is not said, when {@link tripping} is absent. */
  readonly trippingUnknown?: string;
  /** How the light was found: read by name (its keys and registry, no SCAN), or by a walk and why. */
  readonly lookup?: string;
}

/** A registry entry's config, as read. */
export interface RegisteredConfigView {
  readonly windowSeconds: number | null;
  readonly threshold: number | null;
  readonly trafficControl?: 'error_rate' | 'consecutive_errors';
  readonly coolOffSeconds?: number | null;
}

/** One second of a light kept as one member per event. */
export interface EventSecond {
  readonly second: number;
  readonly ageSeconds: number;
  readonly successes: number;
  readonly failures: number;
  /** Outside the window, still held until its hour key expires. */
  readonly stale: boolean;
}

/** One key of events (Stoplight 5.x: one per outcome and clock hour). */
export interface EventKey {
  readonly key: string;
  /** `success`, `failure`, `recovery_probe_success` or `recovery_probe_failure`. */
  readonly outcome: string;
  readonly hour: number;
  readonly events: number;
  /** Lowest and highest score; null for an empty key. */
  readonly firstSecond: number | null;
  readonly lastSecond: number | null;
}

/** A light kept as one sorted-set member per event in hourly keys (Stoplight 5.x). */
export interface EventInspection extends InspectionBase {
  readonly kind: 'events';
  readonly totals: Counts;
  /** Events in the window (success and failure keys; recovery probes are not counted). */
  readonly windowTotals: Counts;
  /** Seconds that saw events, in time order. */
  readonly seconds: EventSecond[];
  /** In hour order, then by outcome. */
  readonly hours: EventKey[];
  readonly metadata: LightMetadata;
  /** `recovered_at` from the metadata when it moved the window's start. */
  readonly recoveredAt: number | null;
}

/**
 * A light of a layout that only describes its keys (read from its key
 * templates): each key's facts, no decoding of what the keys hold.
 */
export interface KeysInspection extends InspectionBase {
  readonly kind: 'keys';
  readonly totals: null;
  readonly windowTotals: null;
}

/** One light; `kind` says which shape of storage was decoded (renderers switch on it, never on the layout). */
export type Inspection = BucketInspection | EventInspection | KeysInspection;

/** One light found by `swc lights` (`inspect --list`). */
export interface LightListing {
  readonly layout: string;
  /** The light as its keys carry it: the raw name (5.x), or the 12-hex light id (6.0). */
  readonly light: string;
  /** The system as the keys carry it (6.0: the 12-hex system id); null for layouts without systems. */
  readonly systemId: string | null;
  /**
   * What to give `swc inspect` to read this light, as is: `<system>/<light>`
   * for layouts with systems, else the light.
   */
  readonly reference: string;
  /** 6.0: the system's name where known (the `default` system, `--names`, `--system`); null otherwise and for 5.x. */
  readonly systemName: string | null;
  /** 6.0: the light's name where known (a Stoplight registry, `--names`, a literal `--match`); null otherwise and for 5.x. */
  readonly lightName: string | null;
  /** How reports name the light: `<system>/<light>` with names where known and ids otherwise (5.x: the name). */
  readonly name: string;
  /** 6.0: the light's config as a Stoplight registry on the server holds it, when one does. */
  readonly registered?: {
    readonly windowSeconds: number | null;
    readonly threshold: number | null;
    readonly trafficControl?: 'error_rate' | 'consecutive_errors';
    readonly coolOffSeconds?: number | null;
  };
  readonly keys: number;
  /** Null when the server refuses MEMORY. */
  readonly bytes: number | null;
  /** False when a key was too large for an exact MEMORY USAGE and Redis sampled it. */
  readonly bytesExact: boolean;
  /** `--rdb`: the most the live server's bytes can differ from these, from the shape of the light's keys (src/inspect/rdb-bound.ts). */
  readonly rdbBound?: { readonly bytes: number; readonly fraction: number | null };
  /** Oldest and newest second with events; null when none. */
  readonly firstSecond: number | null;
  readonly lastSecond: number | null;
  /** lastSecond - firstSecond + 1, or 0. */
  readonly spanSeconds: number;
  /** Seconds from the newest event to the time judged at; null without events. */
  readonly idleSeconds: number | null;
  /** Health read by the layout's {@link LightSurvey}; null fields where the layout has none. */
  readonly events: number | null;
  readonly staleEvents: number | null;
  readonly staleBuckets: number | null;
  /** Null when not judged, and always for a light the scan did not finish ({@link partial}). */
  readonly drift: boolean | null;
  /**
   * True when the scan stopped (Ctrl-C) before it walked every key: some of
   * this light's keys may not have been read, so its figures are what was
   * found and its drift is not judged (null).
   */
  readonly partial: boolean;
  /** With `swc lights --forecast`: the light's bytes measured after its recorded events were replayed into another layout. */
  readonly forecast?: LightForecast;
  /** Successes and failures in the window (`--window`); null without one. */
  readonly windowSuccesses: number | null;
  readonly windowFailures: number | null;
  /** failures / (successes + failures) in the window; null without a window or without events in it. */
  readonly failureRate: number | null;
  /** With `--threshold`: the failure rate is at or over it (never for a light locked green, nor one whose own config trips on consecutive errors). */
  readonly overThreshold?: boolean;
  /** Stoplight's state of the light; null where the layout keeps none. */
  readonly state?: LightStateName | null;
  /** Unix seconds the state holds since (breach, recovery), where known. */
  readonly stateSinceSecond?: number | null;
  /** Why, in one phrase. */
  readonly stateReason?: string | null;
  /** How close the light is to tripping by its own strategy (its registry entry, or the default config), when that can be said. */
  readonly tripping?: Tripping;
  /** Why closeness is not said (strategy unknown: no registry entry; no window for error rate), when {@link tripping} is absent. */
  readonly trippingUnknown?: string;
  /** 6.0: the config the light is judged by, each value with where it came from (`--window`, the registry, the default config). */
  readonly config?: LightConfigView;
  /** Which of the light's keys exist, by kind (6.0: `state`, `window_metrics`, `ts_idx`, `metrics`, `recovery_metrics`, `locks:recovery`, `registry`; 5.x: `metadata`, the event kinds). */
  readonly keyKinds?: readonly string[];
  /** What moved the light's window, or what it lacks (no window configured); empty when nothing did. */
  readonly notes?: readonly string[];
  /** On Redis Cluster: the primary (`host:port`) holding the light's keys; several joined with ` + ` when its keys span primaries. */
  readonly node?: string;
  /** On Redis Cluster: the light's keys and bytes on each primary that holds some. */
  readonly placement?: readonly NodeShare[];
}

/** How close a light is to tripping by its own strategy: `ratio` reaches 1 exactly when Stoplight's rule trips it. */
export interface Tripping {
  readonly trafficControl: 'error_rate' | 'consecutive_errors';
  /** Consecutive errors as the strategy counts them (clamped to the window's failures when the light has a window), or the failure rate. */
  readonly value: number;
  readonly threshold: number;
  readonly ratio: number;
  /** consecutive_errors: the stored streak, before the clamp. */
  readonly consecutiveErrors?: number;
  /** consecutive_errors with a window: the failures in it (the clamp). */
  readonly windowFailures?: number;
  /** error_rate: requests in the window, and the minimum the strategy needs before it may trip. */
  readonly requests?: number;
  readonly minRequests?: number;
}

/** One value of a light's config and where it came from; both null when nobody gave it. */
export interface ConfigValue<T> {
  readonly value: T | null;
  readonly from: '--window' | 'registry' | 'default config' | 'Stoplight default' | null;
}

/** The config a 6.0 light is judged by. */
export interface LightConfigView {
  readonly windowSeconds: ConfigValue<number>;
  readonly threshold: ConfigValue<number>;
  readonly trafficControl: ConfigValue<'error_rate' | 'consecutive_errors'>;
  readonly coolOffSeconds: ConfigValue<number>;
  /** error_rate only: the minimum of requests (Stoplight's default; the registry does not store it). */
  readonly minRequests?: ConfigValue<number>;
}

/** A light's (or a listing's) keys and bytes on one primary of a cluster. */
export interface NodeShare {
  /** `host:port` of the primary. */
  readonly node: string;
  readonly keys: number;
  /** Null when the server refuses MEMORY. */
  readonly bytes: number | null;
}

/** Totals of a listing on one primary of a cluster. */
export interface NodeTotals extends NodeShare {
  /** Lights with at least one key on this primary (a light whose keys span primaries counts on each). */
  readonly lights: number;
  /** The primary's slot ranges (`0-5460`), when known. */
  readonly slots?: string;
}

/**
 * What a light's inspector can tell cheaply about many lights at once, for
 * `swc lights`. Null where it does not apply or was not checked.
 */
export interface LightHealth {
  /** Success and failure events the keys hold now, in the window or not. */
  readonly events: number | null;
  /** Events outside the window (held until evicted or expired). */
  readonly staleEvents: number | null;
  /** Per-second buckets outside the window (layouts that keep buckets). */
  readonly staleBuckets: number | null;
  /** True when running totals or an index disagree with the buckets; null when the layout keeps none, or the light was too large to check. */
  readonly drift: boolean | null;
  /** Successes and failures inside the window (`--window`); null without a window, or where the layout cannot tell. */
  readonly window?: Counts | null;
  /** What looked wrong in the light's keys (a counter that is not a number): one line each. */
  readonly problems?: readonly string[];
  /** Stoplight's state, from the state fields the layout keeps. */
  readonly state?: LightState;
  /** The newest call stamp in the light's metadata (`last_success_at`, `last_error_at`), for lights without events. */
  readonly lastCallSecond?: number | null;
  /** `consecutive_errors` from the metadata, where kept. */
  readonly consecutiveErrors?: number | null;
  /** What moved the window, or what the light lacks (no window configured). */
  readonly notes?: readonly string[];
  /** 6.0: the light keeps the unbounded `:metrics` hash and no window metrics: Stoplight's default config (no `window_size`). */
  readonly defaultConfig?: boolean;
}

/**
 * A light's forecast in another layout (`swc lights --forecast`): its
 * recorded events replayed there on a private server, its keys measured.
 */
export interface LightForecast {
  /** The layout replayed into. */
  readonly layout: string;
  /**
   * `measured`: every event held replayed, then measured; `capped`: only the
   * newest events (the events cap) replayed, so the bytes are a lower bound;
   * `sampled-out`: not replayed (the sample was full), counted in the fleet at
   * the measured lights' mean; `no-events`: nothing held to replay;
   * `unsupported`: a layout whose events swc does not read.
   */
  readonly method: 'measured' | 'capped' | 'sampled-out' | 'no-events' | 'unsupported';
  /** MEMORY USAGE of the replayed light's keys; null when not replayed. */
  readonly bytes: number | null;
  /** Events replayed. */
  readonly events: number;
  /** Events the light's keys hold (replayed or not); null where unknown. */
  readonly heldEvents: number | null;
  /** The window the replay wrote with (evictions follow it); null when not replayed. */
  readonly windowSeconds: number | null;
  /**
   * Where that window came from: `--window`, a `--windows` file's rule, the
   * light's registered config, or (none of them) the span of its events, which
   * the table marks "window unknown: span used".
   */
  readonly windowFrom: 'window' | 'windows' | 'registry' | 'span' | null;
  /** With `windowFrom` `windows`: the rule's file and line, and its pattern. */
  readonly windowRule?: string;
  /**
   * `--forecast-even`: the same layout measured after even traffic at the
   * light's own mean rate and failure share for one window, as `swc bench`
   * fills a cell; a bursty light's replay holds fewer buckets than this.
   */
  readonly even?: { readonly rate: number; readonly failureRate: number; readonly events: number; readonly bytes: number };
}

/** A light as `swc lights` hands it to the layout's survey. */
export interface SurveyLight {
  readonly light: string;
  readonly systemId: string | null;
  /** Its keys that exist, with the facts already read. */
  readonly keys: readonly { readonly key: string; readonly type: string; readonly elements: number }[];
  readonly firstSecond: number | null;
  readonly lastSecond: number | null;
  /** The window to judge this light by, when it differs from the run's (a registered `window_size`). */
  readonly windowSeconds?: number | null;
  /** What trips the light, where known (its registry entry): the state's reason names it. */
  readonly trafficControl?: 'error_rate' | 'consecutive_errors' | null;
}

/** Totals of one layout's lights in a listing. */
export interface LayoutTotals {
  readonly layout: string;
  readonly lights: number;
  readonly keys: number;
  /** Null when any light's bytes are unknown. */
  readonly bytes: number | null;
  readonly events: number | null;
  readonly staleEvents: number | null;
  /** Lights with drift. */
  readonly drifted: number;
  /** Lights the scan did not finish (stopped before it walked every key): neither drifted nor not. */
  readonly unfinished: number;
}

/** How to judge a light, decided once per run. */
export interface JudgeOptions {
  /** Window size in seconds; null = no window (everything counts, nothing is stale). */
  readonly windowSeconds: number | null;
  /** The second the window ends at. */
  readonly at: number;
  readonly clock: 'server' | 'given';
  /**
   * The moment judged, to the microsecond the server's TIME gives (or `--at`
   * as given), for the colour rule: Stoplight compares its fractional stamps
   * with the current time, not with a floored second. Absent: {@link at}.
   */
  readonly moment?: number;
}

/** Every light `swc lights` found, and what it could not read. */
export interface LightList {
  /** Largest first (see {@link selectLights} for other orders). */
  readonly lights: LightListing[];
  /** The SCAN patterns searched (every registered layout's). */
  readonly patterns: string[];
  /** What this server would not let swc read (e.g. bytes without MEMORY); empty when everything was read. */
  readonly unavailable: string[];
  /** The second idle times and the window are measured at. */
  readonly at: number;
  readonly clock: 'server' | 'given';
  /** The window stale events are judged against; null when none was given (layouts may use their longest). */
  readonly windowSeconds: number | null;
  /** On Redis Cluster: every primary scanned (`host:port`), in slot order. */
  readonly nodes?: readonly string[];
  /** Keys under the layouts' names that are not lights (wrong type, unreadable counters), one line each. */
  readonly problems: string[];
  /** Namespaces that benchmark runs left (`swc clean` lists and removes them). */
  readonly leftovers: { readonly namespace: string; readonly keys: number }[];
  /** The one SCAN pass: its MATCH, calls, keys returned, DBSIZE, time. */
  readonly scan?: ScanReport;
  /** True when the scan was stopped (Ctrl-C) before it walked every key. */
  readonly partial: boolean;
}
