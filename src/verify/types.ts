/** What `swc verify` sends, compares and reports. Plain data: the CLI renders it, `--json` prints it whole. */

/** One operation of a light. */
export type VerifyOp = 'success' | 'failure' | 'read';

/** One call of a reproduction: the operation and its injected time (Unix seconds, fractional). */
export interface ReproCall {
  readonly op: VerifyOp;
  readonly at: number;
}

/** One call of the generated traffic: which light, what, when. */
export interface TrafficCall extends ReproCall {
  /** Index into {@link VerifyTraffic.lights}. */
  readonly light: number;
}

/** A light of the generated traffic and its window. */
export interface TrafficLight {
  readonly windowSeconds: number;
}

/** Seeded traffic over several lights, each light's calls in time order. */
export interface VerifyTraffic {
  readonly lights: readonly TrafficLight[];
  readonly calls: readonly TrafficCall[];
}

/** The fields of a snapshot that are compared with the model. */
export interface ComparedFields {
  readonly successes: number;
  readonly failures: number;
  readonly consecutiveSuccesses: number;
  readonly consecutiveErrors: number;
  /** The stamp of the newest success / failure at the layout's precision, or null when none was recorded. */
  readonly lastSuccessAt: number | null;
  readonly lastErrorAt: number | null;
  /** The newest failure's error JSON, or null. */
  readonly lastErrorJson: string | null;
}

/** A call whose reply the model disagrees with, and the shortest calls found that still disagree. */
export interface Disagreement {
  readonly windowSeconds: number;
  /** The operation whose reply disagreed (`read`, or `failure` for layouts that answer a failure with a snapshot). */
  readonly op: VerifyOp;
  /** The model's fields (the exact window) at the reproduction's last call. */
  readonly expected: ComparedFields;
  /** What the layout returned to the reproduction's last call (replayed on a fresh light). */
  readonly actual: ComparedFields;
  /** The fields that differ. */
  readonly fields: readonly (keyof ComparedFields)[];
  /** The calls on one fresh light that reproduce it; the last one disagrees. */
  readonly reproduction: readonly ReproCall[];
  /** How many calls the light had made up to the disagreement, before shrinking. */
  readonly originalLength: number;
}

/** A call answered with an error. */
export interface ScriptFailure {
  readonly windowSeconds: number;
  readonly op: VerifyOp;
  /** The error text as the server (or the script runner) gave it. */
  readonly error: string;
  /** The command the server rejected, as it received it (MONITOR on a private server), e.g. `HINCRBY "…" "total_failures" "-0"`. */
  readonly rejected?: string;
  /** The calls on one fresh light that lead to it; the last one fails. */
  readonly reproduction: readonly ReproCall[];
  readonly originalLength: number;
}

/** A declared deviation that did not behave as declared. */
export interface DeviationMiss {
  readonly deviation: string;
  readonly windowSeconds: number;
  /** What the declaration predicted, and what the layout returned (it counted the exact window instead), at the reproduction's last call. */
  readonly predicted: ComparedFields;
  readonly actual: ComparedFields;
  readonly reproduction: readonly ReproCall[];
  readonly originalLength: number;
}

/** A declared deviation and how often it was seen, exactly as declared. */
export interface DeviationSeen {
  readonly id: string;
  readonly description: string;
  /** Reads whose counts differed from the exact window exactly as the declaration predicts. */
  readonly observed: number;
}

/** A key the run left with no expiry. */
export interface KeyWithoutTtl {
  /** The key, without the run's namespace. */
  readonly key: string;
  readonly light: number;
}

/**
 * An operation Redis Cluster refused because its keys hash to different
 * slots: the layout is not cluster-safe. Only seen on a cluster.
 */
export interface CrossSlotFinding {
  readonly op: VerifyOp;
  /** Calls of this operation refused. */
  readonly calls: number;
  /** What Redis said, as it said it (`CROSSSLOT Keys in request don't hash to the same slot`). */
  readonly error: string;
  /** The slots of the first refused call's keys, each once, ascending. */
  readonly slots: readonly number[];
  /** How many keys that call passed. */
  readonly keys: number;
}

/**
 * A problem the main run saw on a light that waited at least its window in
 * wall time just before it (the machine stalled), while the server expired
 * keys, and that the light's same calls, replayed at once on a fresh light,
 * did not show: it depended on time passing on the server's own clock, not
 * on the injected one (a key's TTL, in real seconds, ran out meanwhile).
 * Not a finding: the layout answers as the model does whenever its calls
 * come as fast as its injected clock says.
 */
export interface UnreproducedProblem {
  readonly kind: 'disagreement' | 'deviation-miss';
  readonly windowSeconds: number;
  /** The light's calls up to the problem, as replayed. */
  readonly calls: number;
  /** Wall time the light surely waited before the call that showed it (at least its window, or it stays a finding). */
  readonly pauseSeconds: number;
}

/** Everything `swc verify` found for one layout. */
export interface VerifyResult {
  readonly layout: string;
  /** With `--scripts <Stoplight tree>`: the upstream 6.0 generation recognised (`name`: `stoplight-v6 (hash-b, 4975eb6)`). */
  readonly generation?: { readonly id: string; readonly commit: string | null; readonly name: string; readonly what: string };
  readonly seed: number;
  /** Calls sent in the main run (shrinking replays not included). */
  readonly calls: number;
  /** Replies compared with the model (reads, and failures that return a snapshot). */
  readonly compared: number;
  readonly lights: number;
  /** Window sizes used, seconds. */
  readonly windows: readonly number[];
  /** The most buckets (seconds that saw traffic) the model dropped from the window in one call. */
  readonly largestEviction: number;
  readonly disagreements: readonly Disagreement[];
  /** Lights that disagreed, including those beyond the ones shrunk and listed. */
  readonly lightsDisagreeing: number;
  readonly scriptErrors: readonly ScriptFailure[];
  readonly lightsWithErrors: number;
  readonly deviationMisses: readonly DeviationMiss[];
  readonly deviations: readonly DeviationSeen[];
  readonly keysWithoutTtl: readonly KeyWithoutTtl[];
  /** Problems a replay at once did not show (see UnreproducedProblem): not counted in {@link findings}. */
  readonly unreproduced: readonly UnreproducedProblem[];
  /** On Redis Cluster: each operation refused with CROSSSLOT (one finding per operation); empty on a single server. */
  readonly crossSlot: readonly CrossSlotFinding[];
  /** Whether every light's keys share one cluster slot (a multi-key script needs that on Redis Cluster). */
  readonly slots: { readonly lightsChecked: number; readonly lightsSpanningSlots: number; readonly oneSlotPerLight: boolean };
  /** Shrinking replays sent, and whether a budget stopped shrinking early. */
  readonly shrink: { readonly replays: number; readonly budgetExhausted: boolean };
  /** Wall seconds the run took. */
  readonly durationSeconds: number;
  /** Any disagreement, script error, deviation miss, key without a TTL, or operation refused with CROSSSLOT. */
  readonly findings: number;
}

/** Progress events, for a caller that shows progress. */
export interface VerifyProgress {
  onCalls?(sent: number, total: number): void;
  onShrinkStart?(what: string, length: number): void;
}
