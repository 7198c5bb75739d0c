/**
 * Packages beside the registered designs: a line per package comparing its
 * bytes per client with the designs' bytes per light at the same window and
 * rate, and `--suggest`'s ranking with the packages in it, under the same rule
 * (src/bench/suggest.ts). Pure: no Redis.
 */
import type { CellResult } from '../measure/types.js';
import type { ClientResult } from './client-bench.js';
import type { ClientReport } from './client-run.js';
import { suggest, type Suggestion, type SuggestInput } from './suggest.js';

/** How one package compares with the designs measured beside it. */
export interface ClientComparison {
  readonly client: string;
  readonly bytesPerClient: number;
  /** The designs at the same window and rate, fewest bytes first, each with the package's bytes over its own. */
  readonly designs: readonly { readonly layout: string; readonly bytesPerLight: number; readonly ratio: number }[];
}

/** The name a package has in a ranking: `<package>@<version>`. */
export const rankedName = (c: ClientResult): string => `${c.packageName}@${c.version}`;

/** Each package against the designs at its window and rate. */
export function compareWithDesigns(report: ClientReport): ClientComparison[] {
  return report.clients.map((c) => ({
    client: c.client,
    bytesPerClient: c.memory.atRate.bytesPerClient,
    designs: report.results
      .filter((r) => r.windowSeconds === c.windowSeconds && r.rate === c.rate)
      .map((r) => ({
        layout: r.layout,
        bytesPerLight: r.memory.bytesPerLight,
        ratio: r.memory.bytesPerLight > 0 ? c.memory.atRate.bytesPerClient / r.memory.bytesPerLight : 0,
      }))
      .sort((a, b) => a.bytesPerLight - b.bytesPerLight),
  }));
}

/**
 * A package as a ranking sees a design: its bytes per client as bytes per
 * light, and its accuracy as the share of decisions that differed from the
 * exact window over the three traffics (exact when none did and no window
 * held more than the limit).
 */
function asCell(c: ClientResult, threshold: number): CellResult {
  const cases = [c.accuracy.steady, c.accuracy.overload, c.accuracy.burst];
  const sent = cases.reduce((sum, a) => sum + a.sent, 0);
  const mismatches = cases.reduce((sum, a) => sum + a.mismatchFraction * a.sent, 0);
  const over = Math.max(...cases.map((a) => a.overLimit)) / Math.max(1, c.limit);
  return {
    layout: rankedName(c),
    windowSeconds: c.windowSeconds,
    rate: c.rate,
    durationSeconds: c.windowSeconds,
    eventsInWindow: c.rate * c.windowSeconds,
    events: c.rate * c.windowSeconds,
    memory: { bytesPerLight: c.memory.atRate.bytesPerClient, usedMemoryDeltaPerLight: 0, keys: [], lights: c.memory.atRate.clients },
    accuracy: {
      reads: sent,
      // A package's error: how far over the limit its worst window went, as a share of the limit.
      maxAbsError: mismatches === 0 ? 0 : over,
      meanAbsError: mismatches === 0 ? 0 : over,
      threshold,
      decisionMismatchFraction: sent === 0 ? 0 : mismatches / sent,
    },
  };
}

/** `--suggest` over the designs and the packages together, one suggestion per window and rate. */
export function suggestWithClients(report: ClientReport, input: SuggestInput = {}): Suggestion[] {
  const threshold = report.results.find((r) => r.accuracy)?.accuracy?.threshold ?? 0;
  const cells = report.clients.map((c) => asCell(c, threshold));
  return suggest(
    { ...report, results: [...report.results, ...cells] },
    { ...input, ...(input.layouts ? { layouts: [...input.layouts, ...cells.map((c) => c.layout)] } : {}) },
  );
}
