import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// --rounds is refused while the options are read, before anything connects:
// the same program and exit path as the CLI, in-process.
// test/cli/bench-rounds.test.ts keeps one spawned refusal (--rounds 0).
const dir = mkdtempSync(path.join(tmpdir(), 'swc-rounds-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nothing listens here: a command that connected would fail (exit 3), not 2. */
const NOWHERE = 'redis://127.0.0.1:1';

describe('swc bench --rounds: refused before Redis (exit 2)', () => {
  it.each([
    [['--rounds', '0'], /^swc: .*--rounds: must be 1 to 100, got 0/m],
    [['--rounds', '2.5'], /^swc: .*--rounds: expected a whole number/m],
    [['--ops', '2', '--rounds', '3'], /^swc: --ops\/--rounds: 2 ops per phase cannot be split over 3 rounds/m],
    [['--no-throughput', '--rounds', '3'], /^swc: --no-throughput\/--rounds/m],
  ] as [string[], RegExp][])('%j', async (args, message) => {
    const result = await runInProcess(['bench', '--redis-url', NOWHERE, ...args]);
    expect(result.code, args.join(' ')).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('a scenario with throughput.rounds 0 names the file and the field', async () => {
    const file = path.join(dir, 'rounds.json');
    const scenario = { layouts: ['stoplight-v6'], windows: [60], rates: [10], throughput: { connections: 1, pipeline: 1, seconds: 0.2, rounds: 0 } };
    writeFileSync(file, JSON.stringify(scenario));
    const bad = await runInProcess(['bench', '--redis-url', NOWHERE, '--scenario', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/rounds\.json: throughput\.rounds: must be 1 to 100, got 0/);
  });
});
