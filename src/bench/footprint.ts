import { footprints } from '../layouts/footprint.js';
import { createLayout } from '../layouts/index.js';
import { ACCURACY_TRAFFIC, PROBE_CALLS } from '../measure/accuracy.js';
import { cellsOf, type BenchPlan, type Cell } from './plan.js';

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
    // With --scripts, the layout reads its scripts there (a manifest's own scriptsRoot may hold none).
    const layout = createLayout(cell.layout, plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {});
    const perLight = layout.peakBytesPerLight ?? footprints.unknown;
    const lightsBytes = perLight.call(layout, { ...cell, extraEvents }) * plan.lights;
    // Accuracy: one more light, with 1.25 windows of traffic and the server-cost probe's writes, while the cell's lights are still there.
    const accuracyBytes = plan.accuracy
      ? perLight.call(layout, { ...cell, durationSeconds: ACCURACY_TRAFFIC.windows * cell.windowSeconds, extraEvents: PROBE_CALLS })
      : 0;
    const bytes = lightsBytes + accuracyBytes;
    if (bytes > worst.bytes) worst = { bytes, cell };
  }
  return { bytes: Math.ceil(worst.bytes * RELATIVE_MARGIN + FIXED_MARGIN_BYTES), cell: worst.cell };
}
