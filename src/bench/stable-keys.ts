import type { BenchReport } from '../measure/types.js';

/** What a run's own namespace becomes in a result: the same text in every run. */
export const RUN_PLACEHOLDER = 'swc-bench:<run>';

/**
 * The report with the run's namespace in key names replaced by
 * {@link RUN_PLACEHOLDER}, so two runs of the same scenario give the same
 * result file, byte for byte where the bytes repeat. The bytes were measured
 * under the real names, which have the placeholder's length or a fixed one.
 */
export function withStableKeyNames(report: BenchReport, prefix: string): BenchReport {
  const from = `${prefix}:`;
  return {
    ...report,
    results: report.results.map((cell) => ({
      ...cell,
      memory: {
        ...cell.memory,
        keys: cell.memory.keys.map((k) => (k.key.startsWith(from) ? { ...k, key: `${RUN_PLACEHOLDER}:${k.key.slice(from.length)}` } : k)),
      },
    })),
  };
}
