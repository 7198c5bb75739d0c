import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputFileError, UsageError } from '../../../src/core/errors.js';
import { createLayout } from '../../../src/layouts/index.js';
import type { ManifestLayout } from '../../../src/layouts/manifest.js';
import { classifyScriptsDir, scriptsDirLayouts, scriptsDirNotes, stoplightLayout } from '../../../src/layouts/stoplight/scripts-dir.js';
import type { Layout, Snapshot } from '../../../src/layouts/types.js';
import { LUA_DIR, type ScriptCall } from '../../../src/lua/source.js';
import { measureKeys } from '../../../src/measure/memory.js';
import { execPipeline, installScripts, runScript } from '../../../src/redis/scripts.js';
import { BENCH_EPOCH, errorJsonFor, evenTraffic } from '../../../src/traffic/events.js';
import { testRedis } from '../../helpers.js';
import { stoplight5Tree, stoplight6Tree, V5_DATA_STORE, V6_STORAGE } from './stoplight-tree.js';

let redis: Redis;
const trees: string[] = [];
let v6Time: string;
let v6Argv: string;
let v5: string;
beforeAll(async () => {
  redis = await testRedis();
  v6Time = stoplight6Tree('time');
  v6Argv = stoplight6Tree('argv');
  v5 = stoplight5Tree();
  trees.push(v6Time, v6Argv, v5);
});
afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

const light = { name: 'payments', system: 'billing' };

/** Seeded traffic through a layout, a read every 25 calls; returns the parsed reads and failure replies. */
async function drive(layout: Layout, window: number, rate: number, seconds: number): Promise<(Snapshot | null)[]> {
  await installScripts(redis, layout.scripts);
  const calls: ScriptCall[] = [];
  const kinds: string[] = [];
  let failures = 0;
  for (const event of evenTraffic({ rate, durationSeconds: seconds, failureRate: 0.3, seed: 11, startAt: BENCH_EPOCH + 17 })) {
    const options = { at: event.at, windowSeconds: window, eventId: event.eventId };
    if (event.outcome === 'success') calls.push(layout.recordSuccess(light, options));
    else calls.push(layout.recordFailure(light, { ...options, errorJson: errorJsonFor(event.at, failures++, layout.stampPrecision ?? 'seconds') }));
    kinds.push(event.outcome);
    if (calls.length % 25 === 0) {
      calls.push(layout.getMetrics(light, { at: event.at, windowSeconds: window }));
      kinds.push('read');
    }
  }
  const replies = await execPipeline(redis, calls);
  return replies.flatMap(([err, reply], i) => {
    if (err) throw err;
    return kinds[i] === 'read' ? [layout.parseMetrics(reply)] : [];
  });
}

async function bytes(layout: Layout, seconds: number): Promise<{ role: string; encoding: string; elements: number; bytes: number }[]> {
  const keys = await measureKeys(redis, layout.keysOf(light, BENCH_EPOCH, BENCH_EPOCH + seconds + 20));
  return keys.map(({ role, encoding, elements, bytes }) => ({ role, encoding, elements, bytes }));
}

const prefixPair = (base: string): [string, string] => {
  const run = randomBytes(3).toString('hex');
  return [`swc-test:${run}a:${base}`, `swc-test:${run}b:${base}`];
};

describe('--scripts: what a folder holds', () => {
  it('tells an swc lua/ copy, a 6.0 tree (root, gem-style lib/, or the storage folder itself) and a 5.x tree apart', () => {
    expect(classifyScriptsDir(LUA_DIR)).toEqual({ kind: 'swc', dir: LUA_DIR });
    expect(classifyScriptsDir(v6Time)).toEqual({ kind: 'stoplight', dir: v6Time, v6Root: path.join(v6Time, V6_STORAGE) });
    expect(classifyScriptsDir(path.join(v6Time, V6_STORAGE))).toMatchObject({ kind: 'stoplight', v6Root: path.join(v6Time, V6_STORAGE, '.') });
    expect(classifyScriptsDir(v5)).toEqual({ kind: 'stoplight', dir: v5, v5Root: path.join(v5, V5_DATA_STORE) });
    expect(scriptsDirLayouts(v5)).toEqual(['stoplight-v5']);
    expect(scriptsDirLayouts(v6Argv)).toEqual(['stoplight-v6']);
    expect(scriptsDirLayouts(LUA_DIR)).toEqual(['stoplight-v5', 'stoplight-v6']);
    expect(stoplightLayout('stoplight-v6', LUA_DIR)).toBeNull();
  });

  it('refuses a folder that is none of them, and a layout the tree does not have, naming what it looked for', () => {
    expect(() => classifyScriptsDir(path.join(v5, 'nope'))).toThrow(/--scripts: .*nope: no such folder/);
    expect(() => classifyScriptsDir(tmpdir())).toThrow(UsageError);
    expect(() => classifyScriptsDir(tmpdir())).toThrow(/neither a copy of swc's lua\/ folder .* nor a Stoplight source tree/);
    expect(() => stoplightLayout('stoplight-v5', v6Time)).toThrow(/no Stoplight 5\.x scripts/);
    expect(() => stoplightLayout('stoplight-v6', v5)).toThrow(/no Stoplight 6\.0 scripts/);
  });

  it('resolves -- @include names under the storage root, recursively, as Stoplight does', () => {
    const layout = stoplightLayout('stoplight-v6', v6Time);
    const source = layout?.scripts[0]?.source ?? '';
    expect(source).toContain('local function now()');
    expect(source).toContain('local function swc_v6_evict');
    // _evict includes lib/outcome: a second level.
    expect(source).toContain('local function swc_record_outcome');
    expect(source).not.toMatch(/^--\s*@include/m);
    expect(layout?.scripts[0]?.lineMap.some((l) => l.file.endsWith(path.join('lib', 'outcome.lua')))).toBe(true);
  });
});

describe('Stoplight-shaped trees bench and read like the built-in layouts', () => {
  it.each([
    ['clock from Redis TIME (wrapped for the injected clock)', () => v6Time],
    ['clock as the first argument', () => v6Argv],
  ])('6.0, %s: same reads, byte-identical memory', async (_label, tree) => {
    const [a, b] = prefixPair('stoplight:v6');
    const native = createLayout('stoplight-v6', { prefix: a });
    const theirs = stoplightLayout('stoplight-v6', tree(), { prefix: b });
    expect(theirs?.name).toBe('stoplight-v6');
    const nativeReads = await drive(native, 90, 2.5, 200);
    const theirReads = await drive(theirs as Layout, 90, 2.5, 200);
    // Stoplight's 6.0 reply has no last_error_at: its manifest reads it from the error JSON's time, as Stoplight's client does.
    expect(theirReads).toEqual(nativeReads);
    expect(nativeReads.at(-1)?.lastErrorAt).not.toBeNull();
    expect(nativeReads.at(-1)?.successes).toBeGreaterThan(0);
    expect(nativeReads.at(-1)?.failures).toBeGreaterThan(0);
    expect(await bytes(theirs as Layout, 200)).toEqual(await bytes(native, 200));
  });

  it('5.x: same reads away from an hour boundary, byte-identical memory', async () => {
    const [a, b] = prefixPair('stoplight:v5');
    const native = createLayout('stoplight-v5', { prefix: a });
    const theirs = stoplightLayout('stoplight-v5', v5, { prefix: b }) as Layout;
    const nativeReads = await drive(native, 120, 0.7, 160);
    const theirReads = await drive(theirs, 120, 0.7, 160);
    expect(theirReads).toEqual(nativeReads);
    expect(nativeReads.at(-1)?.lastErrorJson).toMatch(/"error"/);
    expect(await bytes(theirs, 160)).toEqual(await bytes(native, 160));
  });

  it("5.x: a read in the first second of an hour picks its hour keys as Stoplight's client does and misses that second", async () => {
    const theirs = stoplightLayout('stoplight-v5', v5, { prefix: `swc-test:${randomBytes(3).toString('hex')}:stoplight:v5` }) as Layout;
    await installScripts(redis, theirs.scripts);
    const hour = BENCH_EPOCH + 7200;
    const other = { name: 'hour-edge' };
    await execPipeline(redis, [
      theirs.recordSuccess(other, { at: hour - 10, windowSeconds: 60, eventId: 'a'.repeat(24) }),
      theirs.recordSuccess(other, { at: hour, windowSeconds: 60, eventId: 'b'.repeat(24) }),
    ]);
    const call = theirs.getMetrics(other, { at: hour, windowSeconds: 60 });
    expect(call.keys).toHaveLength(3);
    const atEdge = await runScript(redis, call);
    expect(theirs.parseMetrics(atEdge).successes).toBe(1);
    const second = await runScript(redis, theirs.getMetrics(other, { at: hour + 1, windowSeconds: 60 }));
    expect(theirs.parseMetrics(second).successes).toBe(2);
    // The layout declares exactly that miss.
    const [deviation] = (theirs as ManifestLayout).deviations;
    // The same declaration as the built-in 5.x layout's.
    expect(deviation).toBe(createLayout('stoplight-v5').deviations?.[0]);
    expect(deviation?.uncounted(hour + 0.5, 60)).toEqual({ fromSecond: hour, toSecond: hour });
    expect(deviation?.uncounted(hour + 1, 60)).toBeNull();
    expect(stoplightLayout('stoplight-v6', v6Time)?.deviations).toEqual([]);
  });
});

describe('Stoplight trees that cannot be used', () => {
  function copyOf(tree: string): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-stoplight-edit-'));
    trees.push(dir);
    cpSync(tree, dir, { recursive: true });
    return dir;
  }

  it('a missing include file: one error naming the including file and line', () => {
    const dir = copyOf(v6Time);
    rmSync(path.join(dir, V6_STORAGE, 'lib/outcome.lua'));
    const error = (() => {
      try {
        stoplightLayout('stoplight-v6', dir);
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(InputFileError);
    const message = (error as Error).message;
    expect(message).toContain(`${path.join(dir, V6_STORAGE, 'window_metrics/_evict.lua')}:`);
    expect(message).toMatch(/_evict\.lua:\d+: "-- @include lib\/outcome": .*lib\/outcome\.lua: no such file$/);
    expect(message).not.toContain('\n');
  });

  it('an include cycle is named, not followed forever', () => {
    const dir = copyOf(v6Time);
    writeFileSync(path.join(dir, V6_STORAGE, 'lib/outcome.lua'), '-- @include window_metrics/_evict\n');
    expect(() => stoplightLayout('stoplight-v6', dir)).toThrow(/include cycle \(window_metrics\/record_success\.lua -> now\.lua|include cycle/);
  });

  it('a version whose scripts read other ARGV slots than the convention passes is refused before any traffic', () => {
    const dir = copyOf(v6Time);
    const file = path.join(dir, V6_STORAGE, 'window_metrics/record_success.lua');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace("redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))", "redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))"),
    );
    expect(() => stoplightLayout('stoplight-v6', dir)).toThrow(
      /reads ARGV\[1\.\.3\], but swc's manifest for Stoplight 6\.0 hash buckets with the clock from Redis TIME \(hash-c\) passes 2/,
    );
  });

  it('a 6.0 tree with neither `now` nor _evict cannot be told apart: the user is asked for a manifest', () => {
    const dir = copyOf(v6Argv);
    rmSync(path.join(dir, V6_STORAGE, 'window_metrics/_evict.lua'));
    expect(() => stoplightLayout('stoplight-v6', dir)).toThrow(
      /cannot tell this Stoplight 6\.0 version's calling convention .* pass a manifest with --layout <file>/,
    );
  });
});

describe('--scripts: a 6.0 folder at the older path, and folders that are not used', () => {
  const OLDER = 'lib/stoplight/infrastructure/storage/redis';
  /** A tree with 5.x scripts and, when `v6At` is given, a 6.0 storage folder at that path. */
  function mixed(v6At?: string, emptyAt?: string): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-stoplight-mixed-'));
    trees.push(dir);
    cpSync(path.join(v5, V5_DATA_STORE), path.join(dir, V5_DATA_STORE), { recursive: true });
    if (v6At !== undefined) cpSync(path.join(v6Argv, V6_STORAGE), path.join(dir, v6At), { recursive: true });
    if (emptyAt !== undefined) mkdirSync(path.join(dir, emptyAt, 'window_metrics'), { recursive: true });
    return dir;
  }

  it('a 6.0 folder under infrastructure/storage/redis next to 5.x scripts: both are used, nothing is skipped', async () => {
    const dir = mixed(OLDER);
    expect(classifyScriptsDir(dir)).toEqual({ kind: 'stoplight', dir, v6Root: path.join(dir, OLDER), v5Root: path.join(dir, V5_DATA_STORE) });
    expect(scriptsDirLayouts(dir)).toEqual(['stoplight-v5', 'stoplight-v6']);
    expect(scriptsDirNotes(dir)).toEqual([]);
    // It runs: the same reads as the tree at the newer path.
    const [a, b] = prefixPair('older');
    const older = stoplightLayout('stoplight-v6', dir, { prefix: a }) as ManifestLayout;
    const newer = stoplightLayout('stoplight-v6', v6Argv, { prefix: b }) as ManifestLayout;
    expect(older.scriptsDir).toBe(path.join(dir, OLDER));
    expect(await drive(older, 60, 5, 90)).toEqual(await drive(newer, 60, 5, 90));
  });

  it('a window_metrics folder without record_success.lua is named, with why, and 5.x runs alone', () => {
    const dir = mixed(undefined, OLDER);
    expect(scriptsDirLayouts(dir)).toEqual(['stoplight-v5']);
    const notes = scriptsDirNotes(dir);
    expect(notes).toContain(`--scripts: not used: ${path.join(dir, OLDER, 'window_metrics')} (no record_success.lua in it; no .lua files)`);
    expect(notes.at(-1)).toMatch(/no Stoplight 6\.0 scripts found .*running Stoplight 5\.x only/);
    expect(() => stoplightLayout('stoplight-v6', dir)).toThrow(/no Stoplight 6\.0 scripts .*found .*window_metrics, no record_success\.lua in it/);
  });

  it('two 6.0 folders: the newer path is used, the other named', () => {
    const dir = mixed(OLDER);
    cpSync(path.join(v6Argv, V6_STORAGE), path.join(dir, V6_STORAGE), { recursive: true });
    expect(classifyScriptsDir(dir)).toMatchObject({ v6Root: path.join(dir, V6_STORAGE) });
    expect(scriptsDirNotes(dir)).toEqual([
      `--scripts: not used: ${path.join(dir, OLDER, 'window_metrics')} (a second 6.0 scripts folder; ${path.join(dir, V6_STORAGE, 'window_metrics')} is used)`,
    ]);
  });
});
