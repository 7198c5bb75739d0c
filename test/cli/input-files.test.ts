import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectRefusedFile } from '../usage-errors.js';
import { redisUrl } from '../helpers.js';
import { runCli, type CliResult } from './run-cli.js';

const SMALL = fileURLToPath(new URL('../../fixtures/scenarios/small.json', import.meta.url));
const BASELINE = fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (name: string): string => path.join(dir, name);

/** A FIFO nobody writes to: opening it for reading would wait forever. */
const fifo = (() => {
  const file = at('scenario.fifo');
  execFileSync('mkfifo', [file]);
  return file;
})();

const zeroLink = (() => {
  const file = at('zero-link.json');
  symlinkSync('/dev/zero', file);
  return file;
})();

/** Every place swc reads a user's file, with `file` in that place. */
const PLACES: [string, (file: string) => string[]][] = [
  ['a scenario', (file) => ['bench', '--redis-url', redisUrl(), '--scenario', file]],
  ['a baseline', (file) => ['bench', '--redis-url', redisUrl(), '--scenario', SMALL, '--baseline', file]],
  ["compare's baseline", (file) => ['compare', file, BASELINE]],
  ["compare's current result", (file) => ['compare', BASELINE, file]],
];

function expectRefused(result: CliResult, file: string, problem: RegExp, place: string): void {
  expect(result.signal, `${place}: killed by the test timeout, so the read blocked`).toBeNull();
  expectRefusedFile(result, file, problem, place);
}

describe('input files: only regular UTF-8 files under the size cap are read; anything else exits 2 naming the file', () => {
  it.each([
    ['a FIFO nobody writes to (would block forever)', fifo, /FIFO \(named pipe\), not a regular file/],
    ['/dev/zero (would grow without end)', '/dev/zero', /character device, not a regular file/],
    ['a symlink to /dev/zero', zeroLink, /character device, not a regular file/],
  ])('%s', async (_, file, problem) => {
    // A read that blocked or grew without end would hang the test process
    // itself: these stay spawns, killed after 60 s. The places run at once.
    const results = await Promise.all(PLACES.map(([, args]) => runCli(args(file), {}, 60_000)));
    results.forEach((result, i) => expectRefused(result, file, problem, PLACES[i]?.[0] ?? ''));
  });

  // A directory, a file over the size cap, UTF-16 text and bytes that are not
  // UTF-8 are refused in every place too: in-process, same assertions, in
  // test/unit/commands/input-files.test.ts. That a UTF-8 byte-order mark is
  // accepted runs in-process in test/integration/commands/input-files.test.ts.
});
