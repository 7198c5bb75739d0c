/** Strings from a baseline or result file never reach the terminal raw: compare (every format) and bench --baseline. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { shown } from '../../../src/safety/text.js';
import { at, type ReportJson } from '../../documents.js';
import { redisUrl } from '../../helpers.js';
import { runCli } from '../run-cli.js';

const SMALL = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-escape-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An OSC title change, a screen clear and a bell: what a hostile file would slip to a terminal. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\r';

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;

function hostileCopy(name: string, edit: (r: ReportJson) => void): string {
  const report = JSON.parse(readFileSync(SMALL, 'utf8')) as ReportJson;
  edit(report);
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(report));
  return file;
}

describe('shown()', () => {
  it('escapes control characters and cuts an over-long value naming its byte count', () => {
    expect(shown(`a${HOSTILE}b`)).toBe('a\\x1b]0;pwned\\x07\\x1b[2J\\x0db');
    const long = 'x'.repeat(8 * 1024 * 1024);
    const cut = shown(long);
    expect(cut.length).toBeLessThan(300);
    expect(cut).toMatch(/… \(8,388,608 bytes\)$/);
  });
});

describe('hostile strings in compared files', () => {
  const edit = (r: ReportJson): void => {
    r.redis.version = `7.0.15${HOSTILE}`;
    r.swcVersion = `0.1.0${HOSTILE}`;
    r.options.scenario = `${HOSTILE}${'s'.repeat(8 * 1024 * 1024 - 100)}`;
    at(r.results, 0).layout = `evil${HOSTILE}`;
  };
  const baseline = hostileCopy('baseline.json', edit);
  const current = hostileCopy('current.json', (r) => {
    edit(r);
    at(r.results, 0).memory.bytesPerLight *= 2;
  });
  // Another build: compare refuses it (exit 2) in one line that names both builds, escaped too.
  const otherBuild = hostileCopy('other-build.json', (r) => {
    edit(r);
    r.redis.version = `7.2.0${HOSTILE}`;
  });

  it('compare of two builds: the refusal names them escaped', async () => {
    const result = await runCli(['compare', baseline, otherBuild]);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain('7.2.0\\x1b]0;pwned\\x07');
  });

  it.each(['table', 'markdown', 'github'])('compare --format %s: no raw control character on stdout or stderr, values cut', async (format) => {
    const result = await runCli(['compare', baseline, current, '--format', format]);
    expect([0, 1]).toContain(result.code);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout + result.stderr).toContain('\\x1b]0;pwned\\x07');
    expect(result.stdout.length + result.stderr.length).toBeLessThan(200_000);
  });

  it('swc chart (terminal): labels escaped', async () => {
    const result = await runCli(['chart', baseline, current]);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
  });

  it('compare --json keeps the exact strings', async () => {
    const result = await runCli(['compare', baseline, current, '--json']);
    expect(result.stdout).toContain('\\u001b]0;pwned\\u0007');
  });

  it('bench --baseline with a hostile baseline: no raw control character', async () => {
    const result = await runCli(
      [
        'bench',
        '--layout',
        'stoplight-v5',
        '--rate',
        '1',
        '--window',
        '30',
        '--lights',
        '1',
        '--no-throughput',
        '--no-progress',
        '--no-accuracy',
        '--baseline',
        baseline,
        '--redis-url',
        redisUrl(),
      ],
      {},
      60_000,
    );
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout + result.stderr).toMatch(/\\x1b/);
  });
});
