import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLayout, layoutNames, type LayoutName } from '../../src/layouts/index.js';
import type { Layout, Snapshot } from '../../src/layouts/types.js';
import { SlidingWindowModel } from '../../src/model/sliding-window.js';
import { execPipeline, installScripts } from '../../src/redis/scripts.js';
import type { ScriptCall } from '../../src/lua/source.js';
import { HOUR_START, testRedis, uniqueName } from '../helpers.js';
import { randomTraffic } from './random-traffic.js';

const WINDOWS = [1, 2, 7, 60, 300, 3599, 3999, 4000, 7200];
const SEEDS = [11, 29, 47];
const OPS_PER_CASE = 600;
const ERROR_JSON = '{"error":{"class":"Timeout::Error","message":"execution expired"},"time":0}';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

function modelFor(layout: Layout, windowSeconds: number): SlidingWindowModel {
  return new SlidingWindowModel(
    windowSeconds,
    layout.windowSemantics,
    layout.capabilities.maxWindowSeconds ?? Number.POSITIVE_INFINITY,
  );
}

interface Expectation {
  index: number;
  at: number;
  successes: number;
  failures: number;
  consecutiveSuccesses: number;
  consecutiveErrors: number;
}

/** Feeds the same traffic to a layout (one pipeline) and to the model; returns both views of every read. */
async function runCase(name: LayoutName, windowSeconds: number, seed: number) {
  const layout = createLayout(name);
  await installScripts(redis, layout.scripts);
  const light = { name: uniqueName(`diff-${name}-${windowSeconds}`) };
  const model = modelFor(layout, windowSeconds);
  const ops = randomTraffic(seed * 1000 + windowSeconds, windowSeconds, HOUR_START + 17.25, OPS_PER_CASE);
  const calls: ScriptCall[] = [];
  const expected: Expectation[] = [];
  ops.forEach((op, index) => {
    if (op.kind === 'read') {
      calls.push(layout.getMetrics(light, { at: op.at, windowSeconds }));
    } else if (op.kind === 'success') {
      calls.push(layout.recordSuccess(light, { at: op.at, windowSeconds }));
      model.record(op.at, 'success');
    } else {
      calls.push(layout.recordFailure(light, { at: op.at, windowSeconds, errorJson: ERROR_JSON }));
      model.record(op.at, 'failure');
    }
    if (op.kind === 'read' || (op.kind === 'failure' && layout.name === 'stoplight-v6')) {
      expected.push({
        index,
        at: op.at,
        ...model.count(op.at),
        consecutiveSuccesses: model.consecutiveSuccesses,
        consecutiveErrors: model.consecutiveErrors,
      });
    }
  });
  const replies = await execPipeline(redis, calls);
  const actual = expected.map((e) => {
    const [err, reply] = replies[e.index] ?? [new Error('missing reply'), null];
    if (err) throw err;
    const snapshot: Snapshot | null = ops[e.index]?.kind === 'read' ? layout.parseMetrics(reply) : layout.parseFailure(reply);
    if (!snapshot) throw new Error(`no snapshot in the reply to op ${e.index}`);
    return {
      index: e.index,
      at: e.at,
      successes: snapshot.successes,
      failures: snapshot.failures,
      consecutiveSuccesses: snapshot.consecutiveSuccesses,
      consecutiveErrors: snapshot.consecutiveErrors,
    };
  });
  return { layout, light, expected, actual, lastAt: ops.at(-1)?.at ?? HOUR_START };
}

describe.each(layoutNames)('%s against the reference model', (name) => {

  it.each(WINDOWS.flatMap((w) => SEEDS.map((seed) => [w, seed] as const)))(
    'window %i s, seed %i: same counts at every read',
    async (windowSeconds, seed) => {
      const { actual, expected, layout, light, lastAt } = await runCase(name, windowSeconds, seed);
      expect(expected.length).toBeGreaterThan(50);
      expect(actual).toEqual(expected);
      if (layout.name === 'stoplight-v6') {
        // After the last operation's eviction nothing at or before floor(last) - W remains.
        const v6 = layout as import('../../src/layouts/stoplight-v6.js').StoplightV6;
        const cutoff = Math.floor(lastAt) - windowSeconds;
        const fields = Object.keys(await redis.hgetall(v6.metricsKey(light))).filter((f) => f.startsWith('bucket:'));
        for (const field of fields) expect(Number(field.split(':')[1])).toBeGreaterThan(cutoff);
        expect(await redis.zcount(v6.indexKey(light), '-inf', cutoff)).toBe(0);
      }
    },
  );
});
