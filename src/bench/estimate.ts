/**
 * How long a bench plan will take, before anything is sent to Redis
 * (`swc bench --dry-run`, and the first stderr line of a run estimated past
 * {@link LONG_RUN_SECONDS}).
 *
 * The estimate adds up what each phase costs, from per-phase figures
 * measured with `swc bench … --json` (its `elapsedSeconds`) on the 2-core
 * development machine, Redis 7.0.15 (2026-12-01). They were taken apart by
 * running the default cell (`--rate 100 --window 300`: 60,000 fill events
 * and 75,000 accuracy events over two layouts) with and without each phase
 * (`--no-throughput`, `--no-accuracy`); the throughput phases take the time
 * `--time` gives them (or `--ops` at about 20,000 ops/s), and the app view
 * its tinybench time plus a quarter for warm-up. Checked against whole runs:
 * the default bench took 12 s lightly loaded (model: 12 s); `--preset blog`
 * took 105 s at a load average of 19 (model: 73 s); the issue measured 129 s
 * for `--suggest --window 1m,10m --rate 10,100` (model: 131 s). A busy
 * machine takes up to about half as long again, or more.
 */
import { accuracyEvents } from '../measure/accuracy.js';
import { cellsOf, type BenchPlan, type Cell } from './plan.js';

/** Starting node, the private redis-server and the preflight, once per server started. */
export const SERVER_START_SECONDS = 1;
/** One event of the memory fill, scripts pipelined (5.x's ZADDs and 6.0's HINCRBYs cost about alike). */
export const FILL_SECONDS_PER_EVENT = 30e-6;
/** One event of the accuracy traffic (written one call at a time with reads in between, on one light). */
export const ACCURACY_SECONDS_PER_EVENT = 30e-6;
/** Measuring a cell's keys and deleting them. */
export const CELL_SECONDS = 0.1;
/** Operations per second assumed for an `--ops` phase (as the progress bar assumes). */
const OPS_PER_SECOND = 20_000;
/** A run estimated past this says so in its first stderr line. */
export const LONG_RUN_SECONDS = 60;

/** One cell of the plan with what runs in it. */
export interface CellPlan {
  readonly layout: string;
  readonly windowSeconds: number;
  readonly rate: number;
  /** Events of the memory fill over all lights. */
  readonly events: number;
  /** Events of the accuracy light (0 without accuracy). */
  readonly accuracyEvents: number;
  /** The phases in order: `fill`, `accuracy`, `write`/`read`/`request` throughput, `app view`, `real traffic`. */
  readonly phases: readonly string[];
}

/** Estimated seconds of one phase over the whole run. */
export interface PhaseEstimate {
  readonly phase: 'server start' | 'fill' | 'accuracy' | 'throughput' | 'app view' | 'real traffic' | 'cells';
  readonly seconds: number;
}

export interface PlanEstimate {
  readonly cells: readonly CellPlan[];
  readonly phases: readonly PhaseEstimate[];
  readonly totalSeconds: number;
  /** Servers started (a sweep starts one per combination). */
  readonly servers: number;
}

/**
 * The cells of a plan, the phases each runs, and the estimated seconds of
 * every phase. `runs` is how many times the plan runs (a sweep's
 * combinations, each on a server of its own); `privateServer` whether swc
 * starts its own (an existing server costs no start).
 */
export function estimatePlan(plan: BenchPlan, { runs = 1, privateServer = true }: { runs?: number; privateServer?: boolean } = {}): PlanEstimate {
  const cells = cellsOf(plan);
  const t = plan.throughput;
  const realtime = plan.realtime === true;
  const throughputPhases = t && !realtime ? [`write/read/request throughput${t.rounds && t.rounds > 1 ? ` × ${t.rounds} rounds` : ''}`] : [];
  const planned: CellPlan[] = cells.map((c: Cell) => {
    const events = Math.round(c.rate * c.durationSeconds) * plan.lights;
    const accuracy = plan.accuracy ? accuracyEvents(c.windowSeconds, c.rate) : 0;
    return {
      layout: c.layout,
      windowSeconds: c.windowSeconds,
      rate: c.rate,
      events,
      accuracyEvents: accuracy,
      phases: [
        realtime ? `real traffic ${c.durationSeconds} s` : 'fill',
        ...(accuracy > 0 ? ['accuracy'] : []),
        ...throughputPhases,
        ...(t?.appViewMs && !realtime ? ['app view'] : []),
      ],
    };
  });
  const fillEvents = planned.reduce((sum, c) => sum + c.events, 0);
  const accuracyTotal = planned.reduce((sum, c) => sum + c.accuracyEvents, 0);
  // Throughput phases run once per layout in every cell: each phase for its time (or its ops), then the app view's tinybench (plus its warm-up).
  const perPhase = t ? (t.ops !== undefined ? t.ops / OPS_PER_SECOND : t.seconds) : 0;
  const throughput = t && !realtime ? cells.length * 3 * perPhase : 0;
  const appView = t?.appViewMs && !realtime ? (cells.length * t.appViewMs * 1.25) / 1000 : 0;
  const realSeconds = realtime ? cells.reduce((sum, c) => sum + c.durationSeconds, 0) : 0;
  const servers = privateServer ? runs : 0;
  // Under --max-ops a phase that writes takes at least its calls over the cap (the accuracy phase's reads are about a tenth more).
  const cap = plan.maxOpsPerSecond;
  const capped = (events: number, perEvent: number): number => Math.max(events * perEvent, cap !== undefined ? events / cap : 0);
  const phases: PhaseEstimate[] = [
    { phase: 'server start', seconds: servers * SERVER_START_SECONDS },
    { phase: realtime ? 'real traffic' : 'fill', seconds: runs * (realtime ? realSeconds : capped(fillEvents, FILL_SECONDS_PER_EVENT)) },
    { phase: 'accuracy', seconds: runs * capped(accuracyTotal, ACCURACY_SECONDS_PER_EVENT) },
    { phase: 'throughput', seconds: runs * throughput },
    { phase: 'app view', seconds: runs * appView },
    { phase: 'cells', seconds: runs * cells.length * CELL_SECONDS },
  ];
  const shown = phases.filter((p) => p.seconds > 0);
  return { cells: planned, phases: shown, totalSeconds: shown.reduce((sum, p) => sum + p.seconds, 0), servers };
}

export { durationText } from '../core/format.js';
