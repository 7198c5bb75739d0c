import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type InProcessResult } from '../in-process.js';

/** The password under test: it must appear in no output of any case. */
const PASSWORD = 'Pw4Leak9Check';

/** The commands that take a Redis URL; each must refuse a malformed one before connecting. */
const COMMANDS: string[][] = [
  ['doctor'],
  ['bench', '--rate', '1', '--window', '10', '--no-throughput', '--no-progress'],
  ['inspect', 'no-such-light'],
  ['lights'],
];

function expectNoSecret(result: InProcessResult, label: string): void {
  const all = result.stdout + result.stderr;
  expect(all, label).not.toContain(PASSWORD);
  expect(all, label).not.toContain(encodeURIComponent(PASSWORD));
  // Whatever went wrong, stderr is swc's own one-line messages, never a stack trace.
  for (const line of result.stderr.split('\n').filter(Boolean)) expect(line, label).toMatch(/^swc[: ]/);
}

// A malformed URL is refused before anything connects: every form is checked
// here only, in-process, through the same program and error path as the CLI's.
describe('a malformed Redis URL with a password: exit 2 from every command, the password never printed', () => {
  it.each([
    ['no colon after the scheme', `redis//:${PASSWORD}@127.0.0.1:6379`],
    ['a port out of range', `redis://:${PASSWORD}@127.0.0.1:99999`],
    ['a database that is not a number', `redis://:${PASSWORD}@127.0.0.1:6379/abc`],
    ['an unsupported scheme', `http://user:${PASSWORD}@127.0.0.1:6379`],
    ['a slash in the password', `redis://:ab/${PASSWORD}@127.0.0.1:6379`],
    ['user-info without a host', `redis://:${PASSWORD}@`],
    ['?password= with a bad port', `redis://127.0.0.1:99999?password=${PASSWORD}`],
  ])('%s, from --redis-url and from REDIS_URL', async (_, url) => {
    for (const command of COMMANDS) {
      for (const [how, args, env] of [
        ['--redis-url', [...command, '--redis-url', url], {}],
        ['REDIS_URL', command, { REDIS_URL: url, SWC_USE_REDIS_URL: '1' }],
      ] as const) {
        const result = await runInProcess(args, env);
        const label = `${command[0]} via ${how}: ${result.stderr}`;
        expect(result.code, label).toBe(2);
        expect(result.stderr, label).toMatch(/^swc: /);
        expectNoSecret(result, label);
      }
    }
  });
});

describe('compare does not show a URL that a result file carries in its options', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('in its table and in its JSON', async () => {
    const small = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
    const baseline = JSON.parse(readFileSync(small, 'utf8')) as Record<string, unknown>;
    const withUrl = { ...baseline, options: { ...(baseline.options as object), redisUrl: `redis://:${PASSWORD}@10.0.0.1:6379`, seed: 99 } };
    const file = path.join(dir, 'with-url.json');
    writeFileSync(file, JSON.stringify(withUrl));
    for (const args of [
      ['compare', file, file],
      ['compare', small, file, '--json'],
    ]) {
      const result = await runInProcess(args);
      expect([0, 1], result.stderr).toContain(result.code);
      expect(result.stdout.length, args.join(' ')).toBeGreaterThan(0);
      expectNoSecret(result, args.join(' '));
    }
  });
});
