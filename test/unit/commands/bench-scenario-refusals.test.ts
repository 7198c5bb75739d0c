import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// A bad --scenario file is refused while the options are read, before anything
// connects: the same program and exit path as the CLI, in-process.
// test/cli/bench-scenario.test.ts keeps one spawned refusal (malformed JSON).
const dir = mkdtempSync(join(tmpdir(), 'swc-scenario-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nothing listens here: a command that connected would fail (exit 3), not 2. */
const NOWHERE = 'redis://127.0.0.1:1';

describe('swc bench --scenario: a bad file (exit 2, one line naming the file and the field)', () => {
  it.each([
    ['a rate out of range', { rates: [1, -5] }, /rates\[1\]: must be more than 0 to 100000, got -5/],
    ['a bad window', { windows: ['5x'] }, /windows\[0\]: unit "x" is not one swc reads: use ms, s, m, h or d joined to the number \(5s, 5m, 5h\), got "5x"/],
    ['a string where a number belongs', { lights: '8' }, /lights: expected a number, got "8"/],
    ['fractional lights', { lights: 1.5 }, /lights: expected a whole number from 1 to 10000, got "1.5"/],
    [
      'an unknown layout',
      { layouts: ['stoplight-v7'] },
      /layouts\[0\]: expected one of stoplight-v5, stoplight-v6, sliding-log, ring, packed, coarse, two-window or a manifest file \(\*\.json\), got "stoplight-v7"/,
    ],
    ['an unknown field', { rate: [1] }, /rate: unknown field \(known: description, layouts, windows/],
    ['bad throughput settings', { throughput: { connections: 0, pipeline: 1 } }, /throughput\.connections: must be 1 to 1000, got 0/],
    ['an unknown preset', { preset: 'vlog' }, /preset: expected one of blog, got "vlog"/],
    ['accuracy not a boolean', { accuracy: 'yes' }, /accuracy: expected true or false, got "yes"/],
    ['a threshold out of range', { threshold: 1.5 }, /threshold: must be 0 to 1, got 1\.5/],
    ['an array instead of an object', [1], /expected a scenario object/],
    ['malformed JSON', '{"rates": [1,]}', /not valid JSON/],
  ])('%s', async (name, content, message) => {
    const file = join(dir, `${name.replace(/ /g, '-')}.json`);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    const result = await runInProcess(['bench', '--redis-url', NOWHERE, '--scenario', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`swc: ${file}: `);
    expect(result.stderr).toMatch(message);
  });
});
