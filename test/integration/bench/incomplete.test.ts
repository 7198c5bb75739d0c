import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace } from '../../../src/run/namespace.js';
import type { BenchPlan } from '../../../src/bench/plan.js';
import { IncompleteBenchError, runBench } from '../../../src/bench/run.js';
import { connect, openSession, type Session } from '../../../src/redis/connect.js';
import { plantBug, plantRefusedZero } from '../verify/plant.js';

let session: Session;
beforeAll(async () => {
  // A private server: bench names the rejected command there (MONITOR), as verify does.
  session = await openSession();
});
afterAll(() => session.close());

const plan = (scriptsDir: string, overrides: Partial<BenchPlan> = {}): BenchPlan => ({
  layouts: ['stoplight-v6'],
  windows: [60, 120],
  rates: [10],
  // Every evicted bucket holds no failure: the first eviction sends "-0".
  failureRate: 0,
  lights: 1,
  seed: 3,
  scriptsDir,
  accuracy: { threshold: 0.5 },
  ...overrides,
});

describe('a script error after the memory phase', () => {
  it('keeps the memory figures of every cell measured, says where it stopped and names the "-0" rejection as verify does', async () => {
    // Without the commands-per-call phase, which would call the scripts first (the CLI test covers that phase).
    const err = await runBench({
      session,
      plan: plan(plantRefusedZero(), { commandsPerCall: false }),
      namespace: createNamespace(),
      accuracyInLine: true,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IncompleteBenchError);
    const { report } = err as IncompleteBenchError;
    expect((err as IncompleteBenchError).exitCode).toBe(3);
    // In line, the first cell's accuracy phase fails before the second cell fills.
    expect(report.results.map((r) => [r.layout, r.windowSeconds])).toEqual([['stoplight-v6', 60]]);
    for (const r of report.results) {
      expect(r.memory.bytesPerLight).toBeGreaterThan(0);
      expect(r.accuracy).toBeUndefined();
    }
    expect(report.incomplete).toMatchObject({ layout: 'stoplight-v6', phase: 'accuracy', cause: { id: 'negative-zero', name: '"-0" rejected' } });
    expect(report.incomplete.error).toMatch(/not an integer/);
    expect(report.incomplete.rejected).toMatch(/^HINCRBY "[^"]*window_metrics" "total_failures" "-0"$/);
    expect((err as IncompleteBenchError).message).toMatch(/^"-0" rejected: /);
  });

  it("on the accuracy lane (phases started with the run): the failure is reported at its cell's turn, with the memory figures measured by then", async () => {
    // The lane reaches the first eviction long before the run's own server has filled the first cell; the report is the one in line gives.
    const err = await runBench({ session, plan: plan(plantRefusedZero(), { commandsPerCall: false }), namespace: createNamespace() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IncompleteBenchError);
    const { report } = err as IncompleteBenchError;
    expect(report.results[0]?.windowSeconds).toBe(60);
    for (const r of report.results) {
      expect(r.memory.bytesPerLight).toBeGreaterThan(0);
      expect(r.accuracy).toBeUndefined();
    }
    expect(report.incomplete).toMatchObject({ layout: 'stoplight-v6', phase: 'accuracy', cause: { id: 'negative-zero', name: '"-0" rejected' } });
    expect((err as IncompleteBenchError).message).toMatch(/^"-0" rejected: /);
  });

  it("on the accuracy lane, phases failing in two cells: the earliest cell's failure is reported, whichever server ran into its own first", async () => {
    // The lane's writes wait 3 s from its start: meanwhile the run's own server fills every cell and takes the phases
    // left from the last cell back, and fails in cell 4 (stoplight-v6, 120 s) before the lane's first phase is done.
    const server = session.server;
    if (!server) throw new Error('expected a private server');
    const startSibling = server.startSibling.bind(server);
    (server as { startSibling: typeof startSibling }).startSibling = async () => {
      const sibling = await startSibling();
      const lane = await connect(sibling.url);
      await lane.client('PAUSE', 3000, 'WRITE');
      lane.disconnect();
      return sibling;
    };
    try {
      const err = await runBench({
        session,
        plan: plan(plantRefusedZero(), { layouts: ['stoplight-v5', 'stoplight-v6'], commandsPerCall: false }),
        namespace: createNamespace(),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IncompleteBenchError);
      const { report } = err as IncompleteBenchError;
      expect(report.incomplete).toMatchObject({ layout: 'stoplight-v6', phase: 'accuracy', cause: { id: 'negative-zero' } });
      // With a rejected value the error is the replayed call's; the run's own, which names the cell, is stoppedWith.
      expect(report.incomplete.stoppedWith).toContain('cell 2/4 (stoplight-v6, window 60 s at 10/s), accuracy phase');
      // Every cell was filled before the failure was reported; only the first, before it, has its accuracy.
      expect(report.results.map((r) => [r.layout, r.windowSeconds, r.accuracy !== undefined])).toEqual([
        ['stoplight-v5', 60, true],
        ['stoplight-v6', 60, false],
        ['stoplight-v5', 120, false],
        ['stoplight-v6', 120, false],
      ]);
    } finally {
      (server as { startSibling: typeof startSibling }).startSibling = startSibling;
    }
  });

  it('in a throughput phase: the same, with the phase named', async () => {
    const err = await runBench({
      session,
      plan: plan(plantRefusedZero(), { windows: [60], throughput: { connections: 1, pipeline: 1, seconds: 0.5 } }),
      namespace: createNamespace(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IncompleteBenchError);
    const { report } = err as IncompleteBenchError;
    expect(report.results).toHaveLength(1);
    expect(report.results[0]?.throughput).toBeUndefined();
    expect(report.incomplete).toMatchObject({ phase: 'throughput', cause: { id: 'negative-zero' } });
  });

  it('a script error before any memory phase ended is no partial report', async () => {
    const dir = plantBug('stoplight-v6/record_success.lua', 'local metrics_key = KEYS[1]', "local metrics_key = KEYS[1]\nerror('planted')");
    const err = await runBench({ session, plan: plan(dir), namespace: createNamespace() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(IncompleteBenchError);
    expect((err as Error).message).toContain('planted');
  });
});
