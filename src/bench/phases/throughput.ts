import { measureThroughputRounds, type ThroughputPhase } from '../../measure/throughput.js';
import type { ThroughputResult } from '../../measure/types.js';
import { errorJsonFor } from '../../traffic/events.js';
import type { Cell, ThroughputPlan } from '../plan.js';
import { eventsSoFar, type Filled, type Readings, type RunContext } from './context.js';
import { checkReading, watch } from './disturbance.js';
import { readCounters } from './on-shards.js';

/**
 * The throughput phase of a group (the filled cells of one window and rate):
 * their layouts interleaved round by round on the filled lights, then every
 * reading taken at a phase change checked for a disturbance, so a pause is
 * blamed on the phase it fell in. Nothing runs beside it: the accuracy
 * lane's phases end first.
 */
export async function throughputPhase(
  ctx: RunContext,
  throughput: ThroughputPlan,
  group: readonly Cell[],
  filled: readonly Filled[],
  groupName: string,
): Promise<ThroughputResult[]> {
  const { target, plan, progress } = ctx;
  await ctx.lane?.drain();
  let failures = 0;
  let phase: ThroughputPhase | undefined;
  // A reading at each phase change, so a pause is blamed on the phase it fell in.
  const readings: { phase: ThroughputPhase; reading: Promise<Readings> }[] = [];
  const where = `in ${groupName} ${eventsSoFar(ctx)}`;
  const first = filled[0] as Filled;
  const results = await measureThroughputRounds({
    redis: target.cluster ? target : ctx.session,
    targets: filled.map((f) => ({
      layout: f.layout,
      // Lights a preset cell added for steadier bytes stay out of the throughput phase.
      lights: f.lights.slice(0, plan.lights),
      windowSeconds: f.cell.windowSeconds,
      rate: f.cell.rate,
      startAt: f.span.to,
      failureRate: plan.failureRate,
      seed: plan.seed,
      errorJson: (at: number) => errorJsonFor(at, failures++, f.layout.stampPrecision),
    })),
    connections: throughput.connections,
    pipeline: throughput.pipeline,
    rounds: throughput.rounds ?? 1,
    ...(throughput.ops !== undefined ? { ops: throughput.ops } : { seconds: throughput.seconds }),
    ...(throughput.appViewMs ? { appViewMs: throughput.appViewMs } : {}),
    ...(throughput.maxOpsPerSecond !== undefined ? { maxOpsPerSecond: throughput.maxOpsPerSecond } : {}),
    ...(throughput.percentiles ? { percentiles: throughput.percentiles } : {}),
    ...(ctx.run.signal ? { signal: ctx.run.signal } : {}),
    onProgress: (p) => {
      progress?.onThroughput?.(group, p);
      if (p.phase === phase) return;
      if (phase) readings.push({ phase, reading: readCounters(target) });
      progress?.onPhase?.(first.cell, (phase = p.phase), group);
    },
  }).catch((err: unknown) => {
    ctx.failing = { layouts: filled.map((f) => f.layout), phase: 'throughput' };
    throw ctx.withContext(err, `${where}, throughput phase ${phase ?? 'write'}`);
  });
  for (const { phase: ended, reading } of readings) checkReading(ctx, await reading, groupName, `${ended} throughput phase`);
  await watch(ctx, groupName, `${phase ?? 'request'} throughput phase`);
  return results;
}
