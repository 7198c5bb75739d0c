/**
 * Fourth round of bad input (#29), the chart flags: refused in one line with
 * exit 2 before Redis is reached, through the same program and error path as
 * the CLI, in-process. test/cli/safety/input-round4.test.ts keeps one spawned
 * refusal for chart and one for bench, and the --names cases, whose bound on
 * time is a process's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-input4-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => path.join(dir, name);

// Unreachable: exit 2 proves nothing was sent (a connection attempt would be exit 3).
const NOWHERE = ['--redis-url', 'redis://127.0.0.1:1'];

const RESULT = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));

describe('chart flags: exit 2 in one line, naming the flag (in-process)', () => {
  it.each([
    ['bench --chart-panels hero, (a trailing comma)', ['bench', '--chart', '--chart-panels', 'hero,', ...NOWHERE], /^swc: --chart-panels: an empty panel name/],
    [
      'bench --chart-out into a missing folder (was exit 3)',
      ['bench', '--chart-out', at('missing/x.svg'), ...NOWHERE],
      /^swc: --chart-out: folder .*missing does not exist/,
    ],
    ['chart --out into a missing folder', ['chart', RESULT, '--out', at('missing/x.svg')], /^swc: --out: folder .*missing does not exist/],
  ])('%s', async (_label, args, message) => {
    const result = await runInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a single panel and a list without empty names still work', async () => {
    const result = await runInProcess(['chart', RESULT, '--chart-panels', 'hero, window']);
    expect(result.code, result.stderr).toBe(0);
  });
});
