import type { Layout, Light } from '../layouts/types.js';
import type { ScriptCall } from '../lua/source.js';
import type { EventClock } from '../traffic/event-clock.js';
import type { Rng } from '../traffic/random.js';

/** The error a failure stores: fixed text, or made from the event time. */
export type ErrorJson = string | ((at: number) => string);

/** The error Stoplight stores for a timeout, stamped with the event's second. */
export const defaultErrorJson = (at: number): string => `{"error":{"class":"Timeout::Error","message":"execution expired"},"time":${Math.floor(at)}}`;

/** What the phase generators share. */
export interface WorkloadContext {
  readonly layout: Layout;
  readonly clock: EventClock;
  readonly windowSeconds: number;
  /** 0..1: the chance that an event is a failure. */
  readonly failureRate: number;
  readonly errorJson: ErrorJson;
  /** Decides successes and failures and makes event ids, so runs repeat. */
  readonly rng: Rng;
}

function writeCall(context: WorkloadContext, light: Light, at: number): ScriptCall {
  const { layout, windowSeconds, failureRate, errorJson, rng } = context;
  // Seeded ids: the 5.x members, and so its memory, repeat for the same seed.
  const eventId = rng.hex(12);
  if (failureRate > 0 && rng.next() < failureRate) {
    const json = typeof errorJson === 'string' ? errorJson : errorJson(at);
    return layout.recordFailure(light, { windowSeconds, at, eventId, errorJson: json });
  }
  return layout.recordSuccess(light, { windowSeconds, at, eventId });
}

/** Each call records one event at the next tick of the clock. */
export function writeWorkload(context: WorkloadContext): () => ScriptCall {
  return () => {
    const tick = context.clock.next();
    return writeCall(context, tick.light, tick.at);
  };
}

/**
 * Each call reads one light's metrics at the clock's current time, lights in
 * turn. Reads are not events, so the clock stands still.
 */
export function readWorkload(context: WorkloadContext): () => ScriptCall {
  const { layout, clock, windowSeconds } = context;
  let reads = 0;
  return () => {
    const light = clock.lights[reads % clock.lights.length] as Light;
    reads += 1;
    return layout.getMetrics(light, { windowSeconds, at: clock.now });
  };
}

/**
 * A Stoplight request as two calls in a row: read the light's metrics (is it
 * open?), then record the outcome, both at the request's time.
 */
export function requestWorkload(context: WorkloadContext): () => ScriptCall {
  const { layout, clock, windowSeconds } = context;
  let pending: ScriptCall | null = null;
  return () => {
    if (pending) {
      const write = pending;
      pending = null;
      return write;
    }
    const tick = clock.next();
    pending = writeCall(context, tick.light, tick.at);
    return layout.getMetrics(tick.light, { windowSeconds, at: tick.at });
  };
}
