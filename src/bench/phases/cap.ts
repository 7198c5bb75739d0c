import type { Redis } from 'ioredis';
import type { Layout, Light } from '../../layouts/types.js';
import { measureCommandsPerCall } from '../../measure/commandstats.js';
import { capConnection, capOf, CommandCap } from '../../redis/command-cap.js';
import type { Target } from '../../redis/target.js';
import { errorJsonFor } from '../../traffic/events.js';
import type { BenchPlan, Cell } from '../plan.js';

/** Calls of each operation whose commands are counted before a capped run fills: the most of them sets the charge. */
const LEARN_CALLS = 10;

/**
 * The run's command cap (`--max-ops`), on every primary's connection: the
 * one its session was opened with (so the handshake, the preflight and the
 * turn-taking counted too), or a new one for a library caller that gave a
 * plan with a cap and its own session. Undefined without a cap.
 */
export function commandCapOf(target: Target, plan: Pick<BenchPlan, 'maxOpsPerSecond'>): CommandCap | undefined {
  if (plan.maxOpsPerSecond === undefined) return undefined;
  const first = target.shards[0]?.session.redis;
  const cap = (first && capOf(first)) ?? new CommandCap(plan.maxOpsPerSecond);
  for (const shard of target.shards) capConnection(shard.session.redis, cap);
  return cap;
}

/**
 * Counts the commands of `layout`'s write, failure and read on `light`, a
 * light whose window is full (so writes evict as a cell's do), from `from`
 * on, 1/rate seconds apart, and charges each script the most seen (its
 * EVALSHA included) from then on. The counts come from INFO commandstats
 * around each call on the run's own server: on a shared one another
 * client's commands may land in between and count as the call's, which only
 * makes the cap stricter. Returns the clock after the calls.
 */
export async function learnCommands(redis: Redis, cap: CommandCap, layout: Layout, light: Light, cell: Cell, from: number): Promise<number> {
  let at = from;
  const step = 1 / cell.rate;
  let failures = 0;
  const { LayoutClient } = await import('../../layouts/client.js');
  const client = await LayoutClient.open(redis, layout);
  const ops: [string, () => Promise<unknown>][] = [
    [
      layout.recordSuccess(light, { windowSeconds: cell.windowSeconds, at }).script.sha1,
      () => client.recordSuccess(light, { windowSeconds: cell.windowSeconds, at: (at += step) }),
    ],
    [
      layout.recordFailure(light, { windowSeconds: cell.windowSeconds, at, errorJson: '{}' }).script.sha1,
      () =>
        client.recordFailure(light, { windowSeconds: cell.windowSeconds, at: (at += step), errorJson: errorJsonFor(at, failures++, layout.stampPrecision) }),
    ],
    [
      layout.getMetrics(light, { windowSeconds: cell.windowSeconds, at }).script.sha1,
      () => client.getMetrics(light, { windowSeconds: cell.windowSeconds, at: (at += step) }),
    ],
  ];
  for (const [sha1, run] of ops) {
    const measured = await measureCommandsPerCall(redis, run, LEARN_CALLS);
    // INFO refused: the scripts keep the conservative charge.
    if (measured) cap.learn(sha1, Math.max(1, Math.ceil(measured.scriptCalls)) + measured.commands.max);
  }
  return at;
}
