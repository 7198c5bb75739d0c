import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// --suggest's refusals come while the options are read, before anything
// connects: the same program and exit path as the CLI, in-process.
// test/cli/bench-suggest.test.ts keeps one spawned refusal (--no-accuracy).

/** Nothing listens here: a command that connected would fail (exit 3), not 2. */
const NOWHERE = 'redis://127.0.0.1:1';

describe('swc bench --suggest: refused with one line and exit 2, before connecting', () => {
  it.each([
    [['--no-accuracy'], /^swc: --suggest\/--no-accuracy: /],
    [['--format', 'csv'], /^swc: --suggest: prints its ranking as table, markdown or --json, not csv/],
    [['--baseline', fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url))], /^swc: --suggest\/--baseline: /],
  ] as [string[], RegExp][])('%j', async (args, message) => {
    const run = await runInProcess(['bench', '--suggest', '--redis-url', NOWHERE, ...args]);
    expect(run.code, args.join(' ')).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });
});
