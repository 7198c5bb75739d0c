import type { Redis } from 'ioredis';
import { namespacedLayout } from '../../layouts/index.js';
import type { Layout } from '../../layouts/types.js';
import { cellAccuracy } from '../accuracy.js';
import type { Cell } from '../plan.js';
import { cellNameOf, layoutOptionsOf, wrote, type AheadPhases, type CellAccuracy, type RunContext } from './context.js';
import { watch } from './disturbance.js';

/** The first accuracy phase that failed: which cell, and why; every phase after it is given up with it. */
export interface AheadFailure {
  /** As the user reads it: a script's error says its cell and phase. */
  readonly error: unknown;
  readonly layout: Layout;
  /** Whether the phase's own calls failed (a script error keeps the memory figures, see incompleteOf), not a check after it. */
  readonly inPhase: boolean;
}

interface Job {
  readonly index: number;
  readonly cell: Cell;
  readonly layout: Layout;
  readonly name: string;
  /** Set when the phase's own calls failed. */
  inPhase?: boolean;
  resolve(accuracy: CellAccuracy | undefined): void;
  reject(failure: AheadFailure): void;
}

/**
 * Every cell's accuracy phase, started as the run starts instead of after
 * the cell's memory phase. A phase needs nothing of its cell's fill (a light
 * of its own, on the lane's server), and in a memory-only run the lane's
 * phases are the longer half: started after each fill, the last cells'
 * phases ran alone after the last fill (the blog preset: 1.1 s of 9 s). The
 * lane takes the phases in cell order; once the run's own server has ended
 * its last memory and commands phases, it takes the phases left from the
 * last cell back ({@link finishInLine}), so the two servers end together.
 *
 * Only without throughput phases (they wait for the lane to be idle) and
 * with a lane. A failure is reported where it would have been: at its
 * cell's turn (see `of`); no phase starts after it.
 */
export class AccuracyAhead implements AheadPhases {
  /** Phases no server has started, in cell order. */
  private readonly waiting: Job[] = [];
  private readonly results = new Map<number, Promise<CellAccuracy | undefined>>();
  private failure: AheadFailure | undefined;
  private stopped = false;
  private readonly laneDone: Promise<void>;

  private constructor(private readonly ctx: RunContext) {
    for (const [index, cell] of ctx.cells.entries()) {
      const layout = namespacedLayout(cell.layout, ctx.namespace.prefix, layoutOptionsOf(ctx.plan));
      const result = new Promise<CellAccuracy | undefined>((resolve, reject) => {
        this.waiting.push({ index, cell, layout, name: cellNameOf(ctx, cell, index), resolve, reject });
      });
      // Read at the cell's turn; until then a failure must not count as unhandled.
      result.catch(() => undefined);
      this.results.set(index, result);
    }
    const lane = ctx.lane;
    this.laneDone = lane
      ? this.work(
          () => this.waiting.shift(),
          (job) => lane.runNow((redis) => this.measure(redis, job), `${job.name}'s accuracy phase`),
        )
      : Promise.resolve();
  }

  /** The run's phases ahead on its lane; undefined when the run has no lane, no accuracy phases, or throughput phases. */
  static start(ctx: RunContext): AccuracyAhead | undefined {
    if (!ctx.lane || !ctx.plan.accuracy || ctx.plan.throughput) return undefined;
    return new AccuracyAhead(ctx);
  }

  /** Cell `index`'s accuracy phase: rejects with the first failure (its own or an earlier phase's) once that is known. */
  of(index: number): Promise<CellAccuracy | undefined> | undefined {
    return this.results.get(index);
  }

  /**
   * Once the run's own server has ended its memory and commands phases:
   * runs the phases the lane has not started there, from the last cell back
   * (checked for a disturbance after each, as a phase in line is), and
   * waits for the lane's.
   */
  async finishInLine(redis: Redis): Promise<void> {
    await this.work(
      () => this.waiting.pop(),
      async (job) => {
        const accuracy = await this.measure(redis, job);
        if (accuracy) await watch(this.ctx, job.name, 'accuracy phase');
        return accuracy;
      },
    );
    await this.laneDone;
  }

  /** The run is ending: no phase starts from now on (the one running ends with the lane's server). */
  stop(): void {
    this.stopped = true;
  }

  private measure(redis: Redis, job: Job): Promise<CellAccuracy | undefined> {
    return cellAccuracy(redis, this.ctx.plan, job.cell, job.layout, this.ctx.run.signal, (n) => wrote(this.ctx, n)).catch((err: unknown) => {
      job.inPhase = true;
      throw this.ctx.withContext(err, `in ${job.name}, accuracy phase`);
    });
  }

  /** Runs the jobs `next` hands out, one at a time, until none is left or one has failed. */
  private async work(next: () => Job | undefined, run: (job: Job) => Promise<CellAccuracy | undefined>): Promise<void> {
    const more = (): Job | undefined => (this.failure || this.stopped ? undefined : next());
    for (let job = more(); job; job = more()) {
      try {
        job.resolve(await run(job));
      } catch (error) {
        this.failure ??= { error, layout: job.layout, inPhase: job.inPhase === true };
        job.reject(this.failure);
        // Given up: nothing starts after the first failure.
        for (const left of this.waiting.splice(0)) left.reject(this.failure);
      }
    }
  }
}
