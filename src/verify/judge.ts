import { ScriptContractError } from '../core/errors.js';
import type { Layout, Snapshot, StampPrecision, WindowDeviation } from '../layouts/types.js';
import { SlidingWindowModel, type WindowCounts } from '../model/sliding-window.js';
import type { PipelineReply } from '../redis/scripts.js';
import { errorJsonFor, stampOf } from '../traffic/events.js';
import type { ComparedFields, ReproCall } from './types.js';

/** What one reply means against the model. */
export type Verdict =
  | { readonly kind: 'ok' }
  /** Nothing to compare: a write that returns no snapshot, or a light already broken by an error. */
  | { readonly kind: 'skip' }
  | { readonly kind: 'deviation'; readonly id: string }
  | {
      readonly kind: 'disagreement';
      readonly expected: ComparedFields;
      readonly actual: ComparedFields;
      readonly fields: readonly (keyof ComparedFields)[];
    }
  | { readonly kind: 'deviation-miss'; readonly id: string; readonly predicted: ComparedFields; readonly actual: ComparedFields }
  | { readonly kind: 'error'; readonly error: string };

const FIELDS: readonly (keyof ComparedFields)[] = [
  'successes',
  'failures',
  'consecutiveSuccesses',
  'consecutiveErrors',
  'lastSuccessAt',
  'lastErrorAt',
  'lastErrorJson',
];

/**
 * The error JSON of a failure at `at`: a function of its stamp only, so two
 * failures with one stamp (where the first stays the newest) store the same text.
 */
export function verifyErrorJson(at: number, precision: StampPrecision): string {
  return errorJsonFor(at, Math.floor(at), precision);
}

function differing(a: ComparedFields, b: ComparedFields): (keyof ComparedFields)[] {
  return FIELDS.filter((f) => a[f] !== b[f]);
}

function fieldsOf(snapshot: Snapshot): ComparedFields {
  return {
    successes: snapshot.successes,
    failures: snapshot.failures,
    consecutiveSuccesses: snapshot.consecutiveSuccesses,
    consecutiveErrors: snapshot.consecutiveErrors,
    lastSuccessAt: snapshot.lastSuccessAt,
    lastErrorAt: snapshot.lastErrorAt,
    lastErrorJson: snapshot.lastErrorJson,
  };
}

/**
 * Holds one light's reference model and judges that light's replies, in
 * call order. A reply is compared with the exact window; when it differs, a
 * deviation the layout declares may explain it; when it matches the exact
 * window but a declared deviation predicted otherwise, the declaration is
 * wrong. After the first error the light's state is unknown (a script that
 * fails part-way keeps its earlier writes), so later replies are skipped.
 */
export class LightJudge {
  private readonly model: SlidingWindowModel;
  /**
   * For a layout that declares an approximation: the same traffic over two
   * windows, so its bound can ask for seconds that already left the window
   * (two-window weighs the previous fixed window).
   */
  private readonly history: SlidingWindowModel | null;
  private broken = false;
  /** The most buckets one call of this light evicted, in the model. */
  largestEviction = 0;

  constructor(
    private readonly layout: Layout,
    readonly windowSeconds: number,
  ) {
    this.model = new SlidingWindowModel(windowSeconds, layout.windowSemantics, layout.capabilities.maxWindowSeconds ?? Number.POSITIVE_INFINITY);
    this.history = layout.approximation ? new SlidingWindowModel(2 * windowSeconds, 'closed') : null;
  }

  judge(call: ReproCall, [err, reply]: PipelineReply): Verdict {
    if (this.broken) return { kind: 'skip' };
    if (call.op !== 'read') {
      this.model.record(call.at, call.op);
      this.history?.record(call.at, call.op);
    }
    if (err) {
      this.broken = true;
      return { kind: 'error', error: err.message };
    }
    let snapshot: Snapshot | null;
    try {
      snapshot = call.op === 'read' ? this.layout.parseMetrics(reply) : call.op === 'failure' ? this.layout.parseFailure(reply) : null;
    } catch (cause) {
      // A reply of another shape than the layout's contract (a manifest's reply) is no finding about the window: the run stops (exit 2).
      if (cause instanceof ScriptContractError) throw cause;
      this.broken = true;
      return { kind: 'error', error: `reply could not be read: ${cause instanceof Error ? cause.message : String(cause)}` };
    }
    if (call.op === 'read') this.model.count(call.at);
    this.largestEviction = Math.max(this.largestEviction, this.model.lastEvicted);
    if (!snapshot) return { kind: 'skip' };
    return this.compare(call, fieldsOf(snapshot));
  }

  private exact(counts: WindowCounts): ComparedFields {
    const precision = this.layout.stampPrecision ?? 'seconds';
    const { lastSuccessAt, lastErrorAt } = this.model;
    return {
      ...counts,
      consecutiveSuccesses: this.model.consecutiveSuccesses,
      consecutiveErrors: this.model.consecutiveErrors,
      lastSuccessAt: lastSuccessAt === null ? null : stampOf(lastSuccessAt, precision),
      lastErrorAt: lastErrorAt === null ? null : stampOf(lastErrorAt, precision),
      lastErrorJson: lastErrorAt === null ? null : verifyErrorJson(lastErrorAt, precision),
    };
  }

  private predicted(deviation: WindowDeviation, at: number, exact: ComparedFields): ComparedFields | null {
    const range = deviation.uncounted(at, this.windowSeconds);
    if (!range) return null;
    const missed = this.model.countIn(range.fromSecond, range.toSecond);
    if (missed.successes === 0 && missed.failures === 0) return null;
    return { ...exact, successes: exact.successes - missed.successes, failures: exact.failures - missed.failures };
  }

  /** The counts within the layout's declared error bound, every other field exact. */
  private withinApproximation(at: number, exact: ComparedFields, actual: ComparedFields): boolean {
    const approximation = this.layout.approximation;
    if (!approximation || !this.history) return false;
    const history = this.history;
    history.count(Math.floor(at));
    const bound = approximation.errorBound(at, this.windowSeconds, (from, to) => history.countIn(from, to));
    // Estimates are fractional: allow for floating point, not for a whole event.
    const slack = 1e-9;
    return (
      Math.abs(actual.successes - exact.successes) <= bound.successes + slack &&
      Math.abs(actual.failures - exact.failures) <= bound.failures + slack &&
      differing({ ...exact, successes: actual.successes, failures: actual.failures }, actual).length === 0
    );
  }

  /**
   * The stamps of a reply at the layout's precision when its scripts store
   * the time as the caller passed it: such a script keeps every digit of the
   * argument (e.g. 1764496803.1557941), which is right by its convention, so
   * only the digits the precision defines are compared. Other layouts compute
   * their stamps themselves and are held to them exactly.
   */
  private atPrecision(actual: ComparedFields): ComparedFields {
    if (!this.layout.stampsAsPassed) return actual;
    const precision = this.layout.stampPrecision ?? 'seconds';
    const cut = (stamp: number | null): number | null => (stamp === null ? null : stampOf(stamp, precision));
    return { ...actual, lastSuccessAt: cut(actual.lastSuccessAt), lastErrorAt: cut(actual.lastErrorAt) };
  }

  private compare({ op, at }: ReproCall, reply: ComparedFields): Verdict {
    const exact = this.exact(this.model.count(at));
    const actual = this.atPrecision(reply);
    const fields = differing(exact, actual);
    // A declaration describes reads; a snapshot a failure replies is held to the exact window unless the declaration covers it.
    const declared = this.layout.deviations ?? [];
    const deviations = op === 'read' ? declared : op === 'failure' ? declared.filter((d) => d.failureReplies === true) : [];
    for (const deviation of deviations) {
      const predicted = this.predicted(deviation, at, exact);
      if (!predicted) continue;
      if (fields.length === 0) return { kind: 'deviation-miss', id: deviation.id, predicted, actual };
      if (differing(predicted, actual).length === 0) return { kind: 'deviation', id: deviation.id };
    }
    if (fields.length === 0) return { kind: 'ok' };
    if (op === 'read' && this.withinApproximation(at, exact, actual)) return { kind: 'ok' };
    return { kind: 'disagreement', expected: exact, actual: reply, fields };
  }
}
