import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, ftruncateSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../src/core/json-file.js';
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

/** A sparse regular file one byte over the cap: checked by size, never read. */
const huge = (() => {
  const file = at('huge.json');
  const fd = openSync(file, 'w');
  ftruncateSync(fd, MAX_INPUT_BYTES + 1);
  closeSync(fd);
  return file;
})();

const folder = (() => {
  const file = at('a-folder.json');
  mkdirSync(file);
  return file;
})();

const zeroLink = (() => {
  const file = at('zero-link.json');
  symlinkSync('/dev/zero', file);
  return file;
})();

const utf16 = (() => {
  const file = at('utf16.json');
  writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"rates": [1]}', 'utf16le')]));
  return file;
})();

const binary = (() => {
  const file = at('binary.json');
  writeFileSync(file, Buffer.from([0x7b, 0xc3, 0x28, 0x7d]));
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
  expect(result.code, place).toBe(2);
  expect(result.stdout, place).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, place).toHaveLength(1);
  expect(lines[0], place).toContain(`swc: ${file}: `);
  expect(lines[0], place).toMatch(problem);
}

describe('input files: only regular UTF-8 files under the size cap are read; anything else exits 2 naming the file', () => {
  it.each([
    ['a FIFO nobody writes to (would block forever)', fifo, /FIFO \(named pipe\), not a regular file/],
    ['/dev/zero (would grow without end)', '/dev/zero', /character device, not a regular file/],
    ['a symlink to /dev/zero', zeroLink, /character device, not a regular file/],
    ['a directory', folder, /a directory, not a regular file/],
    ['a file over the size cap', huge, /too large: 16\.0 MiB, at most 16 MiB/],
    ['UTF-16 text', utf16, /UTF-16 .*save it as UTF-8/],
    ['bytes that are not UTF-8', binary, /not UTF-8 text/],
  ])('%s', async (_, file, problem) => {
    for (const [place, args] of PLACES) {
      const result = await runCli(args(file), {}, 20_000);
      expectRefused(result, file, problem, place);
    }
  });

  it('a UTF-8 byte-order mark is accepted in a scenario and in a result', async () => {
    const bomScenario = at('bom-scenario.json');
    writeFileSync(bomScenario, `\uFEFF${JSON.stringify({ windows: [10], rates: [1], throughput: false })}`);
    const bench = await runCli(['bench', '--redis-url', redisUrl(), '--scenario', bomScenario, '--json', '--no-progress']);
    // The only stderr line is the run's own (namespace and clean-up command): nothing about the file.
    expect(bench.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^swc bench: run swc-bench:[0-9a-f]{8}\b/)]);
    expect(bench.code).toBe(0);
    expect((JSON.parse(bench.stdout) as { options: { windows: number[] } }).options.windows).toEqual([10]);
    const bomResult = at('bom-result.json');
    writeFileSync(bomResult, `\uFEFF${readFileSync(BASELINE, 'utf8')}`);
    const compare = await runCli(['compare', bomResult, BASELINE]);
    expect(compare.stderr).toBe('');
    expect(compare.code).toBe(0);
  });
});
