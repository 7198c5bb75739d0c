import type { Redis } from 'ioredis';
import { Bench } from 'tinybench';
import { InterruptedError } from '../errors.js';
import { execPipeline } from '../redis/scripts.js';
import type { AppView } from './types.js';
import type { WorkloadContext } from './workload.js';
import { requestWorkload } from './workload.js';

/** Options of {@link measureAppView}. */
export interface AppViewOptions {
  /** The connection an application thread would hold (ioredis). */
  readonly redis: Redis;
  /** One workload per layout, named; each request reads, then writes. */
  readonly targets: readonly { readonly name: string; readonly context: WorkloadContext }[];
  /** tinybench time per layout, ms. */
  readonly timeMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Times what one application thread sees, per layout: one request at a
 * time, a read through ioredis and, once it answered, the write, each
 * through the script runner (EVALSHA, as an application's client sends it).
 * tinybench runs the layouts one after another, each for `timeMs` after a
 * short warm-up. The engine's figures (many calls in flight) are the
 * server's capacity; these are one caller's latency.
 */
export async function measureAppView(options: AppViewOptions): Promise<Map<string, AppView>> {
  const bench = new Bench({ time: options.timeMs, warmupTime: Math.min(100, options.timeMs / 4), throws: true });
  for (const { name, context } of options.targets) {
    const next = requestWorkload(context);
    bench.add(name, async () => {
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
  const out = new Map<string, AppView>();
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') continue;
    const { latency } = result;
    out.set(task.name, {
      meanMs: latency.mean,
      p50Ms: latency.p50,
      p99Ms: latency.p99,
      rmePercent: latency.rme,
      samples: latency.samplesCount,
      opsPerSec: latency.mean > 0 ? 1000 / latency.mean : 0,
    });
  }
  return out;
}
