import { ScriptError } from '../../core/errors.js';
import { namedRejection } from '../../core/rejection.js';
import type { Layout } from '../../layouts/types.js';
import type { CellResult, IncompleteRun } from '../../measure/types.js';
import type { Session } from '../../redis/connect.js';
import { OversizeReplyError } from '../../redis/scripts.js';
import { verifyLayout } from '../../verify/verify.js';
import type { RunContext } from './context.js';
import { IncompleteBenchError } from './errors.js';
import { cellsOf } from '../plan.js';
import { reportOf } from './result.js';

/** Calls of verify's traffic replayed to find the command a failing layout's script sent (see diagnose). */
const DIAGNOSE_CALLS = 3000;

/**
 * The command the server rejected for one of `layouts`, found the way
 * `swc verify` finds it: its seeded traffic through the layout, each script
 * error's shortest reproduction replayed under MONITOR. Only on a private
 * server (MONITOR sees every client's commands). Null when none failed.
 */
async function diagnose(
  session: Session,
  layouts: readonly Layout[],
  seed: number,
  signal?: AbortSignal,
): Promise<{ layout: Layout; error: string; rejected?: string } | null> {
  for (const layout of layouts) {
    const result = await verifyLayout(session, layout, {
      seed,
      calls: DIAGNOSE_CALLS,
      maxListed: 1,
      shrinkMs: 5000,
      monitorRejected: true,
      ...(signal ? { signal } : {}),
    }).catch(() => null);
    const [failure] = result?.scriptErrors ?? [];
    if (failure) return { layout, error: failure.error, ...(failure.rejected !== undefined ? { rejected: failure.rejected } : {}) };
  }
  return null;
}

/**
 * A script error in a phase after the memory phase (throughput, commands per
 * call, accuracy), once some memory phase ended: the figures measured so far,
 * where it stopped and, on a private server, the command the server rejected
 * and its known cause. Any other error is returned as it is.
 */
export async function incompleteOf(ctx: RunContext, err: unknown): Promise<unknown> {
  const { target, failing, memoryOnly, finished } = ctx;
  if (!(err instanceof ScriptError) || err instanceof IncompleteBenchError || !failing || memoryOnly.size === 0) return err;
  const { layouts, phase } = failing;
  try {
    // A reply over swc's bound is no server rejection: replaying verify's traffic under MONITOR would only read the megabytes again.
    const found =
      !(err instanceof OversizeReplyError) && target.private && !target.cluster ? await diagnose(ctx.session, layouts, ctx.plan.seed, ctx.run.signal) : null;
    const results = [...memoryOnly.keys()].sort((a, b) => a - b).map((i) => finished.get(i) ?? (memoryOnly.get(i) as CellResult));
    const error = found?.error ?? err.message;
    const cause = found ? namedRejection(found.error, found.rejected) : null;
    const incomplete: IncompleteRun = {
      layout: (found?.layout ?? layouts[0])?.name ?? '?',
      phase,
      // The command the server received and the error are of one call: the replayed one, where a replay found it.
      error: found?.rejected !== undefined ? found.error : err.message,
      ...(found?.rejected !== undefined ? { rejected: found.rejected, stoppedWith: err.message } : {}),
      cells: { measured: results.length, planned: cellsOf(ctx.plan).length },
      ...(cause ? { cause } : {}),
    };
    const report = { ...(await reportOf(ctx, results, null)), incomplete };
    return new IncompleteBenchError(cause ? `${cause.name}: ${error}` : err.message, report, { cause: err });
  } catch {
    return err;
  }
}
