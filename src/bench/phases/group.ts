import type { Cell } from '../plan.js';
import type { Filled, RunContext } from './context.js';
import { liveOthers } from './disturbance.js';
import { finishCell } from './cell.js';
import type { ReportQueue } from './queue.js';
import { throughputPhase } from './throughput.js';

/**
 * The cells in groups of one window and rate, in plan order: a group's
 * layouts each get their memory phase, then share their throughput phases,
 * interleaved round by round.
 */
export function groupsOf(cells: readonly Cell[]): Cell[][] {
  const groups: Cell[][] = [];
  for (const cell of cells) {
    const last = groups.at(-1);
    const head = last?.[0];
    if (last && head && head.windowSeconds === cell.windowSeconds && head.rate === cell.rate) last.push(cell);
    else groups.push([cell]);
  }
  return groups;
}

/** How messages name a group: as its one cell, or as a range of cells. */
function groupNameOf(ctx: RunContext, filled: readonly Filled[]): string {
  const first = filled[0] as Filled;
  const last = filled.at(-1) as Filled;
  if (filled.length === 1) return first.name;
  const layouts = filled.map((f) => f.cell.layout).join(', ');
  return `cells ${first.index + 1}-${last.index + 1}/${ctx.cells.length} (${layouts}, window ${first.cell.windowSeconds} s at ${first.cell.rate}/s)`;
}

/**
 * A group's phases after its memory phases: the throughput phase, the check
 * that no other run wrote meanwhile, then each cell's commands per call,
 * accuracy and clean-up; reports the cells that are done.
 */
export async function finishGroup(
  ctx: RunContext,
  group: readonly Cell[],
  filled: readonly Filled[],
  commandsSkipped: string | undefined,
  queue: ReportQueue,
): Promise<void> {
  if (filled.length === 0) return;
  const groupName = groupNameOf(ctx, filled);
  const throughputs = ctx.plan.throughput ? await throughputPhase(ctx, ctx.plan.throughput, group, filled, groupName) : undefined;
  await liveOthers(ctx, groupName);
  for (const [i, f] of filled.entries()) await finishCell(ctx, f, throughputs?.[i], commandsSkipped, queue);
  // Reported in cell order, once measured and cleaned up: a group at once,
  // or, with the lane, each cell once its accuracy phase has ended.
  await queue.report(false);
}
