import type { ClientAdapter } from './types.js';

/**
 * A key of a rate-limiter package whose TTL is a finding: none at all (the
 * key lives until deleted or evicted; under a `volatile-*` eviction policy it
 * is never a candidate, so eviction falls on other keys), or longer than the
 * package's window plus its stated slack. bench --client, lights, inspect and
 * compare carry the same shape.
 */
export interface TtlFinding {
  readonly key: string;
  /** The key's TTL in ms when read; null: the key has none. */
  readonly ttlMs: number | null;
  /** The window the package was given, in ms; null where swc does not know it (a key found on a server without --window). */
  readonly windowMs: number | null;
  /** The server's `maxmemory-policy`; null when the server would not say (CONFIG refused). */
  readonly policy: string | null;
  /** The npm package that wrote the key, where known. */
  readonly package?: string;
  /** The longest TTL the package sets for that window (window plus slack), in ms, where the window is known. */
  readonly longestMs?: number;
}

/**
 * The finding a key's TTL makes, or null when it has none: `pttl` as the
 * server replies (-1: no TTL; -2: no key, never a finding), `longestMs` the
 * longest TTL the package sets for `windowMs` (null when the window is not known:
 * only a missing TTL is then a finding).
 */
export function ttlFindingOf(read: {
  readonly key: string;
  readonly pttl: number;
  readonly windowMs: number | null;
  readonly longestMs: number | null;
  readonly policy: string | null;
  readonly package?: string;
}): TtlFinding | null {
  const { key, pttl, windowMs, longestMs, policy } = read;
  const named = read.package !== undefined ? { package: read.package } : {};
  if (pttl === -1) return { key, ttlMs: null, windowMs, policy, ...named, ...(longestMs !== null ? { longestMs } : {}) };
  if (pttl >= 0 && longestMs !== null && pttl > longestMs) return { key, ttlMs: pttl, windowMs, policy, ...named, longestMs };
  return null;
}

/** The longest TTL a package states for a key of a window of `windowMs`: a longer one is a finding. */
export function ttlBoundMs(adapter: Pick<ClientAdapter, 'ttlSlackMs' | 'ttlSlackWindows'>, windowMs: number): number {
  return windowMs * (1 + (adapter.ttlSlackWindows ?? 0)) + adapter.ttlSlackMs;
}
