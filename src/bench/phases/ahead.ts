import type { Redis } from 'ioredis';
import { namespacedLayout } from '../../layouts/index.js';
import type { Layout } from '../../layouts/types.js';
import type { Cell } from '../plan.js';
import { accuracyInLine, accuracyOn } from './cell-accuracy.js';
import { cellNameOf, layoutOptionsOf, type AheadFailure, type AheadPhases, type AheadResult, type CellAccuracy, type RunContext } from './context.js';

/** How a cell's phase ended: measured, failed, or given up (a phase of an earlier cell failed, or the run is ending). */
type Outcome = AheadResult | { readonly givenUp: true };

/** A cell's phase, not started yet. */
function jobOf(index: number, cell: Cell, layout: Layout, name: string): Job {
  let ended: () => void = () => undefined;
  const job: Job = {
    index,
    cell,
    layout,
    name,
    ended: new Promise<void>((resolve) => (ended = resolve)),
    end: (outcome) => {
      job.outcome ??= outcome;
      ended();
    },
  };
  return job;
}

interface Job {
  readonly index: number;
  readonly cell: Cell;
  readonly layout: Layout;
  readonly name: string;
  outcome?: Outcome;
  /** Settles when `outcome` is set. */
  readonly ended: Promise<void>;
  end(outcome: Outcome): void;
}

/**
 * Every cell's accuracy phase, started as the run starts instead of after
 * the cell's memory phase. A phase needs nothing of its cell's fill (a light
 * of its own, on the lane's server), and in a memory-only run the lane's
 * phases are the longer half: started after each fill, the last cells'
 * phases ran alone after the last fill. The lane takes the phases in cell
 * order; once the run's own server has ended its last memory and commands
 * phases, it takes the phases left from the last cell back
 * ({@link finishInLine}), so the two servers end together.
 *
 * Only without throughput phases (they wait for the lane to be idle) and
 * with a lane. A failure is reported where it would have been in line: at
 * its cell's turn, as soon as the cells before it are reported ({@link ended}
 * says so at once). The phases of later cells are given up; those of earlier
 * cells go on, and the earliest failure is the one reported.
 */
export class AccuracyAhead implements AheadPhases {
  /** Every cell's phase, by cell index. */
  private readonly jobs: Job[];
  /** Phases no server has started, in cell order. */
  private readonly waiting: Job[];
  /** The failed phase of the earliest cell so far. */
  private earliest: AheadFailure | undefined;
  private readonly onLane: Promise<void>;

  private constructor(private readonly ctx: RunContext) {
    this.jobs = ctx.cells.map((cell, index) =>
      jobOf(index, cell, namespacedLayout(cell.layout, ctx.namespace.prefix, layoutOptionsOf(ctx.plan)), cellNameOf(ctx, cell, index)),
    );
    this.waiting = [...this.jobs];
    const lane = ctx.lane;
    this.onLane = lane
      ? this.work(
          () => this.waiting.shift(),
          (job) => lane.runNow((redis) => accuracyOn(ctx, redis, job.cell, job.layout, job.name), `${job.name}'s accuracy phase`),
        )
      : Promise.resolve();
  }

  /** The run's phases ahead on its lane; undefined when the run has no lane, no accuracy phases, or throughput phases. */
  static start(ctx: RunContext): AccuracyAhead | undefined {
    if (!ctx.lane || !ctx.plan.accuracy || ctx.plan.throughput) return undefined;
    return new AccuracyAhead(ctx);
  }

  /** Whether cell `index`'s phase has ended (measured, failed or given up), known at once. */
  ended(index: number): boolean {
    return this.jobs[index]?.outcome !== undefined;
  }

  /** Cell `index`'s accuracy once its phase has ended, or the failure to report in its place (for a phase given up, the earliest one). */
  async result(index: number): Promise<AheadResult> {
    const job = this.jobs[index];
    if (!job) return { accuracy: undefined };
    await job.ended;
    const outcome = job.outcome as Outcome;
    if (!('givenUp' in outcome)) return outcome;
    return { failure: this.earliest ?? { index, layout: job.layout, error: new Error(`${job.name}'s accuracy phase was not run: the run ended first`) } };
  }

  /**
   * Once the run's own server has ended its memory and commands phases:
   * runs the phases the lane has not started there, from the last cell back
   * (each checked for a disturbance after, as a phase in line is), and
   * waits for the lane's.
   */
  async finishInLine(redis: Redis): Promise<void> {
    await this.work(
      () => this.waiting.pop(),
      (job) => accuracyInLine(this.ctx, redis, job.cell, job.layout, job.name),
    );
    await this.onLane;
  }

  /** The run is ending: no phase starts from now on (the one running ends with its server). */
  stop(): void {
    this.giveUp(() => true);
  }

  /** Ends (given up) the waiting phases `which` picks. */
  private giveUp(which: (job: Job) => boolean): void {
    for (let i = this.waiting.length - 1; i >= 0; i -= 1) {
      const job = this.waiting[i] as Job;
      if (!which(job)) continue;
      this.waiting.splice(i, 1);
      job.end({ givenUp: true });
    }
  }

  /** Runs the phases `take` hands out, one at a time, until none is left. */
  private async work(take: () => Job | undefined, measure: (job: Job) => Promise<CellAccuracy | undefined>): Promise<void> {
    for (let job = take(); job; job = take()) {
      try {
        job.end({ accuracy: await measure(job) });
      } catch (error) {
        const failure: AheadFailure = { index: job.index, layout: job.layout, error };
        job.end({ failure });
        if (!this.earliest || failure.index < this.earliest.index) this.earliest = failure;
        // The run stops at this cell's turn (or an earlier one's): later cells' phases would never be reported.
        this.giveUp((waiting) => waiting.index > failure.index);
      }
    }
  }
}
