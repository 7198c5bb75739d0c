import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files of a full run, longest first: the seconds each took
 * in two full `vitest run`s on the 2-core machine at load 15-25 (2026-12-07,
 * 1,042 s and 994 s of wall time against about 300 s on a quiet machine),
 * ranked by their mean; a loaded run's seconds rank files, they are not a
 * quiet machine's. Started first, they end while shorter files still fill
 * the workers: left to vitest's order on a fresh clone (by lane, then by file
 * size), the million-element file started at about 375 s of a 425 s run and
 * ran alone at the end. A file missing from the list only runs in vitest's
 * own order; one that has grown belongs in it (the per-file times are in
 * `npm test`'s output, or `npx vitest run --reporter=json`'s).
 */
export const LONGEST = [
  'test/integration/inspect/million.test.ts', // 51 s, 264 s
  'test/cli/safety/acl-confinement.test.ts', // 19 s, 227 s
  'test/cli/safety/rehearsal.test.ts', // 114 s, 75 s
  'test/cli/safety/hostile-scripts.test.ts', // 56 s, 89 s
  'test/cli/readme.test.ts', // 56 s, 86 s
  'test/cli/safety/trust-split.test.ts', // 59 s, 67 s
  'test/cli/safety/cluster-max-ops.test.ts', // 58 s, 60 s
  'test/cli/chart.test.ts', // 63 s, 49 s
  'test/cli/lights.test.ts', // 32 s, 71 s
  'test/cli/manifest.test.ts', // 14 s, 86 s
  'test/cli/compare.test.ts', // 69 s, 29 s
  'test/integration/verify/verify.test.ts', // 37 s, 48 s
  'test/cli/width.test.ts', // 35 s, 48 s
  'test/integration/verify/layouts10.test.ts', // 52 s, 29 s
  'test/cli/safety-run.test.ts', // 33 s, 46 s
  'test/cli/private-server.test.ts', // 20 s, 55 s
  'test/integration/measure/accuracy.test.ts', // 45 s, 29 s
  'test/cli/safety/input-depth.test.ts', // 46 s, 20 s
  'test/cli/bench-scenario.test.ts', // 26 s, 39 s
  'test/cli/bench-faults.test.ts', // 27 s, 37 s
  'test/integration/library/guarded-bench.test.ts', // 36 s, 26 s
  'test/cli/output-errors.test.ts', // 35 s, 26 s
];

/** vitest's order, with the files of {@link LONGEST} moved to the front in its order. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification): number => {
      const at = LONGEST.indexOf(relative(root, spec.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    // Array sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
