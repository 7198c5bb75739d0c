import type { Redis } from 'ioredis';

/**
 * A client adapter: a rate-limiter package users ship, driven through its own
 * calls (loaded from the user's node_modules), beside swc's layouts. swc holds
 * no copy of a package's code or scripts; the package's calls write the keys.
 *
 * One file per package in this folder, each exporting one ClientAdapter;
 * registry.ts lists them.
 */

/** The algorithm a package implements, as verify models it. */
export type ClientAlgorithm = 'fixed-window' | 'sliding-log' | 'two-window';

/**
 * Where a package takes its time from, and whether swc can drive it.
 * `injected`: swc replaces the package's time source (`Date.now`, `process.hrtime`, a native clock)
 * for the duration of a run, so a run covers any window at once. `real-time`: the window is timed by
 * something swc cannot move (a key's TTL on the server); the run uses real time and says so up front.
 */
export type ClientClock =
  { readonly kind: 'injected'; readonly source: string } | { readonly kind: 'real-time'; readonly source: string; readonly why: string };

/** What a run asks of a package's limiter. */
export interface ClientSettings {
  /** The run's namespace, passed as the package's key-prefix option: every key the package writes starts with it. */
  readonly prefix: string;
  /** Decisions allowed per window. */
  readonly limit: number;
  /** The window in milliseconds. */
  readonly windowMs: number;
}

/** What the run gives an adapter to build a limiter with. */
export interface ClientEnvironment {
  /** A connection the guarded run opened (ioredis). An adapter never opens its own except through `connect`. */
  readonly redis: Redis;
  /** Another connection to the same target, for packages that want one of their own (closed by the run). */
  readonly connect: () => Promise<Redis>;
  /** Where the package is loaded from: a directory whose node_modules holds it (the user's project; swc's own in tests). */
  readonly requireFrom: string;
}

/** One limiter of a package, set up for one run. */
export interface ClientLimiter {
  /** One decision for one client id: true when the package allows it. */
  decide(id: string): Promise<boolean>;
  /** Releases what the adapter made (not the keys: the run removes its namespace). */
  close(): Promise<void>;
  /**
   * Findings about how the package ran on this server, each one line naming the server and its version
   * (a script of the package the server refused as sent, and what swc ran in its place); empty when none.
   */
  findings?(): readonly string[];
}

/** A package swc drives, read and verifies. */
export interface ClientAdapter {
  /** The npm package name, e.g. `rate-limiter-flexible`. */
  readonly packageName: string;
  /** The name `--client` takes (the package name too, unless it has a scope or a slash). */
  readonly name: string;
  readonly algorithm: ClientAlgorithm;
  readonly clock: ClientClock;
  /** How much longer than the window the package states a key may live (ms); a TTL beyond window + slack is a finding. */
  readonly ttlSlackMs: number;
  /**
   * A slack that grows with the window, in windows (default 0): the TTL bound is then
   * `window × (1 + ttlSlackWindows) + ttlSlackMs` (see ttlBoundMs in ttl.ts).
   */
  readonly ttlSlackWindows?: number;
  /** The package's default key prefix, so lights and inspect recognise keys an application wrote with defaults. */
  readonly defaultPrefix: string;
  /**
   * Loads the package from `env.requireFrom` and builds a limiter with `settings`.
   * A package that is not installed there: an EnvironmentError naming `npm install <package>`.
   */
  open(env: ClientEnvironment, settings: ClientSettings): Promise<{ readonly version: string; readonly limiter: ClientLimiter }>;
  /** The client id a key was written for, given the prefix it was written under; null when the key is not this package's. */
  clientOfKey(key: string, prefix: string): string | null;
  /**
   * How the package departs from the model of its algorithm on purpose (absent: it does not): verify sends no
   * decision within `marginMs` of a time the model names as a window's edge ({@link ClientModel.edges}), and says `why`.
   */
  readonly deviation?: ClientDeviation;
}

/** A deviation a package declares from its algorithm's model. */
export interface ClientDeviation {
  readonly why: string;
  readonly marginMs: number;
}

/**
 * The reference model of an algorithm: the decisions a correct implementation makes,
 * in memory, for events at given times. verify holds a package to the model of its algorithm.
 */
export interface ClientModel {
  /** One decision for client `id` at `atMs` (milliseconds on the run's clock); events come in time order. */
  decide(id: string, atMs: number): boolean;
  /**
   * Times (ms, the run's clock) near which the model's next decision for `id` changes for a reason of time alone
   * (a window's end): a run in real time sends no decision close to them, since the server's clock and swc's differ
   * by a round trip. Optional: a model without it is judged everywhere.
   */
  edges?(id: string): readonly number[];
}

/** Builds a fresh model for a run's settings. */
export type ClientModelFactory = (settings: ClientSettings) => ClientModel;

/** How the names of a package's keys are read: what lights and inspect need, with no package loaded. */
export interface ClientKeyNames {
  /** The package's default key prefix (an application that set none writes under it). */
  readonly defaultPrefix: string;
  /** The client id a key was written for, given the prefix it was written under; null when the key is not this package's. */
  clientOfKey(key: string, prefix: string): string | null;
}
