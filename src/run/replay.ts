import type { Layout, Light } from '../layouts/types.js';
import type { ScriptCall } from '../lua/source.js';
import { runLoad, type Pace } from '../measure/load.js';
import type { RespConnection } from '../redis/resp.js';
import type { TrafficEvent } from '../traffic/events.js';

/** Calls per pipeline while filling a window: large enough to amortize round trips. */
export const FILL_BATCH = 1000;
/** Fill batches in flight: at 10 µs a call, four batches keep the server busy for twice a read interval. */
const FILL_DEPTH = 4;
/** How often the fill reads replies (see runLoad's readIntervalMs). */
const FILL_READ_INTERVAL_MS = 20;

/** One light's events as a writer replays them: in time order, `total` of them. */
export interface LightEvents {
  readonly light: Light;
  readonly events: Iterator<TrafficEvent>;
  readonly total: number;
  /** The `last_error_json` a failure writes: the `index`-th failure of the light, at `at`. */
  readonly errorJson: (at: number, index: number) => string;
}

/** How {@link writeLightEvents} paces and reports. */
export interface WriteOptions {
  readonly batch: number;
  readonly windowSeconds: number;
  readonly written: (n: number) => void;
  readonly signal?: AbortSignal;
  readonly maxOpsPerSecond?: number;
  readonly pace?: Pace;
}

/**
 * Writes one light's events through `layout` with the injected clock (each
 * event's own `at`), pipelined on one lean load socket: the load engine
 * builds each batch while the one before is on the server. What `swc bench`
 * fills a cell with and what `swc lights --forecast` replays a light's
 * recorded events with: the same scripts, calls and clock.
 */
export async function writeLightEvents(connection: RespConnection, layout: Layout, input: LightEvents, options: WriteOptions): Promise<void> {
  const { light, events, total } = input;
  if (total === 0) return;
  let failures = 0;
  let reported = 0;
  const nextCall = (): ScriptCall => {
    const next = events.next();
    if (next.done) throw new Error('fill: the traffic ended before its event count');
    const event = next.value;
    const call = { at: event.at, windowSeconds: options.windowSeconds, eventId: event.eventId };
    return event.outcome === 'success'
      ? layout.recordSuccess(light, call)
      : layout.recordFailure(light, { ...call, errorJson: input.errorJson(event.at, failures++) });
  };
  await runLoad({
    connections: [connection],
    pipeline: options.batch,
    // Batches queued on the server while one runs, and replies read every 20 ms rather
    // than as they come: the server never waits for swc, and swc's wake-ups do not take
    // the CPU from it between scripts (on a loaded 2-core machine: 1.1-1.2× instead of 1.4×).
    depth: FILL_DEPTH,
    readIntervalMs: FILL_READ_INTERVAL_MS,
    stop: { ops: total },
    nextCall,
    ...(options.maxOpsPerSecond !== undefined ? { maxOpsPerSecond: options.maxOpsPerSecond } : {}),
    ...(options.pace ? { pace: options.pace } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    // Every batch: the caller's error names the events written so far, exactly.
    progressIntervalMs: 0,
    placeInErrors: false,
    onProgress: ({ done }) => {
      options.written(done - reported);
      reported = done;
    },
  });
}
