import { randomBytes } from 'node:crypto';
import type { ScriptCall } from '../../lua/source.js';
import { footprints } from '../footprint.js';
import { HOUR_SECONDS, hourStart, keyDef, KeyTable, type KeyDef, type LightKey } from '../kit/keys.js';
import { operationScripts, type OperationScripts } from '../kit/window-calls.js';
import { pairsToRecord, timeArg, toInt, toIntOrNull, toStringOrNull } from '../parse.js';
import type { CallOptions, FailureOptions, FootprintCell, Layout, LayoutCapabilities, LayoutOptions, Light, RecordOptions, Snapshot } from '../types.js';
import { StoplightV5Inspector } from './v5-inspector.js';
import { V5_FIRST_SECOND_OF_HOUR } from './state.js';

// Events are grouped into one sorted set per clock hour: the key model's `{hour}`.
export { HOUR_SECONDS, hourStart };

/** The rows of a 5.x key table: the metadata hash, and one sorted set of events per outcome and clock hour. */
export type V5KeyRows = Readonly<Record<'metadata' | 'success' | 'failure', KeyDef>>;

/** Stoplight 5.x's keys: the raw light name, no hash tag. */
export const V5_KEYS: V5KeyRows = {
  metadata: keyDef('metadata', '{prefix}:metadata:{name}', 'hash'),
  success: keyDef('success events', '{prefix}:metrics:{name}:success:{hour}', 'zset', { scoresAreSeconds: true }),
  failure: keyDef('failure events', '{prefix}:metrics:{name}:failure:{hour}', 'zset', { scoresAreSeconds: true }),
};

/** The table of 5.x keys under `prefix`: an hour's success and failure keys are listed together, as 5.x's bench lists them. */
export function v5KeyTable(prefix: string, rows: V5KeyRows = V5_KEYS): KeyTable<keyof V5KeyRows> {
  return new KeyTable(prefix, rows, { order: 'hour' });
}
/** The read never looks further back than the hour keys live. */
export const V5_MAX_WINDOW_SECONDS = 86_400;

/** Options for {@link StoplightV5}: the key prefix defaults to `stoplight:v5`. */
export type StoplightV5Options = LayoutOptions;

// Stated with Stoplight's window rule (state.ts): a read at hh:00:00 does not count that second.
export { V5_FIRST_SECOND_OF_HOUR };

/**
 * Stoplight 5.x: one sorted-set member per event, in hour keys, so memory
 * grows with the request rate. Keys carry the raw light name and no hash tag.
 */
export class StoplightV5 implements Layout {
  readonly name: string = 'stoplight-v5';
  readonly windowSemantics = 'closed' as const;
  readonly stampPrecision = 'seconds' as const;
  readonly deviations = [V5_FIRST_SECOND_OF_HOUR];
  readonly capabilities: LayoutCapabilities = {
    failureReturnsSnapshot: false,
    readWrites: false,
    maxWindowSeconds: V5_MAX_WINDOW_SECONDS,
  };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly keyTable: KeyTable<keyof V5KeyRows>;
  readonly inspector: StoplightV5Inspector;

  /** `rows`: the key table's rows (5.x's own by default; the tagged variant brings its own). */
  constructor(options: StoplightV5Options = {}, rows: V5KeyRows = V5_KEYS) {
    this.prefix = options.prefix ?? 'stoplight:v5';
    this.keyTable = v5KeyTable(this.prefix, rows);
    this.inspector = new StoplightV5Inspector(this.name, this.keyTable, this.capabilities.maxWindowSeconds ?? V5_MAX_WINDOW_SECONDS);
    this.scripts = operationScripts('stoplight-v5', options.scriptsDir);
  }

  metadataKey(light: Light): string {
    return this.keyTable.key('metadata', light);
  }

  eventsKey(light: Light, outcome: 'success' | 'failure', hour: number): string {
    return this.keyTable.key(outcome, light, hour);
  }

  /** Per outcome, the last call keys: a fill writes one light's hour keys hundreds of thousands of times in a row. */
  private readonly lastKeys = new Map<string, { name: string; hour: number; keys: readonly string[] }>();

  private recordKeys(light: Light, outcome: 'success' | 'failure', hour: number): readonly string[] {
    const last = this.lastKeys.get(outcome);
    if (last !== undefined && last.name === light.name && last.hour === hour) return last.keys;
    const keys = [this.metadataKey(light), this.eventsKey(light, outcome, hour)];
    this.lastKeys.set(outcome, { name: light.name, hour, keys });
    return keys;
  }

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    return this.record(light, 'success', options, []);
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    return this.record(light, 'failure', options, [options.errorJson]);
  }

  private record(light: Light, outcome: 'success' | 'failure', options: RecordOptions, extra: string[]): ScriptCall {
    const [success, failure] = this.scripts;
    // Without an injected time the script scores with Redis TIME; the hour key
    // comes from our clock, as the 5.x client did. Reads count by score across
    // every overlapping hour key, so a boundary disagreement loses nothing.
    const when = options.at ?? Date.now() / 1000;
    return {
      script: outcome === 'success' ? success : failure,
      keys: this.recordKeys(light, outcome, hourStart(when)),
      args: [options.eventId ?? randomBytes(12).toString('hex'), timeArg(options.at), ...extra],
    };
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    const window = Math.min(options.windowSeconds, V5_MAX_WINDOW_SECONDS);
    // As Stoplight 5.x's client: the time is this machine's, and the hour
    // keys run from the one holding the window's start to the one holding
    // (window end - 1 s); see V5_FIRST_SECOND_OF_HOUR.
    const at = options.at ?? Date.now() / 1000;
    const end = Math.floor(at);
    const hours: number[] = [];
    for (let h = hourStart(end - window); h <= hourStart(end - 1); h += HOUR_SECONDS) hours.push(h);
    return {
      script: this.scripts[2],
      keys: [this.metadataKey(light), ...hours.map((h) => this.eventsKey(light, 'success', h)), ...hours.map((h) => this.eventsKey(light, 'failure', h))],
      args: [window, hours.length, timeArg(at)],
    };
  }

  parseMetrics(reply: unknown): Snapshot {
    const [successes, failures, metadata] = Array.isArray(reply) ? reply : [];
    const meta = pairsToRecord(metadata);
    return {
      successes: toInt(successes),
      failures: toInt(failures),
      consecutiveSuccesses: toInt(meta.consecutive_successes),
      consecutiveErrors: toInt(meta.consecutive_errors),
      lastSuccessAt: toIntOrNull(meta.last_success_at),
      lastErrorAt: toIntOrNull(meta.last_error_at),
      lastErrorJson: toStringOrNull(meta.last_error_json),
    };
  }

  parseFailure(): Snapshot | null {
    return null;
  }

  peakBytesPerLight(cell: FootprintCell): number {
    return footprints.eventPerMember(cell);
  }

  keysOf(light: Light, fromSecond: number, toSecond: number): LightKey[] {
    return this.keyTable.keysOf(light, fromSecond, toSecond);
  }
}
