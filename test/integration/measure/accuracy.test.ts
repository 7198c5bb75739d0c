import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccuracyLane } from '../../../src/bench/accuracy.js';
import { createNamespace } from '../../../src/run/namespace.js';
import { runBench } from '../../../src/bench/run.js';
import { runBenchPerLayout } from '../../../src/bench/suggest-run.js';
import { createLayout } from '../../../src/layouts/index.js';
import { accuracyEvents, measureAccuracy } from '../../../src/measure/accuracy.js';
import type { BenchReport } from '../../../src/measure/types.js';
import { ServerStartError } from '../../../src/core/errors.js';
import { installScripts } from '../../../src/redis/scripts.js';
import { openSession, type Session } from '../../../src/redis/connect.js';
import { renderBench } from '../../../src/report/bench.js';
import { alive, HOUR_START, redisUrl, testRedis, uniqueName } from '../../helpers.js';

let redis: Redis;
let session: Session;
beforeAll(async () => {
  redis = await testRedis();
  session = await openSession({ redisUrl: redisUrl() });
});
afterAll(() => session.close());

/**
 * 20% failures, and all failures for 0.15 windows: with the window full the exact ratio is 0.32, then falls
 * to 0.2 as the incident leaves, crossing 0.28; coarse drops the incident's first bucket early (about 0.23
 * while the exact ratio is still 0.32), two-window still weighs most of it (about 0.29 once the exact is 0.2).
 */
async function accuracyOf(name: string, windowSeconds: number, rate: number) {
  const layout = createLayout(name);
  await installScripts(redis, layout.scripts);
  const light = { name: uniqueName(`acc-${name}`) };
  const measured = await measureAccuracy(redis, layout, light, { windowSeconds, rate, failureRate: 0.2, seed: 3, threshold: 0.28, startAt: HOUR_START });
  await redis.del(...layout.keysOf(light, HOUR_START, measured.endAt).map((k) => k.key));
  return measured;
}

/** A memory-only plan of six small cells, two of them approximate layouts (a nonzero error to compare). */
const lanePlan = {
  layouts: ['stoplight-v6', 'coarse', 'two-window'],
  windows: [20, 40],
  rates: [10],
  failureRate: 0.2,
  lights: 1,
  seed: 5,
  accuracy: { threshold: 0.3 },
};

/** Each cell's accuracy figures (its wall time aside). */
const figures = (r: BenchReport) =>
  r.results.map((x) => [
    x.layout,
    x.windowSeconds,
    x.accuracy?.reads,
    x.accuracy?.maxAbsError,
    x.accuracy?.meanAbsError,
    x.accuracy?.decisionMismatchFraction,
    x.accuracy?.events,
  ]);

describe('measureAccuracy', () => {
  it.each(['stoplight-v5', 'stoplight-v6', 'sliding-log', 'ring', 'packed'])('%s (exact): zero error and no decision differs over every read', async (name) => {
    const { accuracy } = await accuracyOf(name, 60, 10);
    expect(accuracy).toMatchObject({ reads: 240, maxAbsError: 0, meanAbsError: 0, threshold: 0.28, decisionMismatchFraction: 0, events: 750 });
    expect(accuracy.durationSeconds).toBeGreaterThan(0);
  });

  it.each(['coarse', 'two-window'])(
    '%s (approximate): the incident leaving the window is miscounted, so the error is nonzero and some decisions differ',
    async (name) => {
      // The incident (all failures, seconds 3–12 of a 60 s window) leaves the window from 63 s:
      // coarse drops the 10 s bucket holding seconds 3–9 whole at 60 s, two-window still weighs the fixed window [0, 60) that held it.
      const { accuracy } = await accuracyOf(name, 60, 10);
      expect(accuracy.reads).toBe(240);
      expect(accuracy.maxAbsError).toBeGreaterThan(0.03);
      expect(accuracy.maxAbsError).toBeLessThan(0.5);
      expect(accuracy.meanAbsError).toBeGreaterThan(0);
      expect(accuracy.meanAbsError).toBeLessThan(accuracy.maxAbsError);
      // Decisions differ only around the incident leaving the window.
      expect(accuracy.decisionMismatchFraction).toBeGreaterThan(0);
      expect(accuracy.decisionMismatchFraction).toBeLessThan(0.2);
    },
  );

  it("probes the layout's server time per write and per read (INFO commandstats on the test server)", async () => {
    const { serverCost } = await accuracyOf('ring', 60, 10);
    expect(serverCost?.calls).toBe(500);
    expect(serverCost?.writeUsecPerCall).toBeGreaterThan(0);
    expect(serverCost?.readUsecPerCall).toBeGreaterThan(0);
    expect(serverCost?.requestUsecPerCall).toBeCloseTo((serverCost?.writeUsecPerCall ?? 0) + (serverCost?.readUsecPerCall ?? 0), 9);
  });
});

describe('bench: accuracy by default', () => {
  it('each result carries its accuracy, the table shows it, and the accuracy light leaves no key behind', async () => {
    const namespace = createNamespace();
    const report = await runBench({
      session,
      plan: { layouts: ['packed', 'two-window'], windows: [30], rates: [5], failureRate: 0.2, lights: 1, seed: 1, accuracy: { threshold: 0.4 } },
      namespace,
    });
    expect(report.results.map((r) => [r.layout, r.accuracy?.reads, r.accuracy?.threshold])).toEqual([
      ['packed', 240, 0.4],
      ['two-window', 240, 0.4],
    ]);
    expect(report.results[0]?.accuracy?.maxAbsError).toBe(0);
    expect(report.results[1]?.accuracy?.maxAbsError).toBeGreaterThan(0);
    expect(report.results.every((r) => (r.serverCost?.requestUsecPerCall ?? 0) > 0)).toBe(true);
    expect(await redis.keys(`${namespace.prefix}:*`)).toEqual([]);
    const table = renderBench(report, 'markdown', false);
    expect(table).toContain('| window | req/s | layout | reads | max error | mean error | decides differently at 0.4 | server µs/request |');
    expect(table).toMatch(/\| 30 s \| 5 \| packed \| 240 \| 0\.0000 \| 0\.0000 \| 0\.00% \| [0-9.]+ \|/);
    expect(renderBench(report, 'csv', false).split('\n')[0]).toMatch(
      /,accuracyReads,accuracyMaxAbsError,accuracyMeanAbsError,accuracyThreshold,accuracyDecisionMismatchFraction,serverWriteUsecPerCall,serverReadUsecPerCall,writeCommandsPerCall,.*,readCommands,writeInstructionsPerCall,/,
    );
  });

  it('on a private server the accuracy phases run on a second private server beside the fill: the same figures as in line on a given server, cells reported in order, the second server stopped at the end', async () => {
    const plan = lanePlan;
    const inline = await runBench({ session, plan, namespace: createNamespace() });
    const started: number[] = [];
    const done: number[] = [];
    const privateSession = await openSession();
    const server = privateSession.server;
    if (!server) throw new Error('expected a private server');
    // Record the lane's server as it starts, to check it is gone afterwards.
    const lanes: { pid: number; port: number }[] = [];
    const startSibling = server.startSibling.bind(server);
    (server as { startSibling: typeof startSibling }).startSibling = async () => {
      const sibling = await startSibling();
      lanes.push({ pid: sibling.pid, port: sibling.port });
      return sibling;
    };
    let laned: BenchReport;
    try {
      laned = await runBench({
        session: privateSession,
        plan,
        namespace: createNamespace(),
        progress: { onCellStart: (_cell, i) => started.push(i), onCellDone: (_result, i) => done.push(i) },
      });
    } finally {
      await privateSession.close();
    }
    expect(lanes).toHaveLength(1);
    expect(alive(lanes[0]?.pid ?? -1)).toBe(false);
    expect(figures(laned)).toEqual(figures(inline));
    // Approximate layouts were really measured (a figure of zero everywhere would match too).
    expect(laned.results.some((x) => (x.accuracy?.maxAbsError ?? 0) > 0)).toBe(true);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(done).toEqual([0, 1, 2, 3, 4, 5]);
    expect(laned.results.every((x) => (x.serverCost?.requestUsecPerCall ?? 0) > 0)).toBe(true);
    // Script time per server, apart: the lane's is reported beside the run's own; in line there is none.
    expect(inline.accuracyServerScriptSeconds).toBeUndefined();
    expect(laned.accuracyServerScriptSeconds ?? 0).toBeGreaterThan(0);
    expect(laned.serverScriptSeconds ?? 0).toBeGreaterThan(0);
  });

  it("the accuracy phases start with the run, and once the run's own server has filled every cell it takes the phases the lane has not started", async () => {
    const inline = await runBench({ session, plan: lanePlan, namespace: createNamespace() });
    const privateSession = await openSession();
    const server = privateSession.server;
    if (!server) throw new Error('expected a private server');
    // The lane's first phase is held at a gate until the test opens it: every other phase can only run on the run's
    // own server. (A CLIENT PAUSE WRITE on the lane's server held it before; its write gave up after the accuracy
    // connection's 10 s reply timeout whenever the other phases took longer, as on a loaded machine.)
    let lanePort: number | undefined;
    const startSibling = server.startSibling.bind(server);
    (server as { startSibling: typeof startSibling }).startSibling = async () => {
      const sibling = await startSibling();
      lanePort = sibling.port;
      return sibling;
    };
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = 0;
    const runNow = AccuracyLane.prototype.runNow;
    AccuracyLane.prototype.runNow = async function <T>(this: AccuracyLane, work: (redis: Redis) => Promise<T>, what?: string): Promise<T> {
      const own = (this as unknown as { server: { port: number } }).server.port === lanePort;
      if (own && (held += 1) === 1) await gate;
      return runNow.call(this, work, what) as Promise<T>;
    };
    let written = 0;
    let total = 0;
    const done: number[] = [];
    let laned: Promise<BenchReport> | undefined;
    try {
      laned = runBench({
        session: privateSession,
        plan: lanePlan,
        namespace: createNamespace(),
        progress: { onEvents: (n, of) => ((written = n), (total = of)), onCellDone: (_result, i) => done.push(i) },
      });
      // Every event but the first cell's accuracy light's: the fills and five accuracy phases, all on the run's own server.
      const firstCellAccuracy = accuracyEvents(20, 10);
      // A guard against waiting for ever, not a speed bound.
      const deadline = Date.now() + 120_000;
      while (!(total > 0 && written === total - firstCellAccuracy) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(written).toBe(total - firstCellAccuracy);
      // The lane started its first phase (held at the gate) and no other.
      expect(held).toBe(1);
      // Cells are reported in order: the first waits for its phase on the lane.
      expect(done).toEqual([]);
      open();
      const report = await laned;
      expect(figures(report)).toEqual(figures(inline));
      expect(done).toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      open();
      AccuracyLane.prototype.runNow = runNow;
      await laned?.catch(() => undefined);
      await privateSession.close();
    }
  });

  it('in line (a given server): each group of cells is reported before the next group starts', async () => {
    const events: string[] = [];
    await runBench({
      session,
      plan: { layouts: ['packed', 'two-window'], windows: [20, 40], rates: [5], failureRate: 0.2, lights: 1, seed: 2, accuracy: { threshold: 0.3 } },
      namespace: createNamespace(),
      progress: { onCellStart: (_cell, i) => events.push(`start ${i}`), onCellDone: (_result, i) => events.push(`done ${i}`) },
    });
    expect(events).toEqual(['start 0', 'start 1', 'done 0', 'done 1', 'start 2', 'start 3', 'done 2', 'done 3']);
  });

  it('--suggest runs accuracy in line on a private server too (no second server): its ranking weighs each probe, which then has the machine to itself', async () => {
    const privateSession = await openSession();
    const server = privateSession.server;
    if (!server) throw new Error('expected a private server');
    let siblings = 0;
    const startSibling = server.startSibling.bind(server);
    (server as { startSibling: typeof startSibling }).startSibling = async () => {
      siblings += 1;
      return startSibling();
    };
    try {
      const { report } = await runBenchPerLayout({
        session: privateSession,
        plan: { layouts: ['packed', 'two-window'], windows: [20], rates: [5], failureRate: 0.2, lights: 1, seed: 2, accuracy: { threshold: 0.3 } },
        namespace: createNamespace(),
      });
      expect(report.results.map((r) => [r.layout, r.accuracy?.reads])).toEqual([
        ['packed', 240],
        ['two-window', 240],
      ]);
      expect(report.accuracyServerScriptSeconds).toBeUndefined();
      expect(siblings).toBe(0);
    } finally {
      await privateSession.close();
    }
  });

  it("when the second private server does not start, a warning says so and the accuracy phases run in line on the run's server", async () => {
    const privateSession = await openSession();
    const server = privateSession.server;
    if (!server) throw new Error('expected a private server');
    (server as { startSibling: typeof server.startSibling }).startSibling = () => Promise.reject(new ServerStartError('redis-server exited at once (a test)'));
    const warnings: string[] = [];
    try {
      const report = await runBench({
        session: privateSession,
        plan: { layouts: ['two-window'], windows: [20], rates: [5], failureRate: 0.2, lights: 1, seed: 2, accuracy: { threshold: 0.3 } },
        namespace: createNamespace(),
        progress: { onWarning: (message) => warnings.push(message) },
      });
      expect(warnings).toEqual([
        "a second private server for the accuracy phases did not start (redis-server exited at once (a test)); they run on the run's own server, after each cell",
      ]);
      expect(report.results[0]?.accuracy?.maxAbsError).toBeGreaterThan(0);
      expect(report.accuracyServerScriptSeconds).toBeUndefined();
    } finally {
      await privateSession.close();
    }
  });
});
