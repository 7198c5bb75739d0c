import { spawn, execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, lstatSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/measure/types.js';
import { connect } from '../../src/redis/connect.js';
import { startPrivateServer } from '../../src/redis/server.js';
import { SWC_BIN, runCli } from './run-cli.js';
import { redisUrl } from '../helpers.js';

const BASELINE = fileURLToPath(new URL('../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The baseline with one cell 5% bigger: comparing against it is a finding (exit 1). */
const grown = (() => {
  const report = JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchReport;
  const file = path.join(dir, 'grown.json');
  const results = report.results.map((r, i) => (i === 0 ? { ...r, memory: { ...r.memory, bytesPerLight: r.memory.bytesPerLight * 1.05 } } : r));
  writeFileSync(file, JSON.stringify({ ...report, results }));
  return file;
})();

interface Outcome {
  code: number | null;
  stderr: string;
}

/** Runs swc with stdout on /dev/full (every write fails with ENOSPC), or on a pipe whose reader is gone (EPIPE). */
function runWithBrokenStdout(args: string[], how: 'full' | 'closed'): Promise<Outcome> {
  const full = how === 'full' ? openSync('/dev/full', 'w') : undefined;
  const child = spawn(process.execPath, [SWC_BIN, ...args], {
    env: { ...process.env, REDIS_URL: '', NO_COLOR: '1' },
    stdio: ['ignore', full ?? 'pipe', 'pipe'],
  });
  if (full !== undefined) closeSync(full);
  child.stdout?.destroy();
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

function expectCleanLines(outcome: Outcome): string[] {
  const lines = outcome.stderr.trimEnd().split('\n').filter(Boolean);
  for (const line of lines) expect(line).toMatch(/^swc[: ]/);
  expect(outcome.stderr).not.toMatch(/\n\s+at |Error:/);
  return lines;
}

const ENOSPC_LINE = 'swc: cannot write the output to stdout: no space left on device (ENOSPC)';

describe('stdout that cannot be written', () => {
  it.each([
    ['--help', ['--help']],
    ['--version', ['--version']],
    ['bench --help', ['bench', '--help']],
    ['compare of equal results (would exit 0)', ['compare', BASELINE, BASELINE]],
    ['compare with a regression (would exit 1)', ['compare', BASELINE, grown, '--json']],
  ])('on a full disk: %s exits 3 with one line saying the output was lost', async (_, args) => {
    const outcome = await runWithBrokenStdout(args, 'full');
    expect(outcome.code).toBe(3);
    expect(expectCleanLines(outcome)).toEqual([ENOSPC_LINE]);
  });

  it('on a full disk: a bench still deletes its keys, then exits 3', async () => {
    // A server of its own, so no other test's keys are counted.
    const server = await startPrivateServer();
    const redis = await connect(server.url);
    try {
      const outcome = await runWithBrokenStdout(
        ['bench', '--redis-url', server.url, '--rate', '1', '--window', '10', '--no-throughput', '--no-progress'],
        'full',
      );
      expect(outcome.code).toBe(3);
      expect(expectCleanLines(outcome).at(-1)).toBe(ENOSPC_LINE);
      expect(await redis.keys('swc-bench:*')).toEqual([]);
      expect(await redis.dbsize()).toBe(0);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  it('on a full disk: a usage error keeps its exit 2 and its one line (nothing was written to stdout)', async () => {
    const outcome = await runWithBrokenStdout(['bench', '--rate', '0'], 'full');
    expect(outcome.code).toBe(2);
    expect(expectCleanLines(outcome)).toEqual(['swc: --rate: must be more than 0 to 100000, got 0']);
  });

  it.each([
    ['equal results', [BASELINE, BASELINE], 0],
    ['a regression', [BASELINE, grown], 1],
  ])('reader gone (EPIPE): compare of %s keeps its own exit code, no message', async (_, files, code) => {
    const outcome = await runWithBrokenStdout(['compare', ...files, '--json'], 'closed');
    expect(outcome.code).toBe(code);
    expect(expectCleanLines(outcome)).toEqual([]);
  });
});

describe('output paths that are not regular files', () => {
  const fifo = path.join(dir, 'out.fifo.svg');
  execFileSync('mkfifo', [fifo]);
  // A link to a device stands in for /dev/full: were it replaced, only the link would be lost.
  const device = path.join(dir, 'device.json');
  symlinkSync('/dev/null', device);
  const bench = ['bench', '--rate', '1', '--window', '60', '--lights', '1', '--no-throughput', '--redis-url', redisUrl()];

  it.each([
    ['bench --output to a FIFO', [...bench, '--output', fifo], /a FIFO \(named pipe\): --output writes only to a regular file/],
    ['bench --output to a device (used to be renamed over)', [...bench, '--output', device], /a character device: --output writes only to a regular file/],
    ['bench --chart-out to a FIFO (used to block past SIGINT)', [...bench, '--chart-out', fifo], /--chart-out writes only to a regular file/],
  ])('%s: exit 2 before connecting, the path left as it was', async (_name, args, message) => {
    const result = await runCli(args, {}, 60_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/swc bench: run /);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(device).isSymbolicLink()).toBe(true);
  });
});
