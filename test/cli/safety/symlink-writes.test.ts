/** No file write of swc follows a symbolic link: the file a link points to is never changed. */
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSafely } from '../../../src/safety/write-file.js';
import { redisUrl } from '../../helpers.js';
import { runCli } from '../run-cli.js';

const BASELINE = fileURLToPath(new URL('../../../fixtures/baselines/small.json', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-symlink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A victim file with known text, and a link to it named `name`. */
function linkToVictim(name: string): { link: string; victim: string; text: string } {
  const victim = path.join(dir, `victim-of-${name}`);
  const text = `victim ${name}\n`;
  writeFileSync(victim, text);
  const link = path.join(dir, name);
  symlinkSync(victim, link);
  return { link, victim, text };
}

describe('a path that is a symlink to a victim file', () => {
  const bench = ['bench', '--rate', '1', '--window', '60', '--lights', '1', '--no-throughput', '--no-progress', '--redis-url', redisUrl()];
  it.each([
    ['swc chart --out', (link: string) => ['chart', BASELINE, '--out', link], 'out.svg', '--out'],
    ['swc bench --chart-out', (link: string) => [...bench, '--chart-out', link], 'chart.svg', '--chart-out'],
    ['swc bench --output', (link: string) => [...bench, '--output', link], 'result.json', '--output'],
  ])('%s: exit 2 before any work, the victim unchanged, the link still a link', async (_label, args, name, flag) => {
    const { link, victim, text } = linkToVictim(name);
    const result = await runCli(args(link));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${link}: a symbolic link: ${flag} never writes through a link`);
    expect(result.stderr).not.toMatch(/swc bench: run /);
    expect(readFileSync(victim, 'utf8')).toBe(text);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('writeFileSafely', () => {
  it('writes a new file whole and replaces an existing regular file by rename, leaving no temporary file', () => {
    const file = path.join(dir, 'plain.json');
    writeFileSafely('--output', file, 'one');
    writeFileSafely('--output', file, 'two');
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a link made after the flags were checked (at write time), victim unchanged', () => {
    const { link, victim, text } = linkToVictim('late.json');
    expect(() => writeFileSafely('--output', link, 'overwritten')).toThrow(/a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe(text);
  });
});
