import type { Redis } from 'ioredis';
import { Bench } from 'tinybench';
import { InterruptedError } from '../core/errors.js';
import { execPipeline } from '../redis/scripts.js';
import type { ScriptCall } from '../lua/source.js';
import type { AppView } from './types.js';
import type { WorkloadContext } from './workload.js';
import { requestWorkload } from './workload.js';

/** Options of {@link measureAppView}. */
export interface AppViewOptions {
  /** The connection an application thread would hold (ioredis). */
  readonly redis: Redis;
  /** One workload per layout, named; each request reads, then writes. */
  readonly targets: readonly { readonly name: string; readonly context: WorkloadContext }[];
  /** tinybench time per layout, ms, split over the rounds. */
  readonly timeMs: number;
  /** Rounds, the layouts alternating; default 1. */
  readonly rounds?: number;
  readonly signal?: AbortSignal;
}

/**
 * The relative margin of error (percent) above which an application's-view
 * figure is extended and, if still above after the extra time, marked noisy.
 */
export const APP_VIEW_RME_BOUND = 5;

/** Extra time a noisy layout may get, as a multiple of its planned time. */
const MAX_EXTRA_TIME = 2;

/** Percentile `p` (0..100) of ascending samples, nearest rank. */
function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Figures of one layout's request latencies (ms), merged over the rounds. */
function viewOf(samples: readonly number[]): AppView {
  const sorted = [...samples].sort((x, y) => x - y);
  const n = sorted.length;
  const mean = sorted.reduce((sum, x) => sum + x, 0) / n;
  const variance = n > 1 ? sorted.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1) : 0;
  // Thousands of samples: the normal 95% critical value is the t value to three digits.
  const rme = mean > 0 ? ((1.96 * Math.sqrt(variance / n)) / mean) * 100 : 0;
  return {
    meanMs: mean,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    rmePercent: rme,
    samples: n,
    opsPerSec: mean > 0 ? 1000 / mean : 0,
    noisy: rme > APP_VIEW_RME_BOUND,
  };
}

/**
 * Times what one application thread sees, per layout: one request at a
 * time, a read through ioredis and, once it answered, the write, each
 * through the script runner (EVALSHA, as an application's client sends it).
 * tinybench times every request; the layouts alternate over `rounds`
 * rounds (A B, then B A, …; `timeMs / rounds` each) so drift hits them
 * alike, and each layout's figures come from all its samples. Every round
 * starts with a short warm-up (the first a longer one), so the other
 * layout's turn does not land in the first samples. A layout whose mean is
 * still uncertain by more than {@link APP_VIEW_RME_BOUND}% gets more rounds,
 * up to {@link MAX_EXTRA_TIME} times its planned time, and is marked noisy
 * if that does not bring it under. The engine's figures (many calls in
 * flight) are the server's capacity; these are one caller's latency.
 */
export async function measureAppView(options: AppViewOptions): Promise<Map<string, AppView>> {
  const rounds = Math.max(1, options.rounds ?? 1);
  const roundMs = options.timeMs / rounds;
  const requests = options.targets.map(({ context }) => requestWorkload(context));
  const samples: number[][] = options.targets.map(() => []);
  const runRound = async (round: number, which: readonly number[]): Promise<void> => {
    const bench = new Bench({
      time: roundMs,
      // tinybench's default of 64 iterations would stretch a short round on a slow server.
      iterations: 1,
      warmup: true,
      warmupTime: round === 0 ? Math.min(100, options.timeMs / 4) : 0,
      warmupIterations: round === 0 ? 16 : 4,
      throws: true,
      retainSamples: true,
    });
    const order = round % 2 === 1 ? [...which].reverse() : which;
    for (const i of order) {
      const next = requests[i] as () => ScriptCall;
      bench.add(String(i), async () => {
        if (options.signal?.aborted) throw new InterruptedError();
        const read = next();
        const write = next();
        for (const call of [read, write]) {
          const [[error]] = (await execPipeline(options.redis, [call], { busyWaitMs: 0 })) as [[Error | null, unknown]];
          if (error) throw error;
        }
      });
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== 'completed') continue;
      (samples[Number(task.name)] as number[]).push(...(result.latency.samples ?? []));
    }
  };
  const all = options.targets.map((_, i) => i);
  for (let round = 0; round < rounds; round += 1) await runRound(round, all);
  // More rounds, only for the layouts still too uncertain, until they settle or the extra time is spent.
  for (let extra = 0, round = rounds; extra < MAX_EXTRA_TIME * rounds; extra += 1, round += 1) {
    const noisy = all.filter((i) => {
      const mine = samples[i] as number[];
      return mine.length > 0 && viewOf(mine).rmePercent > APP_VIEW_RME_BOUND;
    });
    if (noisy.length === 0) break;
    await runRound(round, noisy);
  }
  const out = new Map<string, AppView>();
  for (const [i, { name }] of options.targets.entries()) {
    const mine = samples[i] as number[];
    if (mine.length > 0) out.set(name, viewOf(mine));
  }
  return out;
}
