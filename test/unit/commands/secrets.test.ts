import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../in-process.js';
import { everyCommand, expectNoSecret, PASSWORD } from '../secrets-cases.js';

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
    await everyCommand(url, 2, (result, label) => expect(result.stderr, label).toMatch(/^swc: /));
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
