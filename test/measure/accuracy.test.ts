import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatePeakBytes } from '../../src/bench/footprint.js';
import { createNamespace } from '../../src/bench/namespace.js';
import { runBench } from '../../src/bench/run.js';
import { createLayout } from '../../src/layouts/index.js';
import { measureAccuracy } from '../../src/measure/accuracy.js';
import { installScripts } from '../../src/redis/scripts.js';
import { openSession, type Session } from '../../src/redis/connect.js';
import { renderBench } from '../../src/report/bench.js';
import { runCli } from '../cli/run-cli.js';
import { HOUR_START, redisUrl, testRedis, uniqueName } from '../helpers.js';

let redis: Redis;
let session: Session;
beforeAll(async () => {
  redis = await testRedis();
  session = await openSession({ redisUrl: redisUrl() });
});
afterAll(() => session.close());

/** 20% failures, and all failures for a quarter window: the exact ratio climbs from 0.2 to 0.4 and back, crossing 0.3 twice. */
async function accuracyOf(name: string, windowSeconds: number, rate: number) {
  const layout = createLayout(name);
  await installScripts(redis, layout.scripts);
  const light = { name: uniqueName(`acc-${name}`) };
  const { accuracy } = await measureAccuracy(redis, layout, light, { windowSeconds, rate, failureRate: 0.2, seed: 3, threshold: 0.3, startAt: HOUR_START });
  return accuracy;
}

describe('measureAccuracy', () => {
  it.each(['stoplight-v6', 'sliding-log', 'ring', 'packed'])('%s (exact): zero error and no decision differs, over one read per second of two windows', async (name) => {
    const accuracy = await accuracyOf(name, 60, 10);
    expect(accuracy).toEqual({ reads: 120, maxAbsError: 0, meanAbsError: 0, threshold: 0.3, decisionMismatchShare: 0 });
  });

  it.each(['coarse', 'two-window'])('%s (approximate): a nonzero error, the mean below the max, around the incident some reads decide differently', async (name) => {
    const accuracy = await accuracyOf(name, 60, 10);
    expect(accuracy.reads).toBe(120);
    expect(accuracy.maxAbsError).toBeGreaterThan(0.01);
    expect(accuracy.maxAbsError).toBeLessThan(0.5);
    expect(accuracy.meanAbsError).toBeGreaterThan(0);
    expect(accuracy.meanAbsError).toBeLessThan(accuracy.maxAbsError);
    // The exact ratio crosses 0.3 only while the incident enters and leaves the window.
    expect(accuracy.decisionMismatchShare).toBeGreaterThan(0);
    expect(accuracy.decisionMismatchShare).toBeLessThan(0.2);
  });

  it('reads are capped (2,000 by default) and spread over the two measured windows', async () => {
    const layout = createLayout('two-window');
    await installScripts(redis, layout.scripts);
    const { accuracy, endAt } = await measureAccuracy(redis, layout, { name: uniqueName('acc-cap') }, {
      windowSeconds: 3000,
      rate: 1,
      failureRate: 0.2,
      seed: 1,
      threshold: 0.5,
      startAt: HOUR_START,
      maxReads: 500,
    });
    expect(accuracy.reads).toBe(500);
    expect(endAt).toBe(HOUR_START + 9001);
  });
});

describe('bench --accuracy', () => {
  it('each result carries its accuracy, the table shows it, and the accuracy light leaves no key behind', async () => {
    const namespace = createNamespace();
    const report = await runBench({
      session,
      plan: { layouts: ['packed', 'two-window'], windows: [30], rates: [5], failureRate: 0.2, lights: 1, seed: 1, accuracy: { threshold: 0.4 } },
      namespace,
    });
    expect(report.results.map((r) => [r.layout, r.accuracy?.reads, r.accuracy?.threshold])).toEqual([
      ['packed', 60, 0.4],
      ['two-window', 60, 0.4],
    ]);
    expect(report.results[0]?.accuracy?.maxAbsError).toBe(0);
    expect(await redis.keys(`${namespace.prefix}:*`)).toEqual([]);
    const table = renderBench(report, 'markdown', false);
    expect(table).toContain('| window | req/s | layout | reads | max error | mean error | decides differently at 0.4 |');
    expect(table).toMatch(/\| 30 s \| 5 \| packed \| 60 \| 0\.0000 \| 0\.0000 \| 0\.00% \|/);
    expect(renderBench(report, 'csv', false).split('\n')[0]).toMatch(/,accuracyReads,accuracyMaxAbsError,accuracyMeanAbsError,accuracyThreshold,accuracyDecisionMismatchShare$/);
  });

  it('CLI: --threshold implies --accuracy and is checked (0..1), one line and exit 2 before connecting', async () => {
    const run = await runCli(['bench', '--redis-url', redisUrl(), '--layout', 'coarse', '--window', '20', '--rate', '2', '--no-throughput', '--threshold', '0.3', '--json', '--no-progress']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { results: { accuracy?: { threshold: number; reads: number } }[] };
    expect(report.results[0]?.accuracy).toMatchObject({ threshold: 0.3, reads: 40 });
    const bad = await runCli(['bench', '--redis-url', 'redis://127.0.0.1:1', '--threshold', '2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^swc: --threshold: /);
  });
});

describe('the preflight with --accuracy', () => {
  it("counts the accuracy light's three windows of traffic on top of the cell's lights", () => {
    const plan = { layouts: ['stoplight-v5'], windows: [600], rates: [100], failureRate: 0.5, lights: 1, seed: 1 };
    const without = estimatePeakBytes(plan).bytes;
    const withAccuracy = estimatePeakBytes({ ...plan, accuracy: { threshold: 0.5 } }).bytes;
    // 5.x keeps every event: 180,000 more at over 120 bytes each.
    expect(withAccuracy - without).toBeGreaterThan(180_000 * 120);
  });
});
