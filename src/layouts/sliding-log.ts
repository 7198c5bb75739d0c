import { randomBytes } from 'node:crypto';
import { keyDef, KeyTable } from './kit/keys.js';
import { TemplateInspector } from './kit/template-inspector.js';
import { operationScripts, WindowCalls, type OperationScripts } from './kit/window-calls.js';
import type { FootprintCell, Layout, LayoutCapabilities, LayoutOptions, RecordOptions } from './types.js';

/** One log per outcome, then the metadata, as the scripts take them. */
export const SLIDING_LOG_KEYS = {
  success: keyDef('success events', '{prefix}:{{name}}:success', 'zset', { scoresAreSeconds: true }),
  failure: keyDef('failure events', '{prefix}:{{name}}:failure', 'zset', { scoresAreSeconds: true }),
  meta: keyDef('metadata', '{prefix}:{{name}}:meta', 'hash'),
};

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
export class SlidingLog extends WindowCalls implements Layout {
  readonly name = 'sliding-log';
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: false, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly keyTable: KeyTable<keyof typeof SLIDING_LOG_KEYS>;
  readonly inspector: TemplateInspector;

  constructor(options: LayoutOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'swc:sliding-log';
    this.scripts = operationScripts('sliding-log', options.scriptsDir);
    this.keyTable = new KeyTable(this.prefix, SLIDING_LOG_KEYS);
    this.inspector = new TemplateInspector(this.name, this.keyTable);
  }

  /** Each event is a member of its own: its id follows the window and the time. */
  protected override writeArgs(args: (string | number)[], options: RecordOptions): void {
    args.push(options.eventId ?? randomBytes(12).toString('hex'));
  }

  /** Every event of the window (pruned on each write) at up to 165 bytes, and the metadata. */
  peakBytesPerLight(cell: FootprintCell): number {
    return Math.min(cell.rate * (cell.windowSeconds + 1), cell.rate * cell.durationSeconds + cell.extraEvents) * 165 + 4096;
  }
}
