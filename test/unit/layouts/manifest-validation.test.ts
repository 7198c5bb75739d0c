import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputFileError } from '../../../src/core/errors.js';
import { ManifestLayout, readManifest } from '../../../src/layouts/manifest.js';
import { LUA_DIR } from '../../../src/lua/source.js';
import { parseManifest } from '../../../src/layouts/manifest-zod.js';

const good = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/manifests/stoplight-v6.json', import.meta.url)), 'utf8')) as Record<
  string,
  unknown
>;

/** The v6 fixture with one change made by `edit` (a deep copy each time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test edits parsed JSON at any depth
function edited(edit: (m: Record<string, any>) => void): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  const copy = structuredClone(good) as Record<string, any>;
  edit(copy);
  return copy;
}

function problem(value: unknown): string {
  try {
    parseManifest('my.json', value);
  } catch (err) {
    expect(err).toBeInstanceOf(InputFileError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected the manifest to be refused');
}

describe('manifest validation: one line naming the file and the field', () => {
  it('accepts the fixtures', () => {
    expect(parseManifest('v6.json', good).name).toBe('stoplight-v6-manifest');
  });

  it.each([
    ['not an object', () => [], 'my.json: manifest: expected an object, got an array'],
    [
      'a missing version',
      () => edited((m) => delete m.manifestVersion),
      'my.json: manifestVersion: expected 1 (the manifest format this swc reads), got undefined',
    ],
    ['a newer version', () => edited((m) => (m.manifestVersion = 2)), 'my.json: manifestVersion: expected 1'],
    ['an unknown top-level field', () => edited((m) => (m.windowSemantic = 'closed')), 'my.json: windowSemantic: unknown field (known: manifestVersion, name,'],
    ['a bad name', () => edited((m) => (m.name = 'my layout')), 'my.json: name: expected letters, digits'],
    [
      'bad window semantics',
      () => edited((m) => (m.windowSemantics = 'open')),
      'my.json: windowSemantics: expected one of "closed", "half-open", "closed-exact", got "open"',
    ],
    ['an unknown clock', () => edited((m) => (m.clock = 'ntp')), 'my.json: clock: expected one of "argv", "argv-ms", "redis-time", got "ntp"'],
    [
      'an unknown include convention',
      () => edited((m) => (m.includes = 'require')),
      'my.json: includes: expected one of "swc", "stoplight", "none", got "require"',
    ],
    ['a capability missing', () => edited((m) => delete m.capabilities.readWrites), 'my.json: capabilities.readWrites: expected true or false, got undefined'],
    ['an unknown capability', () => edited((m) => (m.capabilities.fast = true)), 'my.json: capabilities.fast: unknown field'],
    ['no keys', () => edited((m) => (m.keys = [])), 'my.json: keys: expected a non-empty array, got an array'],
    ['a key type swc does not know', () => edited((m) => (m.keys[1].type = 'sortedset')), 'my.json: keys[1].type: expected one of "hash", "zset"'],
    [
      'a clock placeholder in a light key',
      () => edited((m) => (m.keys[0].template = '{prefix}:{now}')),
      'my.json: keys[0].template: placeholder "{now}" is not known in a light\'s key',
    ],
    [
      'an unknown placeholder',
      () => edited((m) => (m.operations.recordFailure.args[2] = '{errJson}')),
      'my.json: operations.recordFailure.args[2]: unknown placeholder "{errJson}" (known: {prefix}, {name},',
    ],
    [
      'the error JSON in a success',
      () => edited((m) => m.operations.recordSuccess.args.push('{errorJson}')),
      'my.json: operations.recordSuccess.args[2]: placeholder "{errorJson}" is only known in recordFailure',
    ],
    [
      'an event id in a read',
      () => edited((m) => m.operations.getMetrics.args.push('{eventId}')),
      'my.json: operations.getMetrics.args[2]: placeholder "{eventId}" is only known in recordSuccess and recordFailure',
    ],
    ['a missing operation', () => edited((m) => delete m.operations.getMetrics), 'my.json: operations.getMetrics: required'],
    [
      'an unknown operation',
      () => edited((m) => (m.operations.recordProbe = m.operations.getMetrics)),
      'my.json: operations.recordProbe: unknown field (known: recordSuccess, recordFailure, getMetrics)',
    ],
    [
      'a script that is not Lua',
      () => edited((m) => (m.operations.getMetrics.script = 'get.rb')),
      'my.json: operations.getMetrics.script: expected a path to a .lua file, got "get.rb"',
    ],
    [
      'an argument of a wrong type',
      () => edited((m) => (m.operations.getMetrics.args[0] = true)),
      'my.json: operations.getMetrics.args[0]: expected a template string, a number or { "eachHour": … }, got true',
    ],
    [
      'an hour list without {hour}',
      () => edited((m) => (m.operations.getMetrics.keys[1] = { eachHour: '{prefix}:x' })),
      'my.json: operations.getMetrics.keys[1].eachHour: must contain "{hour}"',
    ],
    [
      'an hour list with a bad "through"',
      () => edited((m) => (m.operations.getMetrics.keys[1] = { eachHour: '{prefix}:{hour}', through: 'later' })),
      'my.json: operations.getMetrics.keys[1].through: expected one of "now", "now-1s", got "later"',
    ],
    [
      '{hourCount} with no list',
      () => edited((m) => m.operations.getMetrics.args.push('{hourCount}')),
      'my.json: operations.getMetrics: "{hourCount}" is used but no eachHour list is',
    ],
    [
      'an argv clock no argument carries',
      () => edited((m) => (m.operations.recordSuccess.args = ['{window}'])),
      'my.json: operations.recordSuccess.args: clock is "argv" but no argument carries the time (use {now}, {nowSeconds}, {windowStart}, {windowEnd}, {windowStartExact})',
    ],
    [
      'a milliseconds clock given seconds',
      () => edited((m) => (m.clock = 'argv-ms')),
      'my.json: operations.recordSuccess.args: clock is "argv-ms" but no argument carries the time (use {nowMs}, {windowStartMs})',
    ],
    [
      'a read without a reply',
      () => edited((m) => delete m.operations.getMetrics.reply),
      'my.json: operations.getMetrics.reply: required (how to read the window from the reply)',
    ],
    [
      'a reply without successes',
      () => edited((m) => delete m.operations.getMetrics.reply.successes),
      'my.json: operations.getMetrics.reply.successes: required',
    ],
    ['an unknown reply field', () => edited((m) => (m.operations.getMetrics.reply.total = 0)), 'my.json: operations.getMetrics.reply.total: unknown field'],
    [
      'a hash field without "hash"',
      () => edited((m) => (m.operations.getMetrics.reply.lastErrorJson = 'last_error_json')),
      'my.json: operations.getMetrics.reply.lastErrorJson: picks hash field "last_error_json" but "hash" (the position of the HGETALL array) is not set',
    ],
    [
      'a JSON member without "from"',
      () => edited((m) => (m.operations.getMetrics.reply.lastErrorAt = { json: 'time' })),
      'my.json: operations.getMetrics.reply.lastErrorAt.from: required',
    ],
    [
      'a JSON member with an unknown key',
      () => edited((m) => (m.operations.getMetrics.reply.lastErrorAt = { from: 4, json: 'time', path: 'x' })),
      'my.json: operations.getMetrics.reply.lastErrorAt.path: unknown field (known: from, json)',
    ],
    [
      'a negative position',
      () => edited((m) => (m.operations.getMetrics.reply.failures = -1)),
      'my.json: operations.getMetrics.reply.failures: expected a whole number from 0 to 1000, got -1',
    ],
    [
      'a snapshot capability without a failure reply',
      () => edited((m) => delete m.operations.recordFailure.reply),
      'my.json: operations.recordFailure.reply: required when capabilities.failureReturnsSnapshot is true',
    ],
    [
      'a failure reply the capabilities deny',
      () => edited((m) => (m.capabilities.failureReturnsSnapshot = false)),
      'my.json: operations.recordFailure.reply: given, but capabilities.failureReturnsSnapshot is false',
    ],
    [
      'an unknown stamp precision',
      () => edited((m) => (m.stampPrecision = 'micro')),
      'my.json: stampPrecision: expected one of "seconds", "milliseconds", got "micro"',
    ],
    [
      'no key naming the light',
      () => edited((m) => (m.keys = [{ template: '{prefix}:all', role: 'everything', type: 'hash' }])),
      'my.json: keys: no key template names the light (use {name} or {lightId})',
    ],
    [
      'seconds on a hash',
      () => edited((m) => (m.keys[0].scoresAreSeconds = true)),
      'my.json: keys[0].scoresAreSeconds: only a zset has scores, this key is a hash',
    ],
    [
      'a key outside {prefix}',
      () => edited((m) => (m.keys[1].template = 'app:{systemId}:{{lightId}}:window_metrics:ts_idx')),
      'my.json: keys[1].template: must start with "{prefix}"',
    ],
    [
      'an operation key not declared',
      () => edited((m) => (m.operations.getMetrics.keys[1] = 'app:user:1')),
      'my.json: operations.getMetrics.keys[1]: not one of the declared keys',
    ],
    [
      'a literal operation key',
      () => edited((m) => (m.operations.getMetrics.keys[1] = 12)),
      'my.json: operations.getMetrics.keys[1]: a literal key name is not allowed',
    ],
    ['a max window of 0', () => edited((m) => (m.maxWindowSeconds = 0)), 'my.json: maxWindowSeconds: expected a whole number from 1 to 604800, got 0'],
  ])('%s', (_label, build, expected) => {
    expect(problem(build())).toContain(expected);
  });

  it('treats a brace that opens no placeholder as literal, and {lbrace} as a literal brace', () => {
    const manifest = parseManifest(
      'my.json',
      // An extra key (no operation passes it), so the operations' keys stay among the declared ones.
      edited((m) => m.keys.push({ template: '{prefix}:{{lightId}}:{lbrace}orders}:{ x }', role: 'extra', type: 'hash' })),
    );
    expect(manifest.keys[2]?.template).toEqual([{ placeholder: 'prefix' }, ':{', { placeholder: 'lightId' }, '}:{orders}:{ x }']);
  });
});

describe('manifest files that cannot be read', () => {
  it.each([
    ['empty', '', 'empty file, expected JSON'],
    ['truncated', '{"manifestVersion": 1, "name": "x"', 'truncated JSON'],
    ['not JSON', '{ manifestVersion: 1 }', 'not valid JSON'],
  ])('%s: one line naming the file', (_label, text, expected) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-manifest-file-'));
    try {
      const file = path.join(dir, 'm.json');
      writeFileSync(file, text);
      expect(() => readManifest(file)).toThrow(InputFileError);
      expect(() => readManifest(file)).toThrow(`${file}: ${expected}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('manifest expressions on the window', () => {
  it('{windowStartExact} is now - window with its fraction, {windowTwice} and {windowPlusHour} TTLs on the window', () => {
    const manifest = parseManifest(
      fileURLToPath(new URL('../../../fixtures/manifests/my.json', import.meta.url)),
      edited((m) => {
        m.operations.recordSuccess.args = ['{windowStartExact}', '{window}', '{windowTwice}', '{windowPlusHour}', '{now}'];
      }),
    );
    const layout = new ManifestLayout(manifest, { scriptsDir: LUA_DIR });
    const call = layout.recordSuccess({ name: 'x' }, { at: 1_700_000_000.25, windowSeconds: 300 });
    expect(call.args.slice(0, 5)).toEqual(['1699999700.25', '300', '600', '3900', '1700000000.25']);
  });

  it('{windowStartExact} carries the time: an argv clock may use it alone', () => {
    expect(() =>
      parseManifest(
        'my.json',
        edited((m) => {
          for (const op of ['recordSuccess', 'recordFailure', 'getMetrics']) {
            const args = m.operations[op].args as string[];
            m.operations[op].args = args.map((a) => (a === '{now}' ? '{windowStartExact}' : a));
          }
        }),
      ),
    ).not.toThrow();
  });
});
