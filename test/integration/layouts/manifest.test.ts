import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLayout } from '../../../src/layouts/index.js';
import { loadManifestLayout } from '../../../src/layouts/manifest.js';
import type { Layout } from '../../../src/layouts/types.js';
import { measureKeys } from '../../../src/measure/memory.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { errorJsonFor, evenTraffic, BENCH_EPOCH } from '../../../src/traffic/events.js';
import { SlidingWindowModel } from '../../../src/model/sliding-window.js';
import { testRedis } from '../../helpers.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../../../fixtures/manifests/${name}`, import.meta.url));

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

/** SCAN MATCH semantics for the patterns layouts produce (`*` and backslash escapes). */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i] as string;
    if (c === '\\') source += (glob[++i] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '*') source += '.*';
    else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

/** Two prefixes of one length: key names are part of the bytes MEMORY USAGE counts. */
function prefixes(base: string): [string, string] {
  const run = randomBytes(3).toString('hex');
  return [`swc-test:${run}a:${base}`, `swc-test:${run}b:${base}`];
}

/** Sends the same seeded traffic through a layout, with reads between the writes; returns every parsed reply. */
async function drive(layout: Layout, window: number, rate: number, seconds: number): Promise<unknown[]> {
  await installScripts(redis, layout.scripts);
  const light = { name: 'equivalence', system: 'billing' };
  const calls: ScriptCall[] = [];
  const kinds: ('failure' | 'read' | 'success')[] = [];
  let failures = 0;
  for (const event of evenTraffic({ rate, durationSeconds: seconds, failureRate: 0.4, seed: 7, startAt: BENCH_EPOCH })) {
    const options = { at: event.at, windowSeconds: window, eventId: event.eventId };
    if (event.outcome === 'success') {
      calls.push(layout.recordSuccess(light, options));
      kinds.push('success');
    } else {
      calls.push(layout.recordFailure(light, { ...options, errorJson: errorJsonFor(event.at, failures++) }));
      kinds.push('failure');
    }
    if (calls.length % 37 === 0) {
      calls.push(layout.getMetrics(light, { at: event.at, windowSeconds: window }));
      kinds.push('read');
    }
  }
  const replies = await execPipeline(redis, calls);
  return replies.map(([err, reply], i) => {
    if (err) throw err;
    const kind = kinds[i];
    return kind === 'read' ? layout.parseMetrics(reply) : kind === 'failure' ? layout.parseFailure(reply) : null;
  });
}

async function footprint(layout: Layout, seconds: number): Promise<{ role: string; type: string; encoding: string; elements: number; bytes: number }[]> {
  const keys = await measureKeys(redis, layout.keysOf({ name: 'equivalence', system: 'billing' }, BENCH_EPOCH, BENCH_EPOCH + seconds));
  return keys.map(({ role, type, encoding, elements, bytes }) => ({ role, type, encoding, elements, bytes }));
}

describe('a manifest equivalent to a built-in layout', () => {
  // Sorted sets stay listpacks (at most 128 members) so their bytes do not
  // depend on Redis' random skiplist levels; the 6.0 hash is a hashtable
  // (the error JSON is longer than 64 bytes), settled before measuring.
  it.each([
    { builtIn: 'stoplight-v6' as const, file: 'stoplight-v6.json', window: 100, rate: 3, seconds: 260 },
    { builtIn: 'stoplight-v5' as const, file: 'stoplight-v5.json', window: 120, rate: 0.8, seconds: 150 },
  ])('$file gives the same replies and byte-identical memory as $builtIn', async ({ builtIn, file, window, rate, seconds }) => {
    const [a, b] = prefixes(builtIn === 'stoplight-v6' ? 'stoplight:v6' : 'stoplight:v5');
    const native = createLayout(builtIn, { prefix: a });
    const described = loadManifestLayout(fixture(file), { prefix: b });
    expect(described.windowSemantics).toBe(native.windowSemantics);
    expect(described.capabilities).toEqual(native.capabilities);
    expect(described.stampPrecision).toBe(native.stampPrecision);
    expect(described.deviations).toEqual(native.deviations ?? []);

    const nativeReplies = await drive(native, window, rate, seconds);
    const describedReplies = await drive(described, window, rate, seconds);
    expect(describedReplies).toEqual(nativeReplies);
    expect(nativeReplies.some((r) => r !== null && (r as { successes: number }).successes > 0)).toBe(true);

    const nativeKeys = await footprint(native, seconds);
    const describedKeys = await footprint(described, seconds);
    expect(nativeKeys.length).toBeGreaterThan(1);
    expect(describedKeys).toEqual(nativeKeys);
    const light = { name: 'equivalence', system: 'billing' };
    expect(described.keysOf(light, BENCH_EPOCH, BENCH_EPOCH + seconds).map((k) => k.key.slice(b.length))).toEqual(
      native.keysOf(light, BENCH_EPOCH, BENCH_EPOCH + seconds).map((k) => k.key.slice(a.length)),
    );
    // The template inspector finds each key and tells the same light as the built-in's inspector.
    const patterns = described.inspector.scanPatterns().map(globToRegExp);
    for (const [i, { key }] of described.keysOf(light, BENCH_EPOCH, BENCH_EPOCH + seconds).entries()) {
      expect(
        patterns.some((p) => p.test(key)),
        key,
      ).toBe(true);
      const nativeKey = native.keysOf(light, BENCH_EPOCH, BENCH_EPOCH + seconds)[i]?.key as string;
      const theirs = described.inspector.lightOfKey(key);
      const ours = native.inspector.lightOfKey(nativeKey);
      expect({ light: theirs?.light, system: theirs?.system }).toEqual({ light: ours?.light, system: ours?.system });
    }
    expect(described.inspector.lightOfKey('unrelated:key')).toBeNull();
  });

  it('builds the same calls as the built-in, argument for argument', () => {
    const light = { name: 'checkout', system: 'shop' };
    for (const [builtIn, file] of [
      ['stoplight-v6', 'stoplight-v6.json'],
      ['stoplight-v5', 'stoplight-v5.json'],
    ] as const) {
      const native = createLayout(builtIn);
      const described = loadManifestLayout(fixture(file));
      const options = { at: BENCH_EPOCH + 7200.25, windowSeconds: 5400, eventId: 'ab'.repeat(12) };
      const strip = (call: ScriptCall) => ({ keys: call.keys, args: call.args.map(String), source: call.script.source });
      expect(strip(described.recordSuccess(light, options))).toEqual(strip(native.recordSuccess(light, options)));
      expect(strip(described.recordFailure(light, { ...options, errorJson: '{"e":1}' }))).toEqual(
        strip(native.recordFailure(light, { ...options, errorJson: '{"e":1}' })),
      );
      expect(strip(described.getMetrics(light, options))).toEqual(strip(native.getMetrics(light, options)));
    }
  });
});

describe('inspecting a manifest layout', () => {
  it('reads each key back to its light through the template inspector', () => {
    const v6 = loadManifestLayout(fixture('stoplight-v6.json'));
    const v5 = loadManifestLayout(fixture('stoplight-v5.json'));
    const light = { name: 'pay:ments', system: 'billing' };
    const [metrics, index] = v6.keysOf(light, 0, 0);
    const lightId = metrics?.key.split('{')[1]?.slice(0, 12);
    expect(v6.inspector.lightOfKey(metrics?.key as string)).toMatchObject({ role: 'metrics', light: lightId, scoresAreSeconds: false });
    expect(v6.inspector.lightOfKey(index?.key as string)).toMatchObject({ role: 'index', light: lightId, scoresAreSeconds: true });
    expect(v5.inspector.lightOfKey(`stoplight:v5:metrics:pay:ments:failure:${BENCH_EPOCH}`)).toMatchObject({ role: 'failure events', light: 'pay:ments' });
    expect(v5.inspector.lightOfKey('stoplight:v5:metadata:pay:ments')).toMatchObject({ role: 'metadata', light: 'pay:ments' });
    expect(v5.inspector.scanPatterns()).toEqual(['stoplight:v5:metadata:*', 'stoplight:v5:metrics:*:success:*', 'stoplight:v5:metrics:*:failure:*']);
  });
});

describe('the example layout (fixtures/manifests/example): a sliding log whose scripts read TIME', () => {
  it('counts the half-open window like the reference model under the injected clock', async () => {
    const layout = loadManifestLayout(fixture('example/my-log.json'), { prefix: `swc-test:${randomBytes(3).toString('hex')}:cb` });
    expect(layout.scripts).toHaveLength(2);
    await installScripts(redis, layout.scripts);
    const window = 30;
    const model = new SlidingWindowModel(window, layout.windowSemantics);
    const light = { name: 'checkout' };
    let at = BENCH_EPOCH + 0.5;
    const calls: ScriptCall[] = [];
    const expected: { successes: number; failures: number }[] = [];
    // Bursts, idle gaps longer than the window, reads between writes.
    for (let i = 0; i < 400; i += 1) {
      at += i % 97 === 0 ? window + 5 : ((i * 7919) % 13) / 10;
      const outcome = (i * 31) % 5 < 2 ? 'failure' : 'success';
      model.record(at, outcome);
      const options = { at, windowSeconds: window, eventId: `${i}`.padStart(24, '0') };
      calls.push(outcome === 'success' ? layout.recordSuccess(light, options) : layout.recordFailure(light, { ...options, errorJson: errorJsonFor(at, i) }));
      if (i % 9 === 0) {
        calls.push(layout.getMetrics(light, { at, windowSeconds: window }));
        expected.push(model.count(at));
      }
    }
    const replies = await execPipeline(redis, calls);
    const reads = replies
      .filter((_, i) => calls[i]?.script === layout.scripts[1])
      .map(([err, reply]) => {
        if (err) throw err;
        const { successes, failures } = layout.parseMetrics(reply);
        return { successes, failures };
      });
    expect(reads).toEqual(expected);
    expect(reads.some((r) => r.failures > 0 && r.successes > 0)).toBe(true);
  });
});
