import { cellsOf, type BenchPlan, type Cell } from './plan.js';

/** What a footprint estimate gets to know about a cell. */
export interface FootprintCell {
  readonly windowSeconds: number;
  readonly rate: number;
  readonly durationSeconds: number;
  /** Events per light the throughput phase adds after the fill. */
  readonly extraEvents: number;
}

/** An upper bound of the bytes one light of a layout holds at the end of a cell. */
export type Footprint = (cell: FootprintCell) => number;

/**
 * Upper bounds per storage shape, from the measured figures (README): one
 * sorted-set member per event costs 118–127 B; per-second buckets cost
 * 180–285 B per second of window. The bounds are about 30% above the worst
 * figure, plus fixed costs (metadata, key overhead, one key per hour).
 */
export const footprints = {
  /** One member per event, kept for the whole traffic (hour keys live a day). */
  eventPerMember: (cell: FootprintCell): number =>
    (cell.rate * cell.durationSeconds + cell.extraEvents) * 165 + (Math.ceil(cell.durationSeconds / 3600) + 2) * 512 + 2048,
  /** Buckets per second: bounded by the window, whatever the rate. */
  bucketPerSecond: (cell: FootprintCell): number =>
    Math.min(cell.windowSeconds, cell.durationSeconds + Math.ceil(cell.extraEvents / cell.rate) + 1) * 380 + 4096,
} as const satisfies Record<string, Footprint>;

/**
 * Footprint by layout name. A layout not listed (a new design, a manifest)
 * gets the larger of the two shapes, which is safe for either.
 */
export const layoutFootprints: Readonly<Record<string, Footprint>> = {
  'stoplight-v5': footprints.eventPerMember,
  'stoplight-v6': footprints.bucketPerSecond,
};

const footprintOf = (layout: string): Footprint =>
  layoutFootprints[layout] ?? ((cell) => Math.max(footprints.eventPerMember(cell), footprints.bucketPerSecond(cell)));

/**
 * Operations per second no script call of a layout exceeds on one server: a
 * write costs Redis 8–14 µs, so even a pipelined load stays under 100,000/s.
 * Bounds a time-based throughput phase, whose op count is not known ahead.
 */
const MAX_SERVER_OPS_PER_SECOND = 100_000;
/** Scripts, client buffers and allocator slack on top of the keys. */
const FIXED_MARGIN_BYTES = 2 * 1024 * 1024;
const RELATIVE_MARGIN = 1.25;

/** The estimate of {@link estimatePeakBytes}, with the cell that sets it. */
export interface PeakEstimate {
  readonly bytes: number;
  readonly cell: Cell | undefined;
}

/**
 * An upper bound of the memory a plan's keys take at once. Cells run one
 * after another and each deletes its keys before the next, so the peak is
 * the largest cell (its lights, plus the throughput phase's write and
 * request events), with margins.
 */
export function estimatePeakBytes(plan: BenchPlan): PeakEstimate {
  const t = plan.throughput;
  const opsPerPhase = t ? (t.ops ?? Math.ceil(t.seconds * MAX_SERVER_OPS_PER_SECOND)) : 0;
  let worst: PeakEstimate = { bytes: 0, cell: undefined };
  for (const cell of cellsOf(plan)) {
    // The write and request phases each add one event per operation.
    const extraEvents = Math.ceil((2 * opsPerPhase) / plan.lights);
    const bytes = footprintOf(cell.layout)({ ...cell, extraEvents }) * plan.lights;
    if (bytes > worst.bytes) worst = { bytes, cell };
  }
  return { bytes: Math.ceil(worst.bytes * RELATIVE_MARGIN + FIXED_MARGIN_BYTES), cell: worst.cell };
}
