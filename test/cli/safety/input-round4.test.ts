/**
 * Fourth round of bad input (#29): input files that are not regular UTF-8
 * files under the bound, and flags refused in one line with exit 2 before
 * Redis is reached.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../../src/core/json-file.js';
import { runCli } from '../run-cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'swc-input4-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => path.join(dir, name);

// Unreachable: exit 2 proves nothing was sent (a connection attempt would be exit 3).
const NOWHERE = ['--redis-url', 'redis://127.0.0.1:1'];

const fifo = at('names.fifo');
execFileSync('mkfifo', [fifo]);
const utf16 = at('names-utf16.txt');
writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('checkout\npayments/charge\n', 'utf16le')]));
const utf16NoBom = at('names-utf16-nobom.txt');
writeFileSync(utf16NoBom, Buffer.from('checkout\npayments/charge\n', 'utf16le'));
const latin1 = at('names-latin1.txt');
writeFileSync(latin1, Buffer.from('caf\xe9\n', 'latin1'));
const huge = at('huge.txt');
{
  const fd = openSync(huge, 'w');
  ftruncateSync(fd, MAX_INPUT_BYTES + 1);
  closeSync(fd);
}
const hugeLink = at('huge-link.txt');
symlinkSync(huge, hugeLink);
const zeroLink = at('zero-link.txt');
symlinkSync('/dev/zero', zeroLink);

describe('--names reads only a regular UTF-8 file under the bound', () => {
  it.each([
    ['/dev/zero', '/dev/zero', /--names: \/dev\/zero: a character device, not a regular file/],
    ['a symlink to /dev/zero', zeroLink, /--names: .*zero-link\.txt: a character device, not a regular file/],
    ['a FIFO (never opened, so never waits)', fifo, /--names: .*names\.fifo: a FIFO \(named pipe\), not a regular file/],
    ['UTF-16 with a byte-order mark', utf16, /--names: .*names-utf16\.txt: UTF-16 text .* save it as UTF-8/],
    ['UTF-16 without a byte-order mark', utf16NoBom, /--names: .*names-utf16-nobom\.txt: not UTF-8 text: a NUL byte at offset 1/],
    ['Latin-1', latin1, /--names: .*names-latin1\.txt: not UTF-8 text/],
    ['a symlink to a file over the bound', hugeLink, /--names: .*huge-link\.txt: too large: 16\.0 MiB, at most 16 MiB/],
  ])('%s: exit 2 in one line, refused by what the file is, before Redis', async (_label, file, message) => {
    // The line names what the file is (a device, a FIFO, its size) from stat or its first bytes: swc never reads
    // /dev/zero to its end nor waits on the FIFO, or it would not exit by itself (runCli SIGKILLs a hang after
    // 60 s, code null: a guard against a hang, not a speed bound). How fast it refuses is `npm run bench:bounds`'s.
    const result = await runCli(['lights', '--names', file, ...NOWHERE], {}, 60_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

const RESULT = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));

// One refusal per command stays a spawn, so the exit of a process is still
// checked; the other chart-flag cases run in-process in
// test/unit/commands/input-round4.test.ts.
describe('chart flags: exit 2 in one line, naming the flag', () => {
  it.each([
    [
      'chart --chart-panels hero,,window (was accepted, exit 0)',
      ['chart', RESULT, '--chart-panels', 'hero,,window'],
      /^swc: --chart-panels: an empty panel name in "hero,,window"/,
    ],
    [
      'bench --chart-panels hero,,window (was exit 3)',
      ['bench', '--chart', '--chart-panels', 'hero,,window', ...NOWHERE],
      /^swc: --chart-panels: an empty panel name/,
    ],
  ])('%s', async (_label, args, message) => {
    const result = await runCli(args, {}, 60_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
