import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from '../../src/measure/types.js';

/** The shipped CI scenario: 8 cells whose sorted sets all stay listpacks (the same bytes on every run of a build). */
export const SMALL_SCENARIO = fileURLToPath(new URL('../../fixtures/scenarios/small.json', import.meta.url));
/** The committed baseline of SMALL_SCENARIO. */
export const SMALL_BASELINE = fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url));

/** The committed baseline, parsed afresh (callers may change their copy). */
export function shippedBaseline(): BenchReport {
  return JSON.parse(readFileSync(SMALL_BASELINE, 'utf8')) as BenchReport;
}

/**
 * A planted baseline: the committed one with `bytesPerLight` changed by
 * `plant` in the cells it picks (it returns the new figure, or undefined to
 * leave the cell alone), written to `dir/name`. Returns the report and its file.
 */
export function plantBaseline(
  dir: string,
  name: string,
  plant: (cell: BenchReport['results'][number]) => number | undefined,
): { report: BenchReport; file: string } {
  const shipped = shippedBaseline();
  const report: BenchReport = {
    ...shipped,
    results: shipped.results.map((r) => {
      const bytes = plant(r);
      return bytes === undefined ? r : { ...r, memory: { ...r.memory, bytesPerLight: bytes } };
    }),
  };
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(report));
  return { report, file };
}

/** The arguments of bench running the shipped scenario on `url` against the baseline file `baseline`. */
export const smallAgainst = (url: string, baseline: string): string[] => ['bench', '--redis-url', url, '--scenario', SMALL_SCENARIO, '--baseline', baseline];
