import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/measure/types.js';
import { renderBench } from '../../src/report/bench.js';
import { redisUrl, testRedis, keysMatching } from '../helpers.js';
import { runCli, RUN_LINE, startCli } from './run-cli.js';

let redis: Redis;
beforeAll(async () => {
  redis = await testRedis();
});

const namespaceIn = (stderr: string): string | undefined => /swc-bench:[0-9a-f]{8}/.exec(stderr)?.[0];

describe('swc bench --realtime (CLI)', () => {
  it('sends 50/s for 2 s per layout on the server clock, reports pacing and memory, and leaves no key', async () => {
    const result = await runCli(['bench', '--redis-url', redisUrl(), '--realtime', '--rate', '50', '--window', '1m', '--duration', '2s', '--json']);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BenchReport;
    expect(report.options).toMatchObject({ realtime: true, throughput: false, durationSeconds: 2 });
    expect(report.results.map((r) => r.layout)).toEqual(['stoplight-v5', 'stoplight-v6']);
    for (const r of report.results) {
      expect(r.throughput).toBeUndefined();
      expect(r.events).toBe(100);
      expect(r.memory.bytesPerLight).toBeGreaterThan(0);
      const t = r.realtime;
      expect(t).toBeDefined();
      if (!t) continue;
      expect(t).toMatchObject({ requestedRate: 50, events: 100, eventsTotal: 100, lights: 1 });
      // Loose on purpose: a noisy 2-core machine still paces 50/s within 20%.
      expect(t.achievedRate).toBeGreaterThan(40);
      expect(t.achievedRate).toBeLessThan(60);
      for (const field of ['lateP99Ms', 'lateMaxMs', 'durationSeconds'] as const) expect(t[field]).toBeGreaterThanOrEqual(0);
      expect(t.write.p50Ms).toBeLessThanOrEqual(t.write.p99Ms);
      expect(t.write.p99Ms).toBeLessThanOrEqual(t.write.p999Ms);
      // Real time, not the injected epoch of 2025 (the 60 s tells a clock of today from one of 2025, not a speed bound).
      expect(t.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(Math.abs(Date.parse(t.startedAt) / 1000 - Date.now() / 1000)).toBeLessThan(60);
    }
    // 5.x: the hour keys came from the real clock, and memory still counts all 100 events.
    const v5 = report.results[0];
    expect(v5?.memory.keys.filter((k) => k.type === 'zset').reduce((n, k) => n + k.elements, 0)).toBe(100);
    const namespace = namespaceIn(result.stderr);
    expect(namespace).toBeDefined();
    expect(await keysMatching(redis, `${namespace}:*`)).toEqual([]);

    const table = renderBench(report, 'table', false);
    expect(table).toMatch(/Real traffic/);
    expect(table).toMatch(/achieved\/s/);
    expect(renderBench(report, 'markdown', false)).toMatch(/\| 1 min \| 50 \| stoplight-v6 \|/);
    const csv = renderBench(report, 'csv', false).trim().split('\n');
    expect(csv[0]).toMatch(/,realtimeRequestedRate,realtimeAchievedRate,/);
    // Found by name: columns are only ever added, so positions move.
    expect(csv[1]?.split(',')[csv[0]!.split(',').indexOf('realtimeRequestedRate')]).toBe('50');
  });

  it.each([
    [['--duration', '2h'], /^swc: --duration: with --realtime at most 3600 s/],
    [['--rate', '60000'], /^swc: --rate\/--lights: with --realtime at most 50,000 events\/s per cell, got 60,000/],
    [['--rate', '1000', '--lights', '100'], /^swc: --rate\/--lights: .*rate 1000 × 100 lights/],
    [['--ops', '100'], /^swc: --ops\/--time: --realtime has no throughput phase/],
    [['--rate', '0.1', '--duration', '1s'], /^swc: --rate\/--duration: rate 0.1 for 1 s sends no event/],
  ])('exits 2 with one line naming the flag: %j', async (args, message) => {
    const result = await runCli(['bench', '--redis-url', redisUrl(), '--realtime', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('SIGINT once real traffic has written keys: exit 130 at once, none of its keys left', async () => {
    // 5 min of traffic per cell: a run that waited for its end instead of stopping on the signal would pass the test's timeout.
    const run = startCli(['bench', '--redis-url', redisUrl(), '--realtime', '--rate', '50', '--window', '1m', '--duration', '5m']);
    const [, namespace] = (await run.waitFor(RUN_LINE)) as unknown as [string, string];
    await run.waitFor(/\[1\/2\] stoplight-v5 window 1 min at 50\/s: real traffic for 300 s/);
    // Observe the traffic (a layout key under the namespace) instead of sleeping.
    while ((await keysMatching(redis, `${namespace}:stoplight:*`)).length === 0) {
      expect(run.child.exitCode).toBeNull();
      await new Promise((r) => setTimeout(r, 50));
    }
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(130);
    expect(await keysMatching(redis, `${namespace}:*`)).toEqual([]);
  });
});
