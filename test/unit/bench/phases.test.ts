import { describe, expect, it } from 'vitest';
import type { CellResult } from '../../../src/measure/types.js';
import type { Cell } from '../../../src/bench/plan.js';
import type { RunContext } from '../../../src/bench/phases/context.js';
import { groupsOf } from '../../../src/bench/phases/group.js';
import { ReportQueue } from '../../../src/bench/phases/queue.js';

const cell = (layout: Cell['layout'], windowSeconds: number, rate: number): Cell => ({ layout, windowSeconds, rate, durationSeconds: windowSeconds });

describe('groupsOf', () => {
  it('puts the consecutive cells of one window and rate together, in plan order', () => {
    const cells = [
      cell('stoplight-v5', 60, 10),
      cell('stoplight-v6', 60, 10),
      cell('stoplight-v5', 60, 100),
      cell('stoplight-v6', 60, 100),
      cell('stoplight-v5', 300, 10),
    ];
    expect(groupsOf(cells)).toEqual([cells.slice(0, 2), cells.slice(2, 4), cells.slice(4)]);
  });

  it('never joins cells of one window and rate that other cells separate', () => {
    const cells = [cell('stoplight-v5', 60, 10), cell('stoplight-v5', 60, 100), cell('stoplight-v6', 60, 10)];
    expect(groupsOf(cells).map((g) => g.length)).toEqual([1, 1, 1]);
  });
});

describe('ReportQueue', () => {
  /** A queue over a context with only what reporting reads: the finished cells, the progress and the cell count. */
  function queue(): { q: ReportQueue; done: number[]; finished: Map<number, CellResult> } {
    const done: number[] = [];
    const finished = new Map<number, CellResult>();
    const ctx = { finished, cells: [1, 2, 3], progress: { onCellDone: (_r: CellResult, index: number) => done.push(index) } } as unknown as RunContext;
    return { q: new ReportQueue(ctx), done, finished };
  }
  const result = (layout: string): CellResult => ({ layout }) as CellResult;

  it('reports in cell order: a cell whose accuracy phase is still running holds back the cells after it', async () => {
    const { q, done, finished } = queue();
    let settle: (r: CellResult) => void = () => undefined;
    q.addPending(new Promise<CellResult>((resolve) => (settle = resolve)), 0);
    q.addDone(result('b'), 1);
    await q.report(false);
    expect(done).toEqual([]);
    settle(result('a'));
    await new Promise((r) => setTimeout(r, 0));
    await q.report(false);
    expect(done).toEqual([0, 1]);
    expect(q.results.map((r) => r.layout)).toEqual(['a', 'b']);
    expect([...finished.keys()]).toEqual([0, 1]);
  });

  it('with `all`, waits for every cell and rethrows a failed accuracy phase when its cell comes up', async () => {
    const { q, done } = queue();
    q.addDone(result('a'), 0);
    q.addPending(Promise.reject(new Error('accuracy failed')), 1);
    await expect(q.report(true)).rejects.toThrow('accuracy failed');
    expect(done).toEqual([0]);
  });

  it('a phase started with the run: reported as soon as it says it has ended, its failure at once (no microtask hops behind), its result read only then', async () => {
    const { q, done } = queue();
    let read = 0;
    let ended = false;
    q.addDone(result('a'), 0);
    q.addLater(
      () => ended,
      () => ((read += 1), Promise.reject(new Error('accuracy failed'))),
      1,
    );
    await q.report(false);
    expect(done).toEqual([0]);
    expect(read).toBe(0);
    ended = true;
    await expect(q.report(false)).rejects.toThrow('accuracy failed');
    expect(read).toBe(1);
  });
});
