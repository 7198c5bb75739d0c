import type { Redis } from 'ioredis';
import { otherLiveRuns } from '../../run/namespace.js';
import { redisOf } from '../shards.js';
import type { Readings, RunContext } from './context.js';
import { DisturbedCellError } from './errors.js';
import { disturbedOf, readCounters } from './on-shards.js';

/**
 * Fails `cell` when a server was disturbed between the last reading and
 * `now` (an eviction, a pause, a restart), and makes `now` the last reading.
 */
export function checkReading(ctx: RunContext, now: Readings, cell: string, what: string): void {
  const found = disturbedOf(ctx.target, ctx.last, now);
  ctx.last = ctx.last.map((r, i) => now[i] ?? r);
  if (found.length > 0) {
    throw new DisturbedCellError(`${cell} failed during its ${what}: ${found.join('; ')}; a figure taken then would be wrong, so none is reported`);
  }
}

/** Fails the cell when a server was disturbed since the last reading. */
export async function watch(ctx: RunContext, cell: string, what: string): Promise<void> {
  checkReading(ctx, await readCounters(ctx.target), cell, what);
}

/** The servers whose alive keys say which other runs are live: every primary of a cluster (they may sit on any). */
export function everyNode(ctx: RunContext): Redis | Redis[] {
  // Counters are read on the session's own connection: the fill writes on a
  // connection of its own and the load on lean sockets of its own, so this
  // one is idle while they run (and no extra client counts against maxclients).
  return ctx.target.cluster ? redisOf(ctx.target) : ctx.session.redis;
}

/** Fails the cell when another swc run wrote to the server while it ran. */
export async function liveOthers(ctx: RunContext, cell: string): Promise<void> {
  const found = (await otherLiveRuns(everyNode(ctx), ctx.namespace)).filter((o) => o.state === 'writing');
  if (found.length > 0) {
    throw new DisturbedCellError(
      `${cell} failed: another swc run wrote to this server while it ran (${found.map((o) => o.prefix).join(', ')}); its writes would land in this cell's figures`,
    );
  }
}
