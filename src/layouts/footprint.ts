import type { FootprintCell } from './types.js';

/**
 * Upper bounds of a light's bytes per storage shape, from the measured
 * figures (README): one sorted-set member per event costs 118–127 B;
 * per-second buckets cost 180–285 B per second of window. The bounds are
 * about 30% above the worst figure, plus fixed costs (metadata, key
 * overhead, one key per hour). Layouts pick theirs as `peakBytesPerLight`.
 */
export const footprints = {
  /** One member per event, kept for the whole traffic (hour keys live a day). */
  eventPerMember: (cell: FootprintCell): number =>
    (cell.rate * cell.durationSeconds + cell.extraEvents) * 165 + (Math.ceil(cell.durationSeconds / 3600) + 2) * 512 + 2048,
  /** Buckets per second: bounded by the window, whatever the rate. */
  bucketPerSecond: (cell: FootprintCell): number =>
    Math.min(cell.windowSeconds, cell.durationSeconds + Math.ceil(cell.extraEvents / cell.rate) + 1) * 380 + 4096,
  /** For a layout that declares no bound: the larger of the two, safe for either. */
  unknown: (cell: FootprintCell): number => Math.max(footprints.eventPerMember(cell), footprints.bucketPerSecond(cell)),
} as const;
