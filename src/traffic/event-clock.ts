import { UsageError } from '../core/errors.js';
import type { Light } from '../core/light.js';

/** One event handed out by an {@link EventClock}. */
export interface ClockTick {
  readonly light: Light;
  /** Unix seconds, fractional. */
  readonly at: number;
}

/**
 * An injected clock for steady traffic over several lights: events go to the
 * lights in turn, and each light's time advances by `1 / rate` per event, so
 * every light sees `rate` events per simulated second and the window keeps
 * sliding however fast the benchmark runs. Times are computed from the event
 * count, not summed, so they do not drift over millions of events.
 */
export class EventClock {
  private count = 0;

  constructor(
    readonly lights: readonly Light[],
    /** Events per simulated second per light. */
    readonly rate: number,
    /** Unix seconds before the first event (the first lands at `startAt + 1 / rate`). */
    readonly startAt: number,
  ) {
    if (lights.length === 0) throw new UsageError('clock: at least one light is needed');
    if (!(rate > 0) || !Number.isFinite(rate)) throw new UsageError(`clock: rate must be > 0, got ${rate}`);
    if (!Number.isFinite(startAt)) throw new UsageError(`clock: start time must be a number of seconds, got ${startAt}`);
  }

  /** Events handed out so far. */
  get events(): number {
    return this.count;
  }

  /** The time of the latest event, or `startAt` before any. */
  get now(): number {
    return this.startAt + Math.ceil(this.count / this.lights.length) / this.rate;
  }

  /** Hands out the next event. */
  next(): ClockTick {
    const k = this.count;
    this.count += 1;
    const lights = this.lights.length;
    return { light: this.lights[k % lights] as Light, at: this.startAt + (Math.floor(k / lights) + 1) / this.rate };
  }
}
