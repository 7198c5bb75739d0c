import type { CellResult } from '../../measure/types.js';
import type { RunContext } from './context.js';

/** A cell waiting to be reported: its result once its accuracy phase (perhaps on the lane) has ended. */
export interface Reported {
  readonly result: Promise<CellResult>;
  readonly index: number;
  settled: boolean;
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
    this.waiting.push({ result: Promise.resolve(result), index, settled: true });
  }

  /** A cell whose accuracy phase runs on the lane: reported once `result` settles. */
  addPending(result: Promise<CellResult>, index: number): void {
    const entry: Reported = { result, index, settled: false };
    // Awaited when reported; a failure before then stops the run at its next cell (lane.failure) or at the end.
    entry.result.then(
      () => (entry.settled = true),
      () => (entry.settled = true),
    );
    this.waiting.push(entry);
  }

  /** Reports the cells at the head of the queue whose accuracy phase has ended (with `all`, waits for every one). */
  async report(all: boolean): Promise<void> {
    const { ctx } = this;
    for (let head = this.waiting[0]; head && (all || head.settled); head = this.waiting[0]) {
      this.waiting.shift();
      const result = await head.result;
      this.results.push(result);
      ctx.finished.set(head.index, result);
      ctx.progress?.onCellDone?.(result, head.index, ctx.cells.length);
    }
  }
}
