import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { inspectLight } from '../../../src/inspect/inspect.js';
import { listLights } from '../../../src/inspect/list.js';
import { LayoutClient } from '../../../src/layouts/client.js';
import { createLayout, layoutNames, registerLayout } from '../../../src/layouts/index.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { verifyLayout } from '../../../src/verify/verify.js';
import { TinyWindow } from '../fixtures/layouts/tiny-window.js';
import { HOUR_START, redisUrl, testRedis, uniqueName } from '../../helpers.js';

// What docs/layouts.md ("Adding a layout") lists, and nothing else: Lua under
// fixtures/layouts/lua/tiny-window/, the module fixtures/layouts/tiny-window.ts
// (its keys stated once, in a key table), and the registration line below.
const NAME = 'test-tiny-window';
const LUA = fileURLToPath(new URL('../fixtures/layouts/lua/', import.meta.url));

let redis: Redis;
let session: Session;
/** swc's own private server: a layout that is not swc's is verified there as `swc verify` does without --redis-url. */
let own: Session;
beforeAll(async () => {
  redis = await testRedis();
  session = await openSession({ redisUrl: redisUrl() });
  own = await openSession();
  registerLayout({ name: NAME, create: (options) => new TinyWindow(options) });
});
afterAll(async () => {
  await session.close();
  await own.close();
});

describe('a layout added as its Lua, one module and one registration line', () => {
  it('is registered, with the calls, keys and patterns its key table gives', () => {
    expect(layoutNames).toContain(NAME);
    const layout = createLayout(NAME, { prefix: 'ns:swc-test:tiny' });
    const light = { name: 'payments' };
    const key = 'ns:swc-test:tiny:{payments}:counts';
    expect(layout.recordFailure(light, { windowSeconds: 60, at: HOUR_START + 1.5, errorJson: '{}' })).toMatchObject({
      keys: [key],
      args: [60, String(HOUR_START + 1.5), '{}'],
    });
    expect(layout.getMetrics(light, { windowSeconds: 60, at: HOUR_START }).keys).toEqual([key]);
    expect(layout.keysOf(light, HOUR_START, HOUR_START + 7200)).toEqual([{ key, role: 'counts and metadata', type: 'hash' }]);
    expect(layout.inspector.scanPatterns()).toEqual(['ns:swc-test:tiny:{*}:counts']);
    expect(layout.inspector.lightOfKey(key)).toEqual({ light: 'payments', system: null, role: 'counts and metadata', scoresAreSeconds: false });
  });

  it('benches beside a built-in layout: its keys measured, its reads exact, nothing left behind', async () => {
    const namespace = createNamespace();
    const report = await runBench({
      session,
      plan: { layouts: ['stoplight-v6', NAME], windows: [60], rates: [2], failureRate: 0.5, lights: 1, seed: 3, accuracy: { threshold: 0.5 } },
      namespace,
    });
    const mine = report.results.find((r) => r.layout === NAME);
    expect(mine?.memory.keys.map((k) => [k.key, k.role, k.type])).toEqual([
      [`${namespace.prefix}:swc-test:tiny:{w60-r2-l0}:counts`, 'counts and metadata', 'hash'],
    ]);
    // 60 s at 2/s: one counter per outcome and second with traffic, plus the five metadata fields.
    expect(mine?.memory.keys[0]?.elements).toBeGreaterThan(60);
    expect(mine?.accuracy?.reads).toBeGreaterThan(0);
    expect(mine?.accuracy?.maxAbsError).toBe(0);
    expect(await redis.keys(namespace.pattern)).toEqual([]);
  });

  it('verify holds it to the reference model with no finding', async () => {
    const result = await verifyLayout(own, createLayout(NAME), { trustScripts: true, seed: 5, calls: 3000 });
    expect(result.compared).toBeGreaterThan(300);
    expect(result.disagreements).toEqual([]);
    expect(result.scriptErrors).toEqual([]);
    expect(result.keysWithoutTtl).toEqual([]);
    expect(result.slots.oneSlotPerLight).toBe(true);
    expect(result.findings).toBe(0);
  });

  it('verify finds a read that counts one second too many, so the check above can fail', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-tiny-'));
    try {
      cpSync(LUA, dir, { recursive: true });
      const file = path.join(dir, 'tiny-window/get_metrics.lua');
      writeFileSync(file, readFileSync(file, 'utf8').replace('tonumber(at) > second - window', 'tonumber(at) >= second - window'));
      const result = await verifyLayout(own, createLayout(NAME, { scriptsDir: dir }), { trustScripts: true, seed: 5, calls: 3000, shrinkMs: 5000 });
      expect(result.lightsDisagreeing).toBeGreaterThan(0);
      expect(result.findings).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('inspect and lights find its lights by the key table alone', async () => {
    const name = uniqueName('tiny');
    const client = await LayoutClient.open(redis, createLayout(NAME));
    await client.recordSuccess({ name }, { at: HOUR_START, windowSeconds: 60 });
    await client.recordFailure({ name }, { at: HOUR_START + 1, windowSeconds: 60, errorJson: '{"error":1}' });
    const [found, ...others] = await inspectLight(redis, { light: name, at: HOUR_START + 2 });
    expect(others).toEqual([]);
    expect(found).toMatchObject({ kind: 'keys', layout: NAME, light: name, problems: [] });
    expect(found?.keys.map((k) => [k.key, k.role, k.type, k.elements])).toEqual([[`swc-test:tiny:{${name}}:counts`, 'counts and metadata', 'hash', 7]]);
    const list = await listLights(redis);
    expect(list.patterns).toContain('swc-test:tiny:{*}:counts');
    expect(list.lights.find((l) => l.light === name)).toMatchObject({ layout: NAME, keys: 1 });
  });
});
