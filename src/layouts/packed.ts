import { keyDef, KeyTable } from './kit/keys.js';
import { TemplateInspector } from './kit/template-inspector.js';
import { operationScripts, WindowCalls, type OperationScripts } from './kit/window-calls.js';
import type { FootprintCell, Layout, LayoutCapabilities, LayoutOptions } from './types.js';

/** The packed counters, then the metadata, as the scripts take them. */
export const PACKED_KEYS = {
  counters: keyDef('packed slots', '{prefix}:{{name}}:counters', 'string'),
  meta: keyDef('metadata', '{prefix}:{{name}}:meta', 'hash'),
};

/** Bytes of one slot: the slot's second, its successes, its failures, each an unsigned 32-bit integer. */
export const PACKED_SLOT_BYTES = 12;

/**
 * The packed ring: the {@link Ring}'s W per-second slots as fixed-width
 * counters in one string, written with BITFIELD. Slot `second mod W` is 12
 * bytes at byte `12 × slot`: three big-endian u32 (the slot's second, its
 * successes, its failures); a slot holding an older second is stale. The
 * metadata lives in a small hash beside it. The smallest exact design.
 *
 * Stores: 12 bytes per second of window, whatever the rate, plus the
 * metadata hash (a few hundred bytes, dominated by `last_error_json`).
 * Costs: a write is two BITFIELD calls (O(1)); a read GETs the whole string
 * and decodes it in Lua (O(W)), read-only.
 * Where it is wrong: counters saturate at 2^32 − 1 events per second; the
 * second stamps end in 2106; as with the ring, a change of a light's window
 * size can lose the events of slots it overwrites (never counts one twice).
 */
export class Packed extends WindowCalls implements Layout {
  readonly name = 'packed';
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: false, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly keyTable: KeyTable<keyof typeof PACKED_KEYS>;
  readonly inspector: TemplateInspector;

  constructor(options: LayoutOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'swc:packed';
    this.scripts = operationScripts('packed', options.scriptsDir);
    this.keyTable = new KeyTable(this.prefix, PACKED_KEYS);
    this.inspector = new TemplateInspector(this.name, this.keyTable);
  }

  /** The string is 12 bytes per second of window from the first write (plus allocator rounding), and the metadata. */
  peakBytesPerLight(cell: FootprintCell): number {
    return Math.ceil(cell.windowSeconds * PACKED_SLOT_BYTES * 1.3) + 4096;
  }
}
