/**
 * Bad manifests and bad --scripts folders, through the same program and
 * error path as the CLI but in-process: exit 2 with one line naming the file
 * and the field, before anything is sent (the URL is unreachable: a
 * connection attempt would be exit 3). The spawned CLI keeps one such case in
 * test/cli/manifest.test.ts. In this lane, not the unit lane: loading a
 * manifest registers its layout for the rest of the process, and the unit lane
 * shares one module cache across files.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { editedJson } from '../../helpers.js';
import { stoplight6Tree, V6_STORAGE } from '../layouts/stoplight-tree.js';
import { runInProcess } from '../../unit/in-process.js';

const MANIFESTS = fileURLToPath(new URL('../../../fixtures/manifests/', import.meta.url));
const UNREACHABLE = ['--redis-url', 'redis://127.0.0.1:1'];

const outside = mkdtempSync(path.join(tmpdir(), 'swc-own-layout-'));
const own = path.join(outside, 'my-log.json');
cpSync(path.join(MANIFESTS, 'example'), outside, { recursive: true });
const v6Tree = stoplight6Tree('time');
afterAll(() => {
  for (const dir of [outside, v6Tree]) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the example manifest with one change. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test edits parsed JSON at any depth
const variant = (name: string, edit: (m: Record<string, any>) => void): string => editedJson(own, path.join(outside, name), edit);

function expectOneLine(stderr: string): void {
  expect(stderr).toMatch(/^swc: /);
  expect(stderr.trim().split('\n')).toHaveLength(1);
}

describe('--layout <manifest>: bad manifests (exit 2, one line naming the file and the field, nothing sent)', () => {
  const unknownPlaceholder = variant('typo.json', (m) => (m.operations.recordFailure.args[3] = '{errJson}'));
  const missingScript = variant('missing-script.json', (m) => (m.operations.getMetrics.script = 'reed.lua'));
  const unknownField = variant('unknown-field.json', (m) => (m.clocks = 'argv'));

  it.each([
    ['bench', unknownPlaceholder, /typo\.json: operations\.recordFailure\.args\[3\]: unknown placeholder "\{errJson\}"/],
    ['inspect', unknownPlaceholder, /typo\.json: operations\.recordFailure\.args\[3\]: unknown placeholder "\{errJson\}"/],
    ['lights', unknownPlaceholder, /typo\.json: operations\.recordFailure\.args\[3\]: unknown placeholder/],
    ['bench', missingScript, /missing-script\.json: operations\.getMetrics\.script: .*reed\.lua: no such file/],
    ['bench', unknownField, /unknown-field\.json: clocks: unknown field \(known: manifestVersion/],
    ['bench', path.join(outside, 'absent.json'), /absent\.json: no such file/],
  ])('swc %s --layout %s', async (verb, file, message) => {
    const args = verb === 'inspect' ? ['inspect', 'x', '--layout', file] : [verb, '--layout', file];
    const result = await runInProcess([...args, ...UNREACHABLE]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expectOneLine(result.stderr);
  });

  it('in a scenario file (relative to the scenario), the manifest and its field are named', async () => {
    const scenario = path.join(outside, 'scenario.json');
    writeFileSync(scenario, JSON.stringify({ layouts: ['./typo.json'] }));
    const result = await runInProcess(['bench', '--scenario', scenario, ...UNREACHABLE]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^swc: .*typo\.json: operations\.recordFailure\.args\[3\]: unknown placeholder/);
    expectOneLine(result.stderr);
  });

  it("--scripts: a folder that is neither swc's lua/ nor a Stoplight tree, and a tree with a missing include", async () => {
    const neither = await runInProcess(['bench', '--scripts', outside, ...UNREACHABLE]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/^swc: --scripts: .*: neither a copy of swc's lua\/ folder/);
    const broken = mkdtempSync(path.join(tmpdir(), 'swc-broken-tree-'));
    try {
      cpSync(v6Tree, broken, { recursive: true });
      rmSync(path.join(broken, V6_STORAGE, 'now.lua'));
      const result = await runInProcess(['bench', '--scripts', broken, ...UNREACHABLE]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/record_success\.lua:1: "-- @include now": .*now\.lua: no such file/);
      expectOneLine(result.stderr);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('a copy of a shipped manifest without --scripts still fails naming its missing script', async () => {
    const copyDir = mkdtempSync(path.join(tmpdir(), 'swc-manifest-copy-'));
    try {
      const copy = path.join(copyDir, 'my-stoplight.json');
      const shipped = JSON.parse(readFileSync(path.join(MANIFESTS, 'stoplight/6.0-redis-time.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(copy, JSON.stringify({ ...shipped, name: 'my-stoplight-v6' }));
      const result = await runInProcess(['bench', '--layout', copy, ...UNREACHABLE, '--no-progress']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/record_success\.lua.*no such file|no such file.*record_success\.lua/);
    } finally {
      rmSync(copyDir, { recursive: true, force: true });
    }
  });
});
