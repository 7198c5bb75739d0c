import { nameId } from './stoplight-names.js';
import { operationScripts, type OperationScripts } from './window-calls.js';
import type { ScriptCall } from '../lua/source.js';
import { footprints } from './footprint.js';
import { timeArg, toInt, toIntOrNull, toStringOrNull } from './parse.js';
import { StoplightV6Inspector } from './stoplight-v6-inspector.js';
import {
  DEFAULT_SYSTEM,
  type CallOptions,
  type FailureOptions,
  type FootprintCell,
  type Layout,
  type LayoutCapabilities,
  type LayoutOptions,
  type Light,
  type LightKey,
  type RecordOptions,
  type Snapshot,
} from './types.js';

/** Options for {@link StoplightV6}: the key prefix defaults to `stoplight:v6`. */
export type StoplightV6Options = LayoutOptions;

/** The first 12 hex characters of SHA-256, as 6.0 names systems and lights in keys (one definition: stoplight-names.ts). */
export const shortId: (name: string) => string = nameId;

/**
 * Stoplight 6.0: per-second success and failure counters in one hash with
 * running totals, and a sorted set that indexes only the bucket names, so
 * memory depends on the window and not on the request rate. Both keys share
 * the `{<light>}` hash tag, so they live in one cluster slot.
 */
export class StoplightV6 implements Layout {
  readonly name = 'stoplight-v6';
  readonly windowSemantics = 'half-open' as const;
  readonly stampPrecision = 'milliseconds' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: true, readWrites: true, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly inspector: StoplightV6Inspector;

  constructor(options: StoplightV6Options = {}) {
    this.prefix = options.prefix ?? 'stoplight:v6';
    this.inspector = new StoplightV6Inspector(this.name, this.prefix, shortId);
    this.scripts = operationScripts('stoplight-v6', options.scriptsDir);
  }

  /** Key bases by system and name: two SHA-256 per call would otherwise cost more client time than the call. */
  private readonly bases = new Map<string, string>();

  /** `stoplight:v6:<sys>:{<light>}` for a light given by name. */
  base(light: Light): string {
    const system = light.system ?? DEFAULT_SYSTEM;
    const cacheKey = `${system}\u0000${light.name}`;
    let base = this.bases.get(cacheKey);
    if (base === undefined) {
      base = `${this.prefix}:${shortId(system)}:{${shortId(light.name)}}`;
      if (this.bases.size >= 10_000) this.bases.clear();
      this.bases.set(cacheKey, base);
    }
    return base;
  }

  metricsKey(light: Light): string {
    return `${this.base(light)}:window_metrics`;
  }

  indexKey(light: Light): string {
    return `${this.base(light)}:window_metrics:ts_idx`;
  }

  /** The last light's call keys: a fill asks for the same light's keys hundreds of thousands of times in a row. */
  private lastKeys: { system: string | undefined; name: string; keys: readonly string[] } | undefined;

  private keys(light: Light): readonly string[] {
    const last = this.lastKeys;
    if (last !== undefined && last.name === light.name && last.system === light.system) return last.keys;
    const keys = [this.metricsKey(light), this.indexKey(light)];
    this.lastKeys = { system: light.system, name: light.name, keys };
    return keys;
  }

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    return { script: this.scripts[0], keys: this.keys(light), args: [options.windowSeconds, timeArg(options.at)] };
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    return {
      script: this.scripts[1],
      keys: this.keys(light),
      args: [options.windowSeconds, timeArg(options.at), options.errorJson],
    };
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    return { script: this.scripts[2], keys: this.keys(light), args: [options.windowSeconds, timeArg(options.at)] };
  }

  parseMetrics(reply: unknown): Snapshot {
    const [successes, failures, lastSuccessAt, lastErrorAt, lastErrorJson, consecutiveErrors, consecutiveSuccesses] =
      Array.isArray(reply) ? (reply as unknown[]) : [];
    return {
      successes: toInt(successes),
      failures: toInt(failures),
      consecutiveSuccesses: toInt(consecutiveSuccesses),
      consecutiveErrors: toInt(consecutiveErrors),
      lastSuccessAt: toIntOrNull(lastSuccessAt),
      lastErrorAt: toIntOrNull(lastErrorAt),
      lastErrorJson: toStringOrNull(lastErrorJson),
    };
  }

  parseFailure(reply: unknown): Snapshot {
    return this.parseMetrics(reply);
  }

  peakBytesPerLight(cell: FootprintCell): number {
    return footprints.bucketPerSecond(cell);
  }

  keysOf(light: Light): LightKey[] {
    return [
      { key: this.metricsKey(light), role: 'metrics' },
      { key: this.indexKey(light), role: 'index' },
    ];
  }

}
