import { accuracyEvents } from '../measure/accuracy.js';
import type { LayoutName } from '../layouts/index.js';
import type { Preset } from './presets.js';
import type { SteadyLights } from './steady-lights.js';

/** Settings of the throughput phase. */
export interface ThroughputPlan {
  readonly connections: number;
  readonly pipeline: number;
  /** Operations per phase; when absent, `seconds` applies. */
  readonly ops?: number;
  /** Seconds per phase. */
  readonly seconds: number;
  /** Rounds per phase, the cell's layouts alternating (default 1). */
  readonly rounds?: number;
  /** Time one application thread per layout for this many ms (tinybench); absent or 0 = not measured. */
  readonly appViewMs?: number;
  /** A load cap (`--max-ops`): operations per second at most, over every connection; absent = as fast as the server answers. */
  readonly maxOpsPerSecond?: number;
  /** Latency percentiles the tables show instead of p50/p99/p99.9 (`--percentiles 50,90,99,99.9`). */
  readonly percentiles?: readonly number[];
}

/** Everything one `swc bench` run does, decided before Redis is touched. */
export interface BenchPlan {
  readonly layouts: readonly LayoutName[];
  readonly windows: readonly number[];
  readonly rates: readonly number[];
  readonly failureRate: number;
  readonly lights: number;
  /**
   * A cell whose lights hold skiplists keeps its bytes per light this
   * steady (src/bench/steady-lights.ts): each skiplist key measured as the
   * mean over it and server-side copies of it, or, where no copy can be
   * made, more than `lights` lights, whose extra ones stay out of its
   * throughput phase. Absent = each key measured once, `lights` exactly.
   */
  readonly steadyLights?: SteadyLights;
  /** Traffic time (real seconds with `realtime`); absent = one window per cell. */
  readonly durationSeconds?: number;
  readonly seed: number;
  /** Absent = memory only. */
  readonly throughput?: ThroughputPlan;
  /** Why throughput is absent when the server, not a flag, ruled it out (said in the report's first line). */
  readonly throughputSkipped?: string;
  /**
   * Real traffic on the server's clock, paced at each rate for
   * `durationSeconds` of real time per cell, instead of an injected clock.
   */
  readonly realtime?: boolean;
  readonly preset?: Preset;
  /**
   * Measure each layout's failure ratio against the exact window on a light
   * of its own (three windows of traffic with an incident); absent = not measured.
   */
  readonly accuracy?: { readonly threshold: number };
  /**
   * false: skip the commands-per-call phase (`--no-commands`), so a layout whose
   * scripts fail when called again after the memory phase still gets its bytes.
   */
  readonly commandsPerCall?: false;
  /**
   * Where every layout of the run reads its scripts (`--scripts`): an edited
   * copy of lua/ (to see what a change costs) or a Stoplight tree; absent =
   * each layout's own.
   */
  readonly scriptsDir?: string;
  /**
   * A load cap for every phase that writes (`--max-ops`): the fill and the
   * accuracy phase send at most this many calls per second; the throughput
   * phases take theirs from {@link ThroughputPlan.maxOpsPerSecond}. Absent = as fast as the server answers.
   */
  readonly maxOpsPerSecond?: number;
}

/** One layout at one window and rate. */
export interface Cell {
  readonly layout: LayoutName;
  readonly windowSeconds: number;
  readonly rate: number;
  readonly durationSeconds: number;
}

/** The cells of a plan, window-major, then rate, then layout (so layouts of a cell run side by side). */
export function cellsOf(plan: BenchPlan): Cell[] {
  const cells: Cell[] = [];
  for (const windowSeconds of plan.windows) {
    for (const rate of plan.rates) {
      for (const layout of plan.layouts) {
        cells.push({ layout, windowSeconds, rate, durationSeconds: plan.durationSeconds ?? windowSeconds });
      }
    }
  }
  return cells;
}

/** Events the plan writes in all (memory phase, and the accuracy lights' traffic), for progress and sanity limits. */
export function plannedEvents(plan: BenchPlan): number {
  return cellsOf(plan).reduce(
    (sum, c) => sum + Math.round(c.rate * c.durationSeconds) * plan.lights + (plan.accuracy ? accuracyEvents(c.windowSeconds, c.rate) : 0),
    0,
  );
}
