import type { Redis } from 'ioredis';
import type { Layout, LayoutOptions, Light } from '../../layouts/types.js';
import type { CellResult, ClusterFinding, IncompleteRun, MemoryResult, RealtimeResult, ShardTotals } from '../../measure/types.js';
import type { RoundsProgress, ThroughputPhase } from '../../measure/throughput.js';
import type { Session } from '../../redis/connect.js';
import type { ServerCounters, ServerInfo } from '../../redis/info.js';
import type { AccuracyLane, cellAccuracy } from '../accuracy.js';
import type { Namespace, RunHandle } from '../../run/namespace.js';
import type { BenchPlan, Cell } from '../plan.js';
import type { Target } from '../../redis/target.js';

/** Progress of a run, as events (the caller decides how to show them). */
export interface BenchProgress {
  /** A cell started. */
  onCellStart?(cell: Cell, index: number, total: number): void;
  /** Events written so far in the whole run. */
  onEvents?(written: number, total: number): void;
  /** A throughput phase started; it interleaves the layouts of `group` (the cells of one window and rate), `cell` the first. */
  onPhase?(cell: Cell, phase: ThroughputPhase, group: readonly Cell[]): void;
  /** Where a throughput phase is (round, layout, fraction of the round), a few times a second. */
  onThroughput?(group: readonly Cell[], progress: RoundsProgress): void;
  /** A cell finished. */
  onCellDone?(result: CellResult, index: number, total: number): void;
  /** Something the run cannot check or vouch for (e.g. INFO not allowed). */
  onWarning?(message: string): void;
  /** Other runs are writing to the server: this one waits for them to end before it starts. */
  onWait?(others: readonly string[]): void;
}

/** The Unix seconds a cell's traffic covered: where 5.x hour keys can be. */
export interface Span {
  readonly from: number;
  readonly to: number;
}

/** One INFO reading per shard; null where INFO is not allowed. */
export type Readings = (ServerCounters | null)[];

/** What a cell's accuracy phase gives (see cellAccuracy). */
export type CellAccuracy = NonNullable<Awaited<ReturnType<typeof cellAccuracy>>>;

/** A failed accuracy phase: its cell, and the error as the user reads it. */
export interface AheadFailure {
  readonly index: number;
  readonly layout: Layout;
  readonly error: unknown;
}

/** A cell's accuracy from a phase started with the run, or the failure to report in its place. */
export type AheadResult = { readonly accuracy: CellAccuracy | undefined } | { readonly failure: AheadFailure };

/** Accuracy phases started with the run, as the other phases see them (AccuracyAhead, in ahead.ts). */
export interface AheadPhases {
  /** Whether cell `index`'s phase has ended, known at once (a cell is reported as soon as it has). */
  ended(index: number): boolean;
  /** Cell `index`'s accuracy once its phase has ended, or the failure to report in its place. */
  result(index: number): Promise<AheadResult>;
  /** Once every cell is filled: the phases left, on the run's own server. */
  finishInLine(redis: Redis): Promise<void>;
  /** The run is ending: no phase starts from now on. */
  stop(): void;
}

/** A cell whose memory phase has ended. */
export interface Filled {
  readonly cell: Cell;
  readonly index: number;
  readonly layout: Layout;
  readonly name: string;
  readonly memory: MemoryResult;
  readonly events: number;
  readonly lights: Light[];
  readonly span: Span;
  readonly realtime?: RealtimeResult;
  readonly shards?: ShardTotals[];
}

/** What the phases read of a run's inputs (a BenchRun gives them). */
export interface PhaseInputs {
  readonly findings?: readonly ClusterFinding[];
  readonly lightSpread?: string;
  readonly options?: Record<string, unknown>;
  readonly signal?: AbortSignal;
  /** Aborts `signal` from inside the run (the accuracy lane's server died): the run stops at its next batch, with the lane's error. */
  readonly halt?: () => void;
  readonly accuracyInLine?: boolean;
  readonly turnWaitMs?: number;
}

/**
 * One run's state, shared by its phases: what they read (the shards, the
 * plan, the server's info) and what they leave for the ones after them and
 * for the way out (events written, the last INFO readings, the accuracy
 * lane, the figures so far, where a script error came from).
 */
export interface RunContext {
  readonly run: PhaseInputs;
  readonly target: Target;
  /** The first shard's session: a single server's, or the cluster's first primary's. */
  readonly session: Session;
  readonly plan: BenchPlan;
  readonly namespace: Namespace;
  readonly progress: BenchProgress | undefined;
  readonly cells: readonly Cell[];
  readonly totalEvents: number;
  readonly info: ServerInfo;
  /** Date.now() when the run started. */
  readonly started: number;
  /** The run's markers' heartbeat, stopped on the way out. */
  readonly heartbeat: RunHandle;
  /** Says where a run stopped, keeping the error's type (a cluster's change of shape named as such). */
  withContext(err: unknown, where: string): unknown;
  /** Events written so far in the whole run. */
  written: number;
  /** The INFO readings a disturbance is looked for against. */
  last: Readings;
  /** The accuracy phases' own private server, when the run has one to copy (see AccuracyLane). */
  lane: AccuracyLane | undefined;
  /** Every cell's accuracy phase, started with the run (a memory-only run with a lane; see AccuracyAhead). */
  ahead: AheadPhases | undefined;
  /** Each cell's result once its memory phase ended (memory only), by cell index. */
  readonly memoryOnly: Map<number, CellResult>;
  /** Each cell's result once every phase ended, by cell index. */
  readonly finished: Map<number, CellResult>;
  /** The layouts (and phase) a script error after the memory phase came from. */
  failing: { layouts: Layout[]; phase: IncompleteRun['phase'] } | undefined;
}

/** Counts `n` more events written, and says so. */
export function wrote(ctx: RunContext, n: number): void {
  ctx.written += n;
  ctx.progress?.onEvents?.(ctx.written, ctx.totalEvents);
}

/** How messages name cell `index` of the run. */
export function cellNameOf(ctx: Pick<RunContext, 'cells'>, cell: Cell, index: number): string {
  return `cell ${index + 1}/${ctx.cells.length} (${cell.layout}, window ${cell.windowSeconds} s at ${cell.rate}/s)`;
}

/** "after N of M events", where a message says a run stopped. */
export function eventsSoFar(ctx: RunContext): string {
  return `after ${ctx.written.toLocaleString('en-US')} of ${ctx.totalEvents.toLocaleString('en-US')} events`;
}

/** How the plan's layouts are built: with the run's scripts folder (`--scripts`) when it has one. */
export function layoutOptionsOf(plan: BenchPlan): LayoutOptions {
  return plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {};
}
