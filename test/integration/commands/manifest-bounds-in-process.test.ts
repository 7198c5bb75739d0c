/**
 * Manifests cannot name keys outside swc's namespace, and includes and
 * operation scripts stay inside the scripts folder: every such refusal
 * through the same program and error path as the CLI, in-process (exit 2, one
 * line naming the file and the field, nothing sent: the URL is unreachable, so
 * a connection attempt would be exit 3). The spawned CLI keeps one case of
 * bench and verify, and the include bomb, in test/cli/safety/manifest-bounds.test.ts.
 * In this lane, not the unit lane: loading a manifest registers its layout for
 * the rest of the process.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { at, manifestVariant, type ManifestJson } from '../../documents.js';
import { runInProcess } from '../../unit/in-process.js';

const EXAMPLE = fileURLToPath(new URL('../../../fixtures/manifests/example/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'swc-manifest-bounds-ip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the example manifest (and its scripts) in a folder of its own, with one change and a name of its own (see manifestVariant). */
const variant = (name: string, edit: (m: ManifestJson) => void, scripts: Record<string, string> = {}): string =>
  manifestVariant(dir, name, edit, scripts, { rename: true });

const UNREACHABLE = ['--redis-url', 'redis://127.0.0.1:1'];

describe('key templates and operation keys stay inside {prefix}', () => {
  it.each([
    [
      'a key template without {prefix}',
      (m: ManifestJson) => (at(m.keys, 0).template = 'app:{{name}}:successes'),
      /keys\[0\]\.template: must start with "\{prefix\}"/,
    ],
    [
      '{prefix} not at the start',
      (m: ManifestJson) => (at(m.keys, 2).template = 'app:{prefix}:{{name}}:meta'),
      /keys\[2\]\.template: must start with "\{prefix\}"/,
    ],
    [
      'an operation key that is a literal user key',
      (m: ManifestJson) => (m.operations.recordSuccess.keys[1] = 'app:user:1'),
      /operations\.recordSuccess\.keys\[1\]: not one of the declared keys/,
    ],
    [
      'an operation key given as a number',
      (m: ManifestJson) => (m.operations.getMetrics.keys[2] = 7),
      /operations\.getMetrics\.keys\[2\]: a literal key name is not allowed/,
    ],
    [
      'an operation key under {prefix} but not declared',
      (m: ManifestJson) => (m.operations.recordFailure.keys[0] = '{prefix}:{{name}}:other'),
      /operations\.recordFailure\.keys\[0\]: not one of the declared keys/,
    ],
  ])('%s: bench and verify exit 2 naming the file and field, nothing sent', async (label, edit, message) => {
    const file = variant(label.replace(/\W+/g, '-'), edit);
    for (const verb of ['bench', 'verify']) {
      const result = await runInProcess([verb, '--layout', file, ...UNREACHABLE]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(file);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('-- @include and operation scripts stay inside the scripts folder', () => {
  it('an include that climbs out of the folder (..) is exit 2, not read', async () => {
    // swc's convention takes any path; Stoplight's takes letters, digits, "-" and "/" (an absolute path).
    for (const [includes, line, shown] of [
      ['swc', '--include ../../../../../../../etc/passwd', /read\.lua:1: "--include \.\.\/.*passwd": .*outside the scripts folder/],
      ['stoplight', '-- @include /etc/passwd', /read\.lua:1: "-- @include \/etc\/passwd": .*outside the scripts folder/],
    ] as const) {
      const file = variant(`traversal-${includes}`, (m) => (m.includes = includes), {
        'read.lua': `${line}\n${readFileSync(path.join(EXAMPLE, 'read.lua'), 'utf8')}`,
      });
      const result = await runInProcess(['bench', '--layout', file, ...UNREACHABLE]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(shown);
    }
  });

  it('an include through a symlink to a file outside the folder is exit 2', async () => {
    const secret = path.join(dir, 'secret.lua');
    writeFileSync(secret, 'return 1\n');
    const file = variant('symlinked', (m) => (m.includes = 'stoplight'), {
      'read.lua': `-- @include lib/leak\n${readFileSync(path.join(EXAMPLE, 'read.lua'), 'utf8')}`,
    });
    mkdirSync(path.join(path.dirname(file), 'lib'));
    symlinkSync(secret, path.join(path.dirname(file), 'lib', 'leak.lua'));
    const result = await runInProcess(['bench', '--layout', file, ...UNREACHABLE]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/outside the scripts folder/);
  });

  it('an operation script outside the folder is exit 2', async () => {
    writeFileSync(path.join(dir, 'elsewhere.lua'), 'return 1\n');
    const file = variant('script-outside', (m) => (m.operations.getMetrics.script = '../elsewhere.lua'));
    const result = await runInProcess(['bench', '--layout', file, ...UNREACHABLE]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/operations\.getMetrics\.script: .*outside the scripts folder/);
  });
});
