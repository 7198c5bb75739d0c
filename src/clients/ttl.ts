import type { ClientAdapter } from './types.js';

/** The longest TTL a package states for a key of a window of `windowMs`: a longer one is a finding. */
export function ttlBoundMs(adapter: Pick<ClientAdapter, 'ttlSlackMs' | 'ttlSlackWindows'>, windowMs: number): number {
  return windowMs * (1 + (adapter.ttlSlackWindows ?? 0)) + adapter.ttlSlackMs;
}
