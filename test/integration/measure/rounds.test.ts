import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoplightV5 } from '../../../src/layouts/stoplight/v5.js';
import { StoplightV6 } from '../../../src/layouts/stoplight/v6.js';
import { APP_VIEW_RME_BOUND, measureAppView } from '../../../src/measure/app-view.js';
import { measureThroughputRounds, spreadOf, type RoundsProgress } from '../../../src/measure/throughput.js';
import { NOISY_SPREAD, type Spread } from '../../../src/measure/types.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { RespConnection } from '../../../src/redis/resp.js';
import { execPipeline, installScripts } from '../../../src/redis/scripts.js';
import { EventClock } from '../../../src/traffic/event-clock.js';
import { createRng } from '../../../src/traffic/random.js';
import { HOUR_START, redisUrl, uniqueName } from '../../helpers.js';

const v5 = new StoplightV5({ prefix: `${uniqueName('rounds')}:stoplight:v5` });
const v6 = new StoplightV6({ prefix: `${uniqueName('rounds')}:stoplight:v6` });
let session: Session;

beforeAll(async () => {
  session = await openSession({ redisUrl: redisUrl() });
  await installScripts(session.redis, [...v5.scripts, ...v6.scripts]);
});
afterAll(() => session.close());

function expectSpread(s: Spread): void {
  expect(s.min).toBeLessThanOrEqual(s.median);
  expect(s.median).toBeLessThanOrEqual(s.max);
  expect(s.noisy).toBe(s.spreadFraction > NOISY_SPREAD);
}

describe('measureThroughputRounds', () => {
  it('alternates the layouts round by round in every phase, and reports medians, ranges and per-round ratios', async () => {
    const light5 = { name: uniqueName('a') };
    const light6 = { name: uniqueName('b') };
    const seen: string[] = [];
    const results = await measureThroughputRounds({
      redis: session,
      targets: [
        { layout: v5, lights: [light5], windowSeconds: 60, rate: 10, startAt: HOUR_START, failureRate: 0.5 },
        { layout: v6, lights: [light6], windowSeconds: 60, rate: 10, startAt: HOUR_START, failureRate: 0.5 },
      ],
      connections: 2,
      rounds: 3,
      ops: 90,
      onProgress: (p: RoundsProgress) => {
        const step = `${p.phase} ${p.round} ${p.target}`;
        if (seen.at(-1) !== step) seen.push(step);
      },
    });
    const expected = ['write', 'read', 'request'].flatMap((phase) => [0, 1, 2].flatMap((round) => [0, 1].map((t) => `${phase} ${round} ${t}`)));
    expect(seen).toEqual(expected);
    for (const r of results) {
      expect(r.rounds).toBe(3);
      for (const op of ['write', 'read', 'request'] as const) {
        const stats = r[op];
        // 90 ops split 30 + 30 + 30 over the rounds, summed back.
        expect(stats.ops).toBe(90);
        expect(stats.rounds?.count).toBe(3);
        expectSpread(stats.rounds!.opsPerSec);
        expect(stats.opsPerSec).toBe(stats.rounds!.opsPerSec.median);
        expect(stats.serverUsecPerCall).toBe(stats.rounds!.serverUsecPerCall!.median);
        expect(stats.noisy).toBe(stats.rounds!.opsPerSec.noisy || stats.rounds!.serverUsecPerCall!.noisy);
      }
    }
    expect(results[0]!.ratio).toBeUndefined();
    const ratio = results[1]!.ratio!;
    expect(ratio.reference).toBe(v5.name);
    for (const s of [ratio.write, ratio.read, ratio.request, ratio.serverUsecPerRequest!]) expectSpread(s);
    // Each target's clock moved by its own writes only: 90 writes + 90 requests at 10/s on one light.
    expect(results[0]!.clockEndAt).toBe(new Date((HOUR_START + 18) * 1000).toISOString().replace('.000Z', 'Z'));
    expect(results[1]!.clockEndAt).toBe(results[0]!.clockEndAt);
    expect(await session.redis.zcount(v5.keysOf(light5, HOUR_START, HOUR_START + 18).find((k) => k.role !== 'metadata')!.key, '-inf', '+inf')).toBeGreaterThan(
      0,
    );
  });

  it('opens exactly --connections load sockets next to the session (no ioredis connection beside each)', async () => {
    // A private server: other test files' clients do not land in its CLIENT LIST.
    const own = await openSession();
    try {
      const watcher = await own.connectAnother();
      await installScripts(own.redis, v6.scripts);
      const counts: Promise<number>[] = [];
      await measureThroughputRounds({
        redis: own,
        targets: [{ layout: v6, lights: [{ name: uniqueName('c') }], windowSeconds: 60, rate: 10, startAt: HOUR_START }],
        connections: 4,
        rounds: 1,
        seconds: 0.6,
        onProgress: () => {
          counts.push(watcher.client('LIST').then((list) => String(list).trim().split('\n').length));
        },
      });
      const seen = await Promise.all(counts);
      expect(seen.length).toBeGreaterThan(0);
      // The session's connection, the watcher, and four load sockets.
      expect(Math.max(...seen)).toBe(6);
    } finally {
      await own.close();
    }
  });

  it('a load socket opens with a password the server does not need (as ioredis does)', async () => {
    const connection = await RespConnection.open({ ...session.redis.options, password: 'not-needed' });
    try {
      expect(await connection.call([['PING']])).toEqual(['PONG']);
    } finally {
      connection.close();
    }
  });

  it('spreadOf: median, min, max, and noisy past 25%', () => {
    expect(spreadOf([10, 12, 11])).toEqual({ median: 11, min: 10, max: 12, spreadFraction: 2 / 11, noisy: false });
    expect(spreadOf([10, 14, 11, 9])).toMatchObject({ median: 10.5, min: 9, max: 14, noisy: true });
  });
});

describe('measureAppView', () => {
  it('times one request at a time through ioredis, a read then a write, per layout', async () => {
    const light = { name: uniqueName('app') };
    const clock = new EventClock([light], 10, HOUR_START);
    const context = { layout: v6, clock, windowSeconds: 3600, failureRate: 0, errorJson: '{}', rng: createRng(1) };
    const views = await measureAppView({ redis: session.redis, targets: [{ name: 'v6', context }], timeMs: 150, rounds: 2 });
    const view = views.get('v6')!;
    expect(view.samples).toBeGreaterThan(0);
    expect(view.meanMs).toBeGreaterThan(0);
    expect(view.p50Ms).toBeLessThanOrEqual(view.p99Ms);
    expect(Number.isFinite(view.rmePercent)).toBe(true);
    expect(view.opsPerSec).toBeCloseTo(1000 / view.meanMs);
    // Extra rounds ran while the margin was above the bound; what is still above it says so.
    expect(view.noisy).toBe(view.rmePercent > APP_VIEW_RME_BOUND);
    // Every timed request wrote one event (warm-up ones too), all inside the hour-long window.
    const [[, reply]] = (await execPipeline(session.redis, [v6.getMetrics(light, { windowSeconds: 3600, at: clock.now })])) as [[null, unknown]];
    const snapshot = v6.parseMetrics(reply);
    expect(snapshot.successes).toBe(clock.events);
    expect(clock.events).toBeGreaterThanOrEqual(view.samples);
  });
});
