/**
 * How long a bench plan will take, before anything is sent to Redis
 * (`swc bench --dry-run`, and the first stderr line of a run estimated past
 * {@link LONG_RUN_SECONDS}).
 *
 * The estimate adds up what each phase costs, from per-phase figures
 * measured on the 2-core development machine, Redis 7.0.15, lightly loaded
 * (load average about 2): `npm run bench:estimate` runs eight shapes that
 * take the parts apart (a tiny plan for the start, memory-only plans of
 * 2 to 56 cells and 126,000 to 899,000 events for the fill and the per-cell
 * costs, memory-only plans with accuracy for the phases beside the fills,
 * the default bench) and prints each estimate beside the wall times; the
 * constants below were fitted to its output of 2026-12-03; its last run
 * (load average 1.9-2.9) put every shape's median wall time at 0.79×-1.06×
 * of its estimate (the estimate before: 0.45×-0.89×, the accuracy phases
 * added as if they ran after the fills). In a run without throughput
 * phases on swc's own server the accuracy phases run beside the fills on a
 * second server (phases/ahead.ts): the run takes the longer side. The
 * throughput phases take the time `--time` gives them (or `--ops` at about
 * 20,000 ops/s), and the app view its tinybench time plus a quarter for
 * warm-up. A busy machine takes up to about half as long again, or more.
 *
 * The instruction count (`--instructions`), the commands-per-call probe and
 * a preset cell's extra lights are phases of their own, each with its
 * measured rate below: `--window 30 --rate 1 --instructions` took 35.2 s and
 * 38.8 s at a load average of 12–17 (model: 33 s; 8 s when the count was not
 * counted).
 */
import { accuracyEvents } from '../measure/accuracy.js';
import type { InstructionsPlan } from './instructions.js';
import { cellsOf, type BenchPlan, type Cell } from './plan.js';
import { COPIES_HEADROOM, steadyLightCount } from './steady-lights.js';

/** Starting node, the private redis-server and the preflight, once per server started. */
/**
 * Commands a capped run is charged per script call, for the estimate only
 * (the run counts each script's, see redis/command-cap.ts): about a 6.0
 * write's most (1 + 10-16); 5.x and the simpler layouts are charged less.
 */
export const CAPPED_COMMANDS_PER_CALL = 15;

export const SERVER_START_SECONDS = 0.7;
/** One event of the memory fill, scripts pipelined (5.x's ZADDs and 6.0's HINCRBYs cost about alike; the layouts' warm-up included). */
export const FILL_SECONDS_PER_EVENT = 15e-6;
/** One event of the accuracy traffic in line (pipelined with reads in between, on one light), before or after the cell's other phases. */
export const ACCURACY_SECONDS_PER_EVENT = 30e-6;
/** One event of the accuracy traffic on the second server, beside the fills (the two servers share the machine's cores). */
export const ACCURACY_BESIDE_SECONDS_PER_EVENT = 20e-6;
/** Measuring a cell's keys and deleting them. */
export const CELL_SECONDS = 0.02;
/** Operations per second assumed for an `--ops` phase (as the progress bar assumes). */
const OPS_PER_SECOND = 20_000;
/**
 * `--instructions`: starting redis-server under valgrind callgrind (and
 * stopping it). Fitted with the per-call cost below to three runs of one
 * cell (`--window 30 --rate 1`, two layouts) at 100, 300 and 1,000
 * `--instruction-calls`, which counted for 14.8 s, 24.0 s and 66.1 s at a
 * load average of 15 on the 2-core machine (2026-12-02).
 */
export const VALGRIND_START_SECONDS = 6;
/** `--instructions`: per layout and cell, the counted server's dumps and their reading (the rest of the fit's 7.9 s intercept). */
export const COUNTED_CELL_SECONDS = 1;
/** `--instructions`: one counted script call under callgrind (the fit's slope: 2.4 ms; a request is two calls). */
export const COUNTED_SECONDS_PER_CALL = 2.4e-3;
/** `--instructions`: one event of the counted server's fill, instrumentation off (a 300 s window at 10/s added 5.8 s for 6,000 events). */
export const COUNTED_FILL_SECONDS_PER_EVENT = 1e-3;
/**
 * The commands-per-call probe: one operation call with the two INFO
 * readings around it, on swc's own server (about a quarter of a millisecond
 * on a quiet machine: fitted with {@link CELL_SECONDS} to the per-cell cost
 * of the memory-only shapes of `npm run bench:estimate`).
 */
export const COMMANDS_SECONDS_PER_CALL = 0.25e-3;
/** Calls of each operation the probe takes (src/bench/phases/commands.ts), over write, failure and read, at least twice (two takes must agree). */
const COMMANDS_CALLS_PER_CELL = 10 * 3 * 2;
/**
 * Bytes per sorted-set member of a light whose events are a skiplist (5.x:
 * 76,186 B for 600 events): with the events in a window, what a preset
 * cell's steady-light count is estimated from before any light is measured.
 */
const BYTES_PER_SKIPLIST_MEMBER = 127;
/** A sorted set of more members is a skiplist (zset-max-listpack-entries' default). */
const LISTPACK_ENTRIES = 128;

/** A run estimated past this says so in its first stderr line. */
export const LONG_RUN_SECONDS = 60;
/**
 * A preset cell's server-side copy of one skiplist (COPY, MEMORY USAGE, DEL
 * in one pipeline): a round trip, and the copy's nodes rebuilt one by one.
 */
export const COPY_SECONDS = 0.3e-3;
export const COPY_SECONDS_PER_MEMBER = 0.5e-6;

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
  readonly phase:
    'server start' | 'fill' | 'steady copies' | 'accuracy' | 'throughput' | 'app view' | 'real traffic' | 'commands per call' | 'instructions' | 'cells';
  readonly seconds: number;
  /** Runs beside the run's own server's phases (the accuracy phases on their second server): only what it takes past them counts in the total. */
  readonly beside?: boolean;
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
export function estimatePlan(
  plan: BenchPlan,
  {
    runs = 1,
    privateServer = true,
    inLine = false,
    instructions,
  }: { runs?: number; privateServer?: boolean; inLine?: boolean; instructions?: InstructionsPlan } = {},
): PlanEstimate {
  const cells = cellsOf(plan);
  // The commands probe runs on swc's own standalone server only (src/bench/phases/commands.ts).
  const commands = privateServer && plan.commandsPerCall !== false && plan.realtime !== true;
  const copies = (c: Cell): number => steadyCopiesOf(plan, c);
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
        ...(copies(c) > 0 ? [`up to ${copies(c)} copies of each skiplist (steady bytes)`] : []),
        ...(accuracy > 0 ? ['accuracy'] : []),
        ...throughputPhases,
        ...(t?.appViewMs && !realtime ? ['app view'] : []),
        ...(commands ? ['commands per call'] : []),
        ...(instructions ? [`instructions (valgrind, ${instructions.repeats} × ${instructions.calls} calls per op)`] : []),
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
  // Under --max-ops a phase that writes takes at least its calls' commands over the cap (the accuracy phase's reads are about a tenth more).
  const cap = plan.maxOpsPerSecond;
  const capped = (events: number, perEvent: number): number => Math.max(events * perEvent, cap !== undefined ? (events * CAPPED_COMMANDS_PER_CALL) / cap : 0);
  // A preset cell averages its skiplists over server-side copies: each copy rebuilds the key's members once.
  const copySeconds = cells.reduce((sum, c) => sum + copies(c) * (COPY_SECONDS + skiplistMembers(c) * COPY_SECONDS_PER_MEMBER), 0);
  // Counting: the counted server starts once per run; each cell is filled on one light, then each op counted `repeats` × `calls` times (a request is two calls).
  const counted = instructions
    ? VALGRIND_START_SECONDS +
      cells.length * COUNTED_CELL_SECONDS +
      cells.reduce((sum, c) => sum + Math.round(c.rate * c.durationSeconds), 0) * COUNTED_FILL_SECONDS_PER_EVENT +
      cells.length * instructions.repeats * instructions.calls * 4 * COUNTED_SECONDS_PER_CALL
    : 0;
  // On swc's own server without throughput phases, the accuracy phases run beside the fills on a second server
  // (src/bench/phases/ahead.ts); only the part past the run's own server's phases adds to the run.
  const beside = privateServer && !inLine && !realtime && !t && accuracyTotal > 0;
  const phases: PhaseEstimate[] = [
    { phase: 'server start', seconds: servers * SERVER_START_SECONDS },
    { phase: realtime ? 'real traffic' : 'fill', seconds: runs * (realtime ? realSeconds : capped(fillEvents, FILL_SECONDS_PER_EVENT)) },
    { phase: 'steady copies', seconds: runs * copySeconds },
    { phase: 'accuracy', seconds: runs * capped(accuracyTotal, beside ? ACCURACY_BESIDE_SECONDS_PER_EVENT : ACCURACY_SECONDS_PER_EVENT) },
    { phase: 'throughput', seconds: runs * throughput },
    { phase: 'app view', seconds: runs * appView },
    { phase: 'commands per call', seconds: commands ? runs * cells.length * COMMANDS_CALLS_PER_CELL * COMMANDS_SECONDS_PER_CALL : 0 },
    { phase: 'instructions', seconds: runs * counted },
    { phase: 'cells', seconds: runs * cells.length * CELL_SECONDS },
  ];
  const shown = phases.filter((p) => p.seconds > 0).map((p) => (beside && p.phase === 'accuracy' ? { ...p, beside: true } : p));
  const own = shown.filter((p) => !p.beside && p.phase !== 'server start').reduce((sum, p) => sum + p.seconds, 0);
  const start = shown.find((p) => p.phase === 'server start')?.seconds ?? 0;
  const besideSeconds = shown.filter((p) => p.beside).reduce((sum, p) => sum + p.seconds, 0);
  return { cells: planned, phases: shown, totalSeconds: start + Math.max(own, besideSeconds), servers };
}

/**
 * Lights a preset cell is expected to fill (plan.steadyLights): as many as
 * steadyLightCount asks for a light whose events in the window are one
 * skiplist of {@link BYTES_PER_SKIPLIST_MEMBER} bytes a member. An upper
 * bound for layouts that keep fewer members (6.0's buckets): the run
 * decides from the keys it measured. `plan.lights` without a preset.
 */
export function steadyLightsOf(plan: BenchPlan, cell: Cell): number {
  if (!plan.steadyLights || plan.realtime === true) return plan.lights;
  const members = skiplistMembers(cell);
  if (members <= LISTPACK_ENTRIES) return plan.lights;
  return steadyLightCount([{ encoding: 'skiplist', elements: members }], members * BYTES_PER_SKIPLIST_MEMBER, plan.lights, plan.steadyLights);
}

/** Members of a cell's light's skiplist at the end of its fill, at most: one per event in the window. */
const skiplistMembers = (cell: Cell): number => Math.round(cell.rate * Math.min(cell.windowSeconds, cell.durationSeconds));

/**
 * Copies of each skiplist key a preset cell measures (see measureSteadyKeys):
 * as many as bring one light's spread under the preset's target, at most
 * its maxCopies; 0 without a preset, under --realtime, or when the window's
 * members fit a listpack. An upper bound, as for {@link steadyLightsOf}. A
 * server that cannot copy fills more lights instead; the estimate does not
 * count that fallback.
 */
export function steadyCopiesOf(plan: BenchPlan, cell: Cell): number {
  if (!plan.steadyLights || plan.realtime === true) return 0;
  const members = skiplistMembers(cell);
  if (members <= LISTPACK_ENTRIES) return 0;
  const target = { relativeSd: plan.steadyLights.relativeSd * COPIES_HEADROOM, maxLights: plan.steadyLights.maxCopies + 1 };
  return steadyLightCount([{ encoding: 'skiplist', elements: members }], members * BYTES_PER_SKIPLIST_MEMBER, 1, target) - 1;
}

export { durationText } from '../core/format.js';
