import type { ClientModelFactory } from '../types.js';

/**
 * The fixed-window model of a counter windowed by its key's TTL (rate-limiter-flexible,
 * rate-limit-redis, @fastify/rate-limit, read in their code): a client's window opens at its
 * first decision after the previous window expired and lasts `windowMs` from there; every
 * decision in it counts, allowed or not (their scripts increment before comparing), and a
 * decision is allowed while the count, itself included, is at most the limit. Redis keeps a
 * key until its expiry time has passed (`now > expiry`), so a decision at exactly
 * `start + windowMs` still counts in the old window.
 */
export const fixedWindowModel: ClientModelFactory = (settings) => {
  const windows = new Map<string, { startMs: number; count: number }>();
  return {
    decide(id, atMs) {
      let window = windows.get(id);
      if (!window || atMs > window.startMs + settings.windowMs) {
        window = { startMs: atMs, count: 0 };
        windows.set(id, window);
      }
      window.count += 1;
      return window.count <= settings.limit;
    },
    edges(id) {
      const window = windows.get(id);
      return window ? [window.startMs + settings.windowMs] : [];
    },
  };
};
