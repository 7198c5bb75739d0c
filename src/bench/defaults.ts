/**
 * What `swc bench` runs when a flag is not given: the values its options
 * default to, and the plan of its first command (`swc bench --rate 100
 * --window 300`), which `swc doctor` judges a server's headroom against with
 * the same estimator as the bench itself.
 */
import type { BenchPlan } from './plan.js';

export const DEFAULT_RATES = [100];
/** Seconds per throughput phase when neither --ops nor --time is given. */
export const DEFAULT_PHASE_SECONDS = 1;
/** Rounds per throughput phase: enough for a median and a spread, few enough to keep rounds long. */
export const DEFAULT_ROUNDS = 5;
/** tinybench time per layout and cell for the application's view. */
export const APP_VIEW_MS = 250;
export const DEFAULT_WINDOWS = [300];
/** The failure ratio at which Stoplight's error-rate strategy opens a light, as commonly configured. */
export const DEFAULT_THRESHOLD = 0.5;
/** Real seconds per cell under --realtime: short, because one window (often minutes) per cell is a surprise. */
export const DEFAULT_REALTIME_SECONDS = 10;
/** Lights per cell, share of failures, seed, connections and pipeline when not given. */
export const DEFAULT_LIGHTS = 1;
export const DEFAULT_FAILURE_RATE = 0.5;
export const DEFAULT_SEED = 1;
export const DEFAULT_CONNECTIONS = 4;
export const DEFAULT_PIPELINE = 1;

/**
 * The plan of `swc bench` with no flag (`--rate 100 --window 300` are its
 * defaults) over `layouts`, the registry's default layouts (taken as an
 * argument: this module is read by bench's option definitions at start-up,
 * and the registry loads only with a command's action).
 */
export function defaultBenchPlan(layouts: readonly string[]): BenchPlan {
  return {
    layouts,
    windows: DEFAULT_WINDOWS,
    rates: DEFAULT_RATES,
    failureRate: DEFAULT_FAILURE_RATE,
    lights: DEFAULT_LIGHTS,
    seed: DEFAULT_SEED,
    throughput: {
      connections: DEFAULT_CONNECTIONS,
      pipeline: DEFAULT_PIPELINE,
      seconds: DEFAULT_PHASE_SECONDS,
      rounds: DEFAULT_ROUNDS,
      appViewMs: APP_VIEW_MS,
    },
    accuracy: { threshold: DEFAULT_THRESHOLD },
  };
}
