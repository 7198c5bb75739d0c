import { footprints } from '../footprint.js';
import { keyDef, KeyTable, nameId } from '../kit/keys.js';
import { operationScripts, WindowCalls, type OperationScripts } from '../kit/window-calls.js';
import { toInt, toIntOrNull, toStringOrNull } from '../parse.js';
import type { FootprintCell, Layout, LayoutCapabilities, LayoutOptions, Light, Snapshot } from '../types.js';
import { StoplightV6Inspector } from './v6-inspector.js';

/** Options for {@link StoplightV6}: the key prefix defaults to `stoplight:v6`. */
export type StoplightV6Options = LayoutOptions;

/** The first 12 hex characters of SHA-256, as 6.0 names systems and lights in keys (one definition: kit/keys.ts). */
export const shortId: (name: string) => string = nameId;

/**
 * Stoplight 6.0's keys, as its scripts take them: the hash of per-second
 * counters, running totals and metadata, then the index of bucket names.
 * Both share the `{<light id>}` hash tag. `swc inspect` names them
 * `metrics` and `index`.
 */
export const V6_KEYS = {
  metrics: keyDef('metrics', '{prefix}:{systemId}:{{lightId}}:window_metrics', 'hash'),
  index: keyDef('index', '{prefix}:{systemId}:{{lightId}}:window_metrics:ts_idx', 'zset', { scoresAreSeconds: true }),
};

/** The inspector of a layout whose keys are 6.0's under `prefix` (6.0 itself, or Stoplight's own scripts run through a manifest). */
export function v6Inspector(layout: string, prefix: string): StoplightV6Inspector {
  return new StoplightV6Inspector(layout, new KeyTable(prefix, V6_KEYS));
}

/** The 6.0 layout exactly as upstream writes its eviction (see {@link StoplightV6}'s variant). */
export const STOPLIGHT_V6_UPSTREAM = 'stoplight-v6-upstream';

/**
 * Stoplight 6.0: per-second success and failure counters in one hash with
 * running totals, and a sorted set that indexes only the bucket names, so
 * memory depends on the window and not on the request rate. Both keys share
 * the `{<light>}` hash tag, so they live in one cluster slot.
 */
export class StoplightV6 extends WindowCalls implements Layout {
  readonly name: string;
  readonly windowSemantics = 'half-open' as const;
  readonly stampPrecision = 'milliseconds' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: true, readWrites: true, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly keyTable: KeyTable<keyof typeof V6_KEYS>;
  readonly inspector: StoplightV6Inspector;

  /**
   * @param variant `stoplight-v6`: swc's scripts, whose eviction skips a zero
   * subtraction; `stoplight-v6-upstream`: the same scripts subtracting as
   * upstream 6.0 does, a count of 0 too (on Redis 7.0 HINCRBY refuses the
   * "-0" that sends: docs/layouts.md, "Deliberate differences"). Same keys.
   */
  constructor(options: StoplightV6Options = {}, variant: typeof STOPLIGHT_V6_UPSTREAM | 'stoplight-v6' = 'stoplight-v6') {
    super();
    this.name = variant;
    this.prefix = options.prefix ?? 'stoplight:v6';
    this.keyTable = new KeyTable(this.prefix, V6_KEYS);
    this.inspector = new StoplightV6Inspector(this.name, this.keyTable);
    this.scripts = operationScripts(variant, options.scriptsDir);
  }

  metricsKey(light: Light): string {
    return this.keyTable.key('metrics', light);
  }

  indexKey(light: Light): string {
    return this.keyTable.key('index', light);
  }

  /** 6.0's read replies the counts, the stamps, the error and the streaks. */
  override parseMetrics(reply: unknown): Snapshot {
    const [successes, failures, lastSuccessAt, lastErrorAt, lastErrorJson, consecutiveErrors, consecutiveSuccesses] = Array.isArray(reply)
      ? (reply as unknown[])
      : [];
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

  /** 6.0's failure replies the snapshot the read would. */
  override parseFailure(reply: unknown): Snapshot {
    return this.parseMetrics(reply);
  }

  peakBytesPerLight(cell: FootprintCell): number {
    return footprints.bucketPerSecond(cell);
  }
}
