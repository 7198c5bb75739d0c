import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/sequencer.js';

/**
 * Three lanes (see docs/architecture.md):
 * - unit: pure functions and in-process calls; no redis-server, no spawned CLI.
 * - cli: end-to-end spawns of bin/swc.js (which runs dist/: build first).
 * - integration: everything else, against a real redis-server. It takes every
 *   *.test.ts outside test/unit and test/cli, so a test file added in any other
 *   folder still runs instead of silently dropping out of every lane.
 */
const UNIT = 'test/unit/**/*.test.ts';
const CLI = 'test/cli/**/*.test.ts';

export default defineConfig({
  test: {
    // Guards against a hang, not speed bounds (no test asserts a time: speed lives in `npm run bench:*`): wide
    // enough that a test that takes 40 s on a quiet machine still ends on a loaded one (`npm run test:load`). A
    // full run at load 15-25 took 1,042 s where a quiet one takes about 300 s, and a guarded bench that takes
    // 30-43 s alone was killed at 110 s there. No test or hook sets a shorter one; a spawned swc is killed
    // after 240 s (test/cli/run-cli.ts), before its test's own limit, so a hang shows its output.
    testTimeout: 300_000,
    hookTimeout: 240_000,
    pool: 'forks',
    // Three files at once on the 2-core machine (vitest's default there is one): most
    // of a file's time is spent waiting on spawned processes and servers. Each
    // worker has a redis-server of its own (test/global-setup.ts).
    maxWorkers: 3,
    // The longest files first, so the run does not end on one of them alone (test/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [UNIT],
          // Pure tests share one module cache per worker: importing src/ once per file
          // was most of this lane's time. A unit test must leave no global state behind.
          pool: 'threads',
          isolate: false,
          // A unit test that tries to start a redis-server fails at once instead of quietly needing one.
          env: { SWC_REDIS_SERVER: '/nonexistent/unit-lane-has-no-redis-server' },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT, CLI, '**/node_modules/**'],
          globalSetup: ['test/global-setup.ts'],
          // Files share one module cache per worker (still one forked process per
          // worker): src/ is imported once per worker instead of once per file.
          // Measured on this lane at 62 files: 164 s CPU (148 user + 16 sys),
          // "import 41.8s" isolated; 126 s CPU (116 user + 11 sys), "import 12.5s"
          // shared (the shared run under heavier machine load). At 75 files,
          // isolated: 222 s CPU, "import 49.8s"; shared, 146 s CPU (132 user + 14
          // sys), "import 6.7s", on a quiet machine.
          // Module state a file changes is put back after it by this setup file
          // (the layout registry).
          setupFiles: ['test/integration-setup.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          include: [CLI],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/integration-setup.ts'],
          isolate: false,
        },
      },
    ],
  },
});
