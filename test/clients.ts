import type { Redis } from 'ioredis';
import type { ClientLimiter, ClientModel } from '../src/clients/types.js';
import { digest } from './helpers.js';

/** One decision asked of a client adapter: client `id` at `atMs` on the injected clock. */
export interface ClientEvent {
  readonly id: string;
  readonly atMs: number;
}

/** What {@link driveClient} saw: each event's decision by the package and by the model. */
export interface DrivenEvents {
  readonly events: readonly ClientEvent[];
  readonly package: readonly boolean[];
  readonly model: readonly boolean[];
}

/**
 * Asks `limiter` for each event in turn, with `Date.now` returning the event's time while the package
 * decides (the injected clock of a package that reads `Date.now`), and `model` for the same event.
 * `Date.now` is put back afterwards, also on a failure.
 */
export async function driveClient(limiter: ClientLimiter, model: ClientModel, events: readonly ClientEvent[]): Promise<DrivenEvents> {
  const decisions: boolean[] = [];
  const modelled: boolean[] = [];
  let now = events[0]?.atMs ?? 0;
  await withDateNow(
    () => now,
    async () => {
      for (const event of events) {
        now = event.atMs;
        decisions.push(await limiter.decide(event.id));
        modelled.push(model.decide(event.id, event.atMs));
      }
    },
  );
  return { events, package: decisions, model: modelled };
}

/** Runs `body` with `Date.now` answering `now()` (a package's injected clock), put back afterwards, also on a failure. */
export async function withDateNow<T>(now: () => number, body: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  Date.now = now;
  try {
    return await body();
  } finally {
    Date.now = realNow;
  }
}

/** `count` events of client `id`, evenly spaced from `fromMs` (inclusive) to `toMs` (exclusive). */
export function evenEvents(id: string, count: number, fromMs: number, toMs: number): ClientEvent[] {
  return Array.from({ length: count }, (_, i) => ({ id, atMs: fromMs + Math.floor(((toMs - fromMs) * i) / count) }));
}

/** The largest number of `times` (sorted, ms) inside any exact sliding window (t - windowMs, t]. */
export function largestInAnyWindow(times: readonly number[], windowMs: number): number {
  let largest = 0;
  let first = 0;
  for (let last = 0; last < times.length; last += 1) {
    while ((times[first] ?? 0) <= (times[last] ?? 0) - windowMs) first += 1;
    largest = Math.max(largest, last - first + 1);
  }
  return largest;
}

/** Sent, allowed, and the most allowed in any exact sliding window, for one client's events. */
export function tally(driven: DrivenEvents, windowMs: number): { sent: number; allowed: number; largest: number } {
  const allowedTimes = driven.events.filter((_, i) => driven.package[i] === true).map((e) => e.atMs);
  return { sent: driven.events.length, allowed: allowedTimes.length, largest: largestInAnyWindow(allowedTimes, windowMs) };
}

/** Every key under `<prefix>:` with its MEMORY USAGE and PTTL. */
export async function prefixKeys(redis: Redis, prefix: string): Promise<{ key: string; bytes: number; pttl: number }[]> {
  const keys = Object.keys(await digest(redis, `${prefix}:*`)).sort();
  return Promise.all(keys.map(async (key) => ({ key, bytes: Number(await redis.memory('USAGE', key)), pttl: await redis.pttl(key) })));
}
