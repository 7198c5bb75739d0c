import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLayout, layoutNames, type LayoutName } from '../../../src/layouts/index.js';
import type { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import type { ScriptCall } from '../../../src/lua/source.js';
import { execPipeline, installScripts, type PipelineReply } from '../../../src/redis/scripts.js';
import { LightJudge, verifyErrorJson } from '../../../src/verify/judge.js';
import { HOUR_START, testRedis, uniqueName } from '../../helpers.js';
import { randomTraffic } from './random-traffic.js';

const WINDOWS = [1, 2, 7, 60, 300, 3599, 3999, 4000, 7200];
const SEEDS = [11, 29, 47];
const OPS_PER_CASE = 600;
/** Each case compares at least this many replies (about a third of the calls are reads). */
const MIN_COMPARED = 100;

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

/**
 * Feeds the same traffic to a layout (one pipeline) and to the reference
 * model, and judges every reply that carries counts: each must match the
 * exact window, or differ from it exactly as a deviation the layout declares.
 */
async function runCase(name: LayoutName, windowSeconds: number, seed: number) {
  const layout = createLayout(name);
  await installScripts(redis, layout.scripts);
  const light = { name: uniqueName(`diff-${name}-${windowSeconds}`) };
  const ops = randomTraffic(seed * 1000 + windowSeconds, windowSeconds, HOUR_START + 17.25, OPS_PER_CASE);
  const calls: ScriptCall[] = ops.map((op) => {
    const options = { at: op.at, windowSeconds };
    if (op.kind === 'read') return layout.getMetrics(light, options);
    if (op.kind === 'success') return layout.recordSuccess(light, options);
    return layout.recordFailure(light, { ...options, errorJson: verifyErrorJson(op.at, layout.stampPrecision ?? 'seconds') });
  });
  const replies = await execPipeline(redis, calls);
  const judge = new LightJudge(layout, windowSeconds);
  const verdicts = ops.map((op, i) => ({ index: i, op, verdict: judge.judge({ op: op.kind, at: op.at }, replies[i] as PipelineReply) }));
  return { layout, light, verdicts, lastAt: ops.at(-1)?.at ?? HOUR_START };
}

/** Approximate layouts are held to their declared bound instead (approximate.test.ts). */
const EXACT_LAYOUTS = layoutNames.filter((name) => createLayout(name).approximation === undefined);

describe.each(EXACT_LAYOUTS)('%s against the reference model', (name) => {
  it.each(WINDOWS.flatMap((w) => SEEDS.map((seed) => [w, seed] as const)))(
    'window %i s, seed %i: every read agrees with the exact window or a declared deviation',
    async (windowSeconds, seed) => {
      const { verdicts, layout, light, lastAt } = await runCase(name, windowSeconds, seed);
      const compared = verdicts.filter((v) => v.verdict.kind === 'ok' || v.verdict.kind === 'deviation');
      const wrong = verdicts.filter((v) => !['ok', 'deviation', 'skip'].includes(v.verdict.kind));
      expect(wrong).toEqual([]);
      expect(compared.length).toBeGreaterThanOrEqual(MIN_COMPARED);
      const deviations = verdicts.filter((v) => v.verdict.kind === 'deviation');
      // The traffic reads in the first second of an hour: 5.x must miss that second there, and only there.
      if (name === 'stoplight-v5') expect(deviations.length).toBeGreaterThan(0);
      else expect(deviations).toEqual([]);
      for (const d of deviations) expect(Math.floor(d.op.at) % 3600).toBe(0);
      if (layout.name === 'stoplight-v6') {
        // After the last operation's eviction nothing at or before floor(last) - W remains.
        const v6 = layout as StoplightV6;
        const cutoff = Math.floor(lastAt) - windowSeconds;
        const fields = Object.keys(await redis.hgetall(v6.metricsKey(light))).filter((f) => f.startsWith('bucket:'));
        for (const field of fields) expect(Number(field.split(':')[1])).toBeGreaterThan(cutoff);
        expect(await redis.zcount(v6.indexKey(light), '-inf', cutoff)).toBe(0);
      }
    },
  );
});
