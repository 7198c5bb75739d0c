import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { parseScenario } from '../../../src/bench/scenario.js';
import { UsageError } from '../../../src/core/errors.js';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights } from '../../../src/inspect/list.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import {
  createLayout,
  defaultLayoutNames,
  isLayoutName,
  layoutNames,
  registerLayout,
  registerManifestLoader,
  resetLayoutRegistry,
  resolveLayoutName,
} from '../../../src/layouts/index.js';
import { BUILTIN_DEFAULT_LAYOUT_NAMES, BUILTIN_LAYOUT_NAMES } from '../../../src/layouts/builtin-names.js';
import { keyDef, KeyTable } from '../../../src/layouts/kit/keys.js';
import { TemplateInspector } from '../../../src/layouts/kit/template-inspector.js';
import type {
  CallOptions,
  FailureOptions,
  Layout,
  LayoutCapabilities,
  LayoutOptions,
  Light,
  LightKey,
  RecordOptions,
  Snapshot,
} from '../../../src/layouts/types.js';
import { readScript, type LuaScript, type ScriptCall } from '../../../src/lua/source.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { renderBench } from '../../../src/report/bench.js';
import { renderInspections } from '../../../src/report/inspect.js';
import { renderLights } from '../../../src/report/lights.js';
import { HOUR_START, redisUrl, testRedis, uniqueName } from '../../helpers.js';

/** The test layout's Lua lives outside swc's lua/ folder, as a user's would. */
const LUA_ROOT = fileURLToPath(new URL('../fixtures/layouts/lua/', import.meta.url));
const NAME = 'test-minute-counters';

/**
 * A third layout that exists only in this test: one string counter per light,
 * outcome and minute. Its module and its inspector (the template inspector
 * over its key templates) are all it has; nothing else in swc knows it.
 */
class MinuteCounters implements Layout {
  readonly name = NAME;
  readonly windowSemantics = 'half-open' as const;
  readonly capabilities: LayoutCapabilities = { failureReturnsSnapshot: false, readWrites: false, maxWindowSeconds: null };
  readonly prefix: string;
  readonly scripts: readonly [record: LuaScript, read: LuaScript];
  readonly inspector: TemplateInspector;

  constructor(options: LayoutOptions = {}) {
    this.prefix = options.prefix ?? 'swc-test:mc';
    this.scripts = [readScript('minute-counters/record', LUA_ROOT), readScript('minute-counters/get_metrics', LUA_ROOT)];
    this.inspector = new TemplateInspector(
      NAME,
      new KeyTable(this.prefix, {
        success: keyDef('success counts', '{prefix}:{{name}}:success:{number}', 'string'),
        failure: keyDef('failure counts', '{prefix}:{{name}}:failure:{number}', 'string'),
      }),
    );
  }

  private key(light: Light, outcome: string, minute: number): string {
    return `${this.prefix}:{${light.name}}:${outcome}:${minute}`;
  }

  private record(light: Light, outcome: string, options: RecordOptions): ScriptCall {
    const at = options.at ?? Date.now() / 1000;
    return { script: this.scripts[0], keys: [this.key(light, outcome, Math.floor(at / 60) * 60)], args: [options.windowSeconds + 60] };
  }

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    return this.record(light, 'success', options);
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    return this.record(light, 'failure', options);
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    const now = Math.floor(options.at ?? Date.now() / 1000);
    const minutes: number[] = [];
    for (let m = Math.floor((now - options.windowSeconds + 1) / 60) * 60; m <= now; m += 60) minutes.push(m);
    return {
      script: this.scripts[1],
      keys: [...minutes.map((m) => this.key(light, 'success', m)), ...minutes.map((m) => this.key(light, 'failure', m))],
      args: [minutes.length],
    };
  }

  parseMetrics(reply: unknown): Snapshot {
    const [successes, failures] = Array.isArray(reply) ? reply.map(Number) : [];
    return {
      successes: successes ?? 0,
      failures: failures ?? 0,
      consecutiveSuccesses: 0,
      consecutiveErrors: 0,
      lastSuccessAt: null,
      lastErrorAt: null,
      lastErrorJson: null,
    };
  }

  parseFailure(): Snapshot | null {
    return null;
  }

  keysOf(light: Light, fromSecond: number, toSecond: number): LightKey[] {
    const keys: LightKey[] = [];
    for (let m = Math.floor(fromSecond / 60) * 60; m <= toSecond; m += 60) {
      keys.push({ key: this.key(light, 'success', m), role: 'success counts', type: 'string' });
      keys.push({ key: this.key(light, 'failure', m), role: 'failure counts', type: 'string' });
    }
    return keys;
  }
}

let redis: Redis;
let session: Session;
beforeAll(async () => {
  redis = await testRedis();
  session = await openSession({ redisUrl: redisUrl() });
  // The one registration line a new layout needs.
  registerLayout({ name: NAME, create: (options) => new MinuteCounters(options) });
});
afterAll(() => session.close());

describe('a third layout registered from outside swc', () => {
  it('is listed, validated and built by the registry like the built-in ones', () => {
    expect(layoutNames.slice(0, 2)).toEqual(['stoplight-v5', 'stoplight-v6']);
    expect(layoutNames.at(-1)).toBe(NAME);
    expect(isLayoutName(NAME)).toBe(true);
    expect(resolveLayoutName(NAME)).toBe(NAME);
    expect(createLayout(NAME, { prefix: 'ns:x' }).prefix).toBe('ns:x');
    expect(() => registerLayout({ name: NAME, create: () => new MinuteCounters() })).toThrow(UsageError);
  });

  it('benches memory next to the built-in layouts, with one ratio column per layout against the first', async () => {
    const report = await runBench({
      session,
      plan: { layouts: ['stoplight-v5', 'stoplight-v6', NAME], windows: [120], rates: [2], failureRate: 0.5, lights: 1, seed: 3 },
      namespace: createNamespace(),
    });
    const mine = report.results.find((r) => r.layout === NAME);
    // 120 s at 2/s starting on an hour boundary: two minutes, each with a success and a failure counter.
    expect(mine?.memory.keys.map((k) => [k.role, k.type])).toEqual([
      ['success counts', 'string'],
      ['failure counts', 'string'],
      ['success counts', 'string'],
      ['failure counts', 'string'],
    ]);
    expect(mine?.memory.bytesPerLight).toBeGreaterThan(0);
    const markdown = renderBench(report, 'markdown', false);
    expect(markdown).toContain(`| stoplight-v5 / stoplight-v6 | stoplight-v5 / ${NAME} |`);
    expect(markdown).toContain(`${NAME} KB`);
  });

  it('is found by inspect (auto, by --layout, by full key) and read with the template inspector', async () => {
    const name = uniqueName('mc');
    const client = await LayoutClient.open(redis, createLayout(NAME));
    for (let s = 0; s < 90; s += 10) await client.recordSuccess({ name }, { at: HOUR_START + s, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 61, windowSeconds: 60, errorJson: '{}' });
    const auto = await inspectLight(redis, { light: name, at: HOUR_START + 90 });
    expect(auto).toHaveLength(1);
    const [found] = auto;
    expect(found).toMatchObject({ kind: 'keys', layout: NAME, light: name, problems: [], unavailable: [] });
    expect(found?.keys.map((k) => [k.key, k.type, k.elements])).toEqual([
      [`swc-test:mc:{${name}}:success:${HOUR_START}`, 'string', 1],
      [`swc-test:mc:{${name}}:success:${HOUR_START + 60}`, 'string', 1],
      [`swc-test:mc:{${name}}:failure:${HOUR_START + 60}`, 'string', 1],
    ]);
    // The hash tag puts every key of the light in one slot, and the TTL is the layout's.
    expect(new Set(found?.keys.map((k) => k.slot)).size).toBe(1);
    expect(found?.keys[0]?.ttlSeconds).toBeGreaterThan(100);
    expect(found?.summary.bytes).toBe(found?.keys.reduce((sum, k) => sum + (k.bytes ?? 0), 0));
    const byLayout = await inspectLight(redis, { light: name, layout: NAME, at: HOUR_START + 90 });
    expect(byLayout[0]?.keys).toHaveLength(3);
    const byKey = await inspectLight(redis, { light: `swc-test:mc:{${name}}:failure:${HOUR_START + 60}` });
    expect(byKey[0]?.keys).toHaveLength(3);
    await expect(inspectLight(redis, { light: name, layout: 'stoplight-v6' })).rejects.toThrow(/not found/);
    const text = renderInspections(auto, { color: false, limit: 30, picture: false });
    expect(text).toContain(`${NAME}  ${name}`);
    expect(text).toMatch(/summary {2}3 keys · \d+ B · per second of window: give --window/);
  });

  it('is listed by lights, which scans every registered layout', async () => {
    const name = uniqueName('mc-list');
    const client = await LayoutClient.open(redis, createLayout(NAME));
    await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
    const list = await listLights(redis);
    expect(list.patterns.slice(0, 2)).toEqual(['stoplight:v5:*', 'stoplight:v6:*']);
    expect(list.patterns.slice(-2)).toEqual(['swc-test:mc:{*}:success:*', 'swc-test:mc:{*}:failure:*']);
    expect(list.lights.find((l) => l.light === name)).toMatchObject({ layout: NAME, keys: 1, systemId: null, spanSeconds: 0 });
    expect(renderLights({ list, matched: list.lights, shown: list.lights, totals: [], wide: false }, 'table', false)).toMatch(
      new RegExp(`${NAME} +│ ${name} `),
    );
  });
});

describe('layout manifests through the registry', () => {
  it("reads a manifest file with swc's loader; a loader registered in its place loads each file once", () => {
    expect(() => resolveLayoutName('./reset-me.json')).toThrow(/reset-me\.json: no such file/);
    let loads = 0;
    registerManifestLoader((file) => {
      loads += 1;
      expect(file).toMatch(/\/my-window\.json$/);
      return { name: 'from-manifest', create: (options) => new MinuteCounters(options) };
    });
    expect(resolveLayoutName('./my-window.json')).toBe('from-manifest');
    expect(resolveLayoutName('./my-window.json')).toBe('from-manifest');
    expect(loads).toBe(1);
    expect(isLayoutName('from-manifest')).toBe(true);
    expect(() => resolveLayoutName('no-such-layout')).toThrow(
      /--layout: expected one of stoplight-v5, stoplight-v6, .*test-minute-counters, from-manifest or a manifest file/,
    );
  });

  it('a scenario names manifest files relative to its own folder, and names the field when one is unknown', () => {
    const seen: string[] = [];
    registerManifestLoader((file) => {
      seen.push(file);
      return { name: 'scenario-manifest', create: (options) => new MinuteCounters(options) };
    });
    const scenario = parseScenario('/work/ci/scenarios/small.json', { layouts: ['stoplight-v6', '../layouts/window.json'] });
    expect(scenario.layouts).toEqual(['stoplight-v6', 'scenario-manifest']);
    expect(seen).toEqual(['/work/ci/layouts/window.json']);
    expect(() => parseScenario('s.json', { layouts: ['v7'] })).toThrow(
      /^s\.json: layouts\[0\]: expected one of stoplight-v5, stoplight-v6, .* or a manifest file \(\*\.json\), got "v7"$/,
    );
  });
});

// Last in the file: it undoes what the tests above registered (test/integration-setup.ts does the same after every file).
describe('resetting the registry', () => {
  it("forgets the layouts registered since start-up and the manifest files loaded, and brings back swc's loader", () => {
    registerManifestLoader(() => ({ name: 'from-a-loader', create: (options) => new MinuteCounters(options) }));
    expect(resolveLayoutName('./reset-me.json')).toBe('from-a-loader');
    resolveLayoutName('coarse-30s');
    registerLayout({ name: 'by-default', create: (options) => new MinuteCounters(options), byDefault: true });
    resetLayoutRegistry();
    expect([...layoutNames]).toEqual(BUILTIN_LAYOUT_NAMES);
    expect([...defaultLayoutNames]).toEqual(BUILTIN_DEFAULT_LAYOUT_NAMES);
    expect(isLayoutName(NAME)).toBe(false);
    // The file a replaced loader answered for is read by swc's own loader again, not served from before.
    expect(() => resolveLayoutName('./reset-me.json')).toThrow(/reset-me\.json: no such file/);
    // A variant registers again when asked for.
    expect(resolveLayoutName('coarse-30s')).toBe('coarse-30s');
  });
});
