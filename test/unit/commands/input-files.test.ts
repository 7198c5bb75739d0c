/**
 * Input files swc refuses to read, in every place it reads one, through the
 * same program and error path as the CLI, in-process. What could block or
 * grow without end (a FIFO, /dev/zero, a symlink to it) stays a spawn in
 * test/cli/input-files.test.ts, killed after a bound.
 */
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { expectRefusedFile } from '../../usage-errors.js';
import { MAX_INPUT_BYTES } from '../../../src/core/json-file.js';
import { runInProcess } from '../in-process.js';

const SMALL = fileURLToPath(new URL('../../../fixtures/scenarios/small.json', import.meta.url));
const BASELINE = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
// Unreachable: a file that got past the check would end in exit 3, not 2.
const URL_ = 'redis://127.0.0.1:1';
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => path.join(dir, name);

/** A sparse regular file one byte over the cap: checked by size, never read. */
const huge = (() => {
  const file = at('huge.json');
  const fd = openSync(file, 'w');
  ftruncateSync(fd, MAX_INPUT_BYTES + 1);
  closeSync(fd);
  return file;
})();
const folder = at('a-folder.json');
mkdirSync(folder);
const utf16 = at('utf16.json');
writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"rates": [1]}', 'utf16le')]));
const binary = at('binary.json');
writeFileSync(binary, Buffer.from([0x7b, 0xc3, 0x28, 0x7d]));

/** Every place swc reads a user's file, with `file` in that place. */
const PLACES: [string, (file: string) => string[]][] = [
  ['a scenario', (file) => ['bench', '--redis-url', URL_, '--scenario', file]],
  ['a baseline', (file) => ['bench', '--redis-url', URL_, '--scenario', SMALL, '--baseline', file]],
  ["compare's baseline", (file) => ['compare', file, BASELINE]],
  ["compare's current result", (file) => ['compare', BASELINE, file]],
];

describe('input files: only regular UTF-8 files under the size cap are read; anything else exits 2 naming the file', () => {
  it.each([
    ['a directory', folder, /a directory, not a regular file/],
    ['a file over the size cap', huge, /too large: 16\.0 MiB, at most 16 MiB/],
    ['UTF-16 text', utf16, /UTF-16 .*save it as UTF-8/],
    ['bytes that are not UTF-8', binary, /not UTF-8 text/],
  ])('%s', async (_, file, problem) => {
    for (const [place, args] of PLACES) expectRefusedFile(await runInProcess(args(file)), file, problem, place);
  });
});
