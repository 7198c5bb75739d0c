import type { CellResult } from '../../measure/types.js';
import type { RunContext } from './context.js';

/** A cell waiting to be reported: its result once its accuracy phase (perhaps on the lane) has ended. */
interface Reported {
  readonly index: number;
  /** Whether the accuracy phase has ended, known at once. */
  readonly ended: () => boolean;
  /** The result; rejects with the phase's failure. */
  readonly result: () => Promise<CellResult>;
}

/**
 * Cells measured and cleaned up, reported in cell order: a group at once,
 * or, with the accuracy lane, each cell once its accuracy phase has ended.
 */
export class ReportQueue {
  /** Every cell reported so far, in cell order. */
  readonly results: CellResult[] = [];
  /** Cells measured and cleaned up, not yet reported, in cell order. */
  private readonly waiting: Reported[] = [];

  constructor(private readonly ctx: RunContext) {}

  /** A cell whose result is known already (its accuracy phase ran in line). */
  addDone(result: CellResult, index: number): void {
    this.waiting.push({ index, ended: () => true, result: () => Promise.resolve(result) });
  }

  /** A cell whose accuracy phase runs on the lane: reported once `result` settles. */
  addPending(result: Promise<CellResult>, index: number): void {
    let settled = false;
    // Awaited when reported; a failure before then stops the run at its next cell (lane.failure) or at the end.
    result.then(
      () => (settled = true),
      () => (settled = true),
    );
    this.waiting.push({ index, ended: () => settled, result: () => result });
  }

  /** A cell whose accuracy phase was started with the run: `ended` says at once whether it has ended, `result` is read when it is reported. */
  addLater(ended: () => boolean, result: () => Promise<CellResult>, index: number): void {
    this.waiting.push({ index, ended, result });
  }

  /** Reports the cells at the head of the queue whose accuracy phase has ended (with `all`, waits for every one). */
  async report(all: boolean): Promise<void> {
    const { ctx } = this;
    for (let head = this.waiting[0]; head && (all || head.ended()); head = this.waiting[0]) {
      this.waiting.shift();
      const result = await head.result();
      this.results.push(result);
      ctx.finished.set(head.index, result);
      ctx.progress?.onCellDone?.(result, head.index, ctx.cells.length);
    }
  }
}
