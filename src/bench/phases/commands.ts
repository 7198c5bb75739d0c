import type { Redis } from 'ioredis';
import { LayoutClient } from '../../layouts/client.js';
import type { Layout, Light } from '../../layouts/types.js';
import { measureCommandsPerCall, type CommandsPerCall } from '../../measure/commandstats.js';
import type { CellCommands } from '../../measure/types.js';
import { errorJsonFor } from '../../traffic/events.js';
import type { BenchPlan, Cell } from '../plan.js';
import type { Target } from '../../redis/target.js';
import { redisOf } from '../shards.js';
import type { RunHandle } from '../../run/namespace.js';
import type { Filled, RunContext, Span } from './context.js';

/** Calls of each operation that commands per call is taken over: few, since each is exact. */
export const COMMANDS_CALLS = 10;

/** Why a run reports no commands per call; undefined when it does. */
export function commandsSkippedReason(target: Target, plan: Pick<BenchPlan, 'commandsPerCall'>): string | undefined {
  if (plan.commandsPerCall === false) return 'not measured: --no-commands';
  if (target.cluster) return 'not measured on a cluster: INFO commandstats is per node, and each call runs on one';
  if (!target.private) return "not measured on a shared server (--redis-url): other clients' commands would count in INFO commandstats as the layout's";
  return undefined;
}

/**
 * Commands per call of a cell's write, failure and read, on one of its filled
 * lights, from `from` on, 1/rate seconds apart (steady state: the window is
 * full, so each write evicts as the cell's own writes did). Each op is
 * measured up to three times until two agree. The run's own heartbeat (a SET
 * of its alive key every few seconds, the only other client of swc's private
 * server) is held during each reading, so it never counts as the layout's.
 */
export async function cellCommands(
  redis: Redis,
  layout: Layout,
  light: Light,
  cell: Cell,
  from: number,
  heartbeat: Pick<RunHandle, 'quiet'>,
): Promise<{ commands: CellCommands | undefined; until: number }> {
  const client = await LayoutClient.open(redis, layout);
  let at = from;
  const step = 1 / cell.rate;
  let failures = 0;
  const ops = {
    write: () => client.recordSuccess(light, { windowSeconds: cell.windowSeconds, at: (at += step) }),
    failure: () =>
      client.recordFailure(light, { windowSeconds: cell.windowSeconds, at: (at += step), errorJson: errorJsonFor(at, failures++, layout.stampPrecision) }),
    read: () => client.getMetrics(light, { windowSeconds: cell.windowSeconds, at: (at += step) }),
  };
  const measured: Partial<Record<keyof typeof ops, CommandsPerCall>> = {};
  for (const [op, run] of Object.entries(ops) as [keyof typeof ops, () => Promise<unknown>][]) {
    const seen: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await heartbeat.quiet(() => measureCommandsPerCall(redis, run, COMMANDS_CALLS));
      if (!result) return { commands: undefined, until: at };
      measured[op] = result;
      const text = JSON.stringify(result);
      if (seen.includes(text)) break;
      seen.push(text);
    }
  }
  const { write, failure, read } = measured;
  return { commands: write && failure && read ? { write, failure, read } : undefined, until: at };
}

/**
 * The commands-per-call phase of a filled cell, after its throughput phase
 * (whose clock ended at `clockSpan.to`): nothing when the run skips it or the
 * cell ran on real traffic. Returns the span the cell's keys cover once its
 * writes are in.
 */
export async function commandsPhase(
  ctx: RunContext,
  f: Filled,
  clockSpan: Span,
  skipped: string | undefined,
): Promise<{ commands?: CellCommands; clockSpan: Span }> {
  const costLight = f.lights[0];
  if (skipped !== undefined || !costLight || f.realtime) return { clockSpan };
  const probe = await cellCommands(redisOf(ctx.target)[0] as Redis, f.layout, costLight, f.cell, clockSpan.to, ctx.heartbeat).catch((err: unknown) => {
    // The first phase after memory that calls a cell's scripts again: a script error here keeps the memory figures too.
    ctx.failing ??= { layouts: [f.layout], phase: 'commands-per-call' };
    throw ctx.withContext(err, `in ${f.name}, commands-per-call phase`);
  });
  // Its writes went past the cell's clock: their keys are deleted with the cell's.
  return { ...(probe.commands ? { commands: probe.commands } : {}), clockSpan: { ...clockSpan, to: Math.ceil(probe.until) + 1 } };
}
