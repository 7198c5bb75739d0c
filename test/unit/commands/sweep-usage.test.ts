import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';

// A stand-in for redis-server that records every start (and starts nothing:
// this lane has none). The same program and error path as the CLI, in-process;
// test/cli/bench-sweep.test.ts keeps one spawn.
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-sweep-usage-'));
const starts = path.join(dir, 'starts');
const recorder = path.join(dir, 'redis-server');
writeFileSync(recorder, `#!/bin/sh\necho "$$" >> '${starts}'\nexit 1\n`);
chmodSync(recorder, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { SWC_REDIS_SERVER: recorder };
const serversStarted = (): number => {
  try {
    return readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe('swc bench --sweep: refused input (exit 2, one line, nothing started)', () => {
  it.each([
    [
      ['--sweep', 'maxmemory=1mb'],
      /^swc: --sweep: maxmemory is not a listpack, ziplist or intset setting; accepted: hash-max-listpack-entries, .*list-max-ziplist-size$/,
    ],
    [['--sweep', 'hash-max-listpack-value'], /^swc: --sweep: expected <setting>=<v1>,<v2>,…/],
    [['--sweep', 'hash-max-listpack-value=64,abc'], /^swc: --sweep: hash-max-listpack-value takes whole numbers from 0 to 1,000,000, got "abc"$/],
    [['--sweep', 'hash-max-listpack-value=1.5'], /^swc: --sweep: hash-max-listpack-value takes whole numbers/],
    [['--sweep', 'zset-max-listpack-entries=-1'], /^swc: --sweep: zset-max-listpack-entries takes whole numbers from 0/],
    [['--sweep', 'list-max-listpack-size=-6'], /^swc: --sweep: list-max-listpack-size takes whole numbers from -5 to -1/],
    [['--sweep', 'hash-max-listpack-value=64,'], /^swc: --sweep: hash-max-listpack-value: expected a comma-separated list/],
    [['--sweep', 'hash-max-listpack-value=1,2,3,4,5', '--sweep', 'zset-max-listpack-value=1,2,3,4'], /^swc: --sweep: 5 × 4 = 20 combinations; at most 16/],
    [['--sweep', 'hash-max-listpack-value=64', '--sweep', 'hash-max-ziplist-value=128'], /^swc: --sweep: hash-max-ziplist-value is swept twice/],
    [
      ['--sweep', 'hash-max-listpack-value=64', '--redis-server-arg', 'hash-max-listpack-value=128'],
      /^swc: --sweep\/--redis-server-arg: both set hash-max-listpack-value/,
    ],
    [
      ['--sweep', 'hash-max-listpack-value=64', '--redis-url', 'redis://127.0.0.1:6379'],
      /^swc: --sweep\/--redis-url: .*swc never changes the settings of a server it did not start/,
    ],
    [['--sweep', 'hash-max-listpack-value=64', '--baseline', 'x.json'], /^swc: --sweep\/--baseline: /],
  ])('%j', async (args, message) => {
    const result = await runInProcess(['bench', '--window', '10', '--rate', '1', '--no-throughput', ...args], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(serversStarted()).toBe(0);
  });

  it('with REDIS_URL set and SWC_USE_REDIS_URL=1: refused, naming it (the sweep never uses a server it did not start)', async () => {
    const result = await runInProcess(['bench', '--window', '10', '--rate', '1', '--no-throughput', '--sweep', 'hash-max-listpack-value=64'], {
      ...env,
      REDIS_URL: 'redis://127.0.0.1:1',
      SWC_USE_REDIS_URL: '1',
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^swc: --sweep: REDIS_URL is set/);
    expect(serversStarted()).toBe(0);
  });
});
