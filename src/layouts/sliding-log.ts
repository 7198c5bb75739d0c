import { randomBytes } from 'node:crypto';
import { operationScripts, type OperationScripts } from './window-calls.js';
import type { ScriptCall } from '../lua/source.js';
import { timeArg } from './parse.js';
import { parseCountsReply } from './snapshot.js';
import { parseKeyTemplate, TemplateInspector } from './template-inspector.js';
import type {
  CallOptions,
  FailureOptions,
  FootprintCell,
  Layout,
  LayoutCapabilities,
  LayoutOptions,
  Light,
  LightKey,
  RecordOptions,
  Snapshot,
} from './types.js';


/**
 * The sliding log: one sorted set per outcome holding every event (member =
 * event id, score = its second), pruned to the window on each write and
 * expiring two windows after the last write, plus a metadata hash. The
 * design between 5.x and 6.0, and the classic rate limiter's log.
 *
 * Stores: one member per event in the window (about 5.x's bytes per event,
 * without 5.x's events that already left the window).
 * Costs: memory grows with the rate; a write is O(log n) plus the pruned
 * members, a read two ZCOUNTs (read-only).
 * Where it is wrong: nowhere inside the window, which is exact (half-open on
 * whole seconds, as 6.0); events that left the window stay until the next
 * write prunes them, so an idle light keeps its last window's members until
 * the keys expire.
 */
export class SlidingLog implements Layout {
  readonly name = 'sliding-log';
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: false, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly inspector: TemplateInspector;

  constructor(options: LayoutOptions = {}) {
    this.prefix = options.prefix ?? 'swc:sliding-log';
    this.scripts = operationScripts('sliding-log', options.scriptsDir);
    this.inspector = new TemplateInspector({
      layout: this.name,
      templates: [
        parseKeyTemplate('success events', `${this.prefix}:{{light}}:success`, { scoresAreSeconds: true }),
        parseKeyTemplate('failure events', `${this.prefix}:{{light}}:failure`, { scoresAreSeconds: true }),
        parseKeyTemplate('metadata', `${this.prefix}:{{light}}:meta`),
      ],
    });
  }

  /** The light's keys: success log, failure log, metadata. */
  private keys(light: Light): [string, string, string] {
    const base = `${this.prefix}:{${light.name}}`;
    return [`${base}:success`, `${base}:failure`, `${base}:meta`];
  }

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    return {
      script: this.scripts[0],
      keys: this.keys(light),
      args: [options.windowSeconds, timeArg(options.at), options.eventId ?? randomBytes(12).toString('hex')],
    };
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    return {
      script: this.scripts[1],
      keys: this.keys(light),
      args: [options.windowSeconds, timeArg(options.at), options.eventId ?? randomBytes(12).toString('hex'), options.errorJson],
    };
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    return { script: this.scripts[2], keys: this.keys(light), args: [options.windowSeconds, timeArg(options.at)] };
  }

  parseMetrics(reply: unknown): Snapshot {
    return parseCountsReply(reply);
  }

  parseFailure(): null {
    return null;
  }

  /** Every event of the window (pruned on each write) at up to 165 bytes, and the metadata. */
  peakBytesPerLight(cell: FootprintCell): number {
    return Math.min(cell.rate * (cell.windowSeconds + 1), cell.rate * cell.durationSeconds + cell.extraEvents) * 165 + 4096;
  }

  keysOf(light: Light): LightKey[] {
    const [success, failure, meta] = this.keys(light);
    return [
      { key: success, role: 'success events' },
      { key: failure, role: 'failure events' },
      { key: meta, role: 'metadata' },
    ];
  }
}
