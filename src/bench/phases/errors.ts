import { ExitCode, ScriptError, SwcError } from '../../core/errors.js';
import type { BenchReport, IncompleteRun } from '../../measure/types.js';

/** A cell whose figures would be wrong: something disturbed the server while it ran. */
export class DisturbedCellError extends SwcError {
  constructor(message: string) {
    super(message, ExitCode.runtime);
  }
}

/**
 * A script error stopped the run after at least one memory phase had
 * finished: `report` holds every figure measured until then (a cell whose
 * later phase did not run has its memory only) and says where it stopped
 * (`report.incomplete`). Exit 3, as any script error; exit 2 when its
 * cause is one (a reply over swc's bound, see OversizeReplyError).
 */
export class IncompleteBenchError extends ScriptError {
  constructor(
    message: string,
    readonly report: BenchReport & { readonly incomplete: IncompleteRun },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // A reply over swc's bound is a fault of the scripts given (exit 2), also when some figures were measured before it.
    this.exitCode = options?.cause instanceof SwcError ? options.cause.exitCode : ExitCode.runtime;
  }

  override readonly exitCode: ExitCode;
}
