import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files of a full run, longest first (seconds each took in a
 * fresh clone's `npm test` on the 2-core machine, 2026-12-03). Started first,
 * they end while shorter files still fill the workers: left to vitest's
 * order on a fresh clone (by lane, then by file size), the million-element
 * file started at about 375 s of a 425 s run and ran alone at the end. A
 * file missing from the list only runs in vitest's own order; one that has
 * grown belongs in it (the per-file times are in `npm test`'s output).
 */
export const LONGEST = [
  'test/cli/connection.test.ts', // 55 s, mostly waiting on silent ports
  'test/cli/safety/acl-confinement.test.ts', // 42 s
  'test/integration/inspect/million.test.ts', // 38 s
  'test/cli/manifest.test.ts', // 32 s
  'test/cli/private-server.test.ts', // 31 s
  'test/cli/safety-run.test.ts', // 29 s
  'test/cli/readme.test.ts', // 29 s
  'test/cli/bench-faults.test.ts', // 26 s
  'test/cli/safety/hostile-scripts.test.ts', // 26 s
  'test/cli/bench-cluster.test.ts', // 25 s
  'test/integration/commands/compare-explain.test.ts', // 25 s
  'test/cli/bench-sweep.test.ts', // 25 s
  'test/cli/bench-shared.test.ts', // 24 s
  'test/integration/verify/verify.test.ts', // 21 s
  'test/cli/verify-builds.test.ts', // 21 s
  'test/cli/lights.test.ts', // 20 s
  'test/cli/bench.test.ts', // 18 s
  'test/cli/width.test.ts', // 18 s
  'test/cli/bench-scenario.test.ts', // 16 s
  'test/cli/bench-realtime.test.ts', // 16 s
  'test/cli/safety/loop-private.test.ts', // 16 s
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
