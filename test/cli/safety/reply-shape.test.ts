/**
 * A manifest's read script that answers in another shape than its `reply`
 * reads (#29): `'hello'`, or `{1,2}` where a hash is expected, used to read
 * as an empty window (bench exit 0, no finding). Now it is the script's
 * contract broken: exit 2, naming the script, what it returned and what the
 * manifest expects, in bench and in verify.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptContractError } from '../../../src/core/errors.js';
import { loadManifestLayout } from '../../../src/layouts/manifest.js';
import { runCli } from '../run-cli.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-reply-shape-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The example manifest in a folder of its own, its read.lua returning `value`. */
function readReturning(name: string, value: string): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE, folder, { recursive: true });
  const file = path.join(folder, 'read.lua');
  const source = readFileSync(file, 'utf8');
  writeFileSync(file, `${source.slice(0, source.lastIndexOf('\nreturn {'))}\nreturn ${value}\n`);
  return path.join(folder, 'my-log.json');
}

const EXPECTS = "the manifest's reply expects an array (0 successes, 1 failures; 2: a hash as a flat array of fields and values)";

describe('a reply of the wrong shape is read by no one', () => {
  const layout = loadManifestLayout(path.join(EXAMPLE, 'my-log.json'));
  it.each([
    ['a string', 'hello', `returned "hello" where ${EXPECTS}`],
    ['no hash', [1, 2], `returned [1,2]: index 2 (the hash) is missing; ${EXPECTS}`],
    ['a count that is not a number', ['x', 2, []], `returned ["x",2,[]]: index 0 (successes) is "x", not a number; ${EXPECTS}`],
    ['a hash that is not an array', [1, 2, 'h'], `returned [1,2,"h"]: index 2 (the hash) is "h"; ${EXPECTS}`],
  ])('%s: a ScriptContractError (exit 2) naming the script', (_label, reply, message) => {
    expect(() => layout.parseMetrics(reply)).toThrow(ScriptContractError);
    expect(() => layout.parseMetrics(reply)).toThrow(`read.lua (getMetrics of manifest layout my-log): ${message}`);
  });

  it('a reply of the right shape still reads, an empty hash and numeric strings included', () => {
    expect(layout.parseMetrics([3, '4', []])).toMatchObject({ successes: 3, failures: 4, lastSuccessAt: null });
  });
});

describe.concurrent('bench and verify stop on it', () => {
  it("bench: 'hello' from the read is exit 2 with the script and what it returned", async () => {
    const manifest = readReturning('hello', "'hello'");
    const run = await runCli([
      'bench',
      '--layout',
      manifest,
      '--window',
      '10',
      '--rate',
      '2',
      '--lights',
      '1',
      '--no-throughput',
      '--no-commands',
      '--no-progress',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`read.lua (getMetrics of manifest layout my-log): returned "hello" where ${EXPECTS}`);
    expect(run.stderr).toContain('correct the script (or the manifest)');
  });

  it('verify: {1,2} from the read is exit 2 in one line after the seed, not a finding', async () => {
    const manifest = readReturning('pair', '{1,2}');
    const run = await runCli(['verify', '--layout', manifest, '--calls', '200', '--no-progress']);
    expect(run.code, run.stderr).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^swc: .*read\.lua \(getMetrics of manifest layout my-log\): returned \[1,2\]: index 2 \(the hash\) is missing; /);
    expect(run.stdout).toBe('');
  });
});
