import { footprints } from './footprint.js';
import { keyDef, KeyTable } from './kit/keys.js';
import { TemplateInspector } from './kit/template-inspector.js';
import { operationScripts, WindowCalls, type OperationScripts } from './kit/window-calls.js';
import type { FootprintCell, Layout, LayoutCapabilities, LayoutOptions, Light } from './types.js';

/** The ring's one key: its slots and the metadata share a hash. */
export const RING_KEYS = { ring: keyDef('slots and metadata', '{prefix}:{{name}}:ring', 'hash') };

/**
 * The ring: a fixed ring of W per-second slots in one hash. Slot
 * `second mod W` holds `"<second>:<successes>:<failures>"`; a slot is reused
 * when its second comes round, and a slot whose stored second is older than
 * the window is recognised as stale and not counted. No index, no eviction
 * scan, no running totals. The metadata fields share the hash.
 *
 * Stores: at most W slot fields plus five metadata fields, whatever the rate.
 * Costs: a write is O(1) (HGET, HSET); a read is O(W) (it reads every slot),
 * and read-only.
 * Where it is wrong: nowhere for one window size per light (exact, half-open
 * on whole seconds). When a light's window size changes, seconds map to other
 * slots: no event is counted twice (each sits in one slot), but a write may
 * overwrite a slot of the old size whose second is still inside the window,
 * losing its events.
 */
export class Ring extends WindowCalls implements Layout {
  readonly name = 'ring';
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: false, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: OperationScripts;
  readonly keyTable: KeyTable<keyof typeof RING_KEYS>;
  readonly inspector: TemplateInspector;

  constructor(options: LayoutOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'swc:ring';
    this.scripts = operationScripts('ring', options.scriptsDir);
    this.keyTable = new KeyTable(this.prefix, RING_KEYS);
    this.inspector = new TemplateInspector(this.name, this.keyTable);
  }

  ringKey(light: Light): string {
    return this.keyTable.key('ring', light);
  }

  /** At most one slot per second of window: 6.0's per-second bound holds. */
  peakBytesPerLight(cell: FootprintCell): number {
    return footprints.bucketPerSecond(cell);
  }
}
