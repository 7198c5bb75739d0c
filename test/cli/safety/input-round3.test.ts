/** Third round of bad input: each is exit 2 with one line naming the flag or field, before Redis is reached. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../run-cli.js';
import { at, type ReportJson } from '../../documents.js';
import { words } from '../../words.js';

const SMALL = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-input3-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function edited(name: string, edit: (r: ReportJson) => void, raw?: (text: string) => string): string {
  const report = JSON.parse(readFileSync(SMALL, 'utf8')) as ReportJson;
  edit(report);
  const file = path.join(dir, name);
  const text = JSON.stringify(report);
  writeFileSync(file, raw ? raw(text) : text);
  return file;
}

// Unreachable: exit 2 proves nothing was sent (a connection attempt would be exit 3).
const NOWHERE = ['--redis-url', 'redis://127.0.0.1:1'];

// Each refusal is its own process, before Redis: spawned at once. One per
// command; the other flag refusals (bench, a second of lights) run in-process
// in test/unit/commands/input-round3.test.ts.
describe.concurrent('bad input, third round', () => {
  it.each([
    ['verify --calls 0x10', ['verify', '--calls', '0x10', ...NOWHERE], /--calls: expected a whole number .* got "0x10"/],
    [
      'a database index past INT_MAX',
      ['lights', '--redis-url', 'redis://127.0.0.1:1/99999999999'],
      /--redis-url: database must be a whole number from 0 to 2147483647/,
    ],
  ])('%s', async (_label, args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a string seed in a compared result is exit 2 naming the field (it used to compare as "differs")', async () => {
    const result = await runCli(['compare', edited('seed.json', (r) => (r.options.seed = 'abc')), SMALL]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/seed\.json: options\.seed: expected a whole number/);
  });

  it('a hostile number (1e999) in a chart input is exit 2', async () => {
    const file = edited(
      'inf.json',
      (r) => (at(r.results, 0).memory.bytesPerLight = 123456789),
      (t) => t.replace('123456789', '1e999'),
    );
    const result = await runCli(['chart', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/inf\.json: results\[0\]\.memory\.bytesPerLight: expected a number above 0/);
  });
});

describe('a private-server password with a space', () => {
  it('works, and is never printed', async () => {
    const secret = 'Sp4ce pass';
    const ok = await runCli([
      'bench',
      '--redis-server-arg',
      `requirepass=${secret}`,
      ...words('--rate 1 --window 30 --no-throughput --no-accuracy --no-progress --json'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout + ok.stderr).not.toContain('Sp4ce');
    const bad = await runCli([
      'bench',
      '--redis-server-arg',
      `requirepass=${secret}`,
      ...words('--redis-server-arg maxmemory=abc --rate 1 --window 30 --no-throughput'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain('Sp4ce');
  });
});
