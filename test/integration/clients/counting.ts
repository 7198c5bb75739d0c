import type { ClientAdapter } from '../../../src/clients/types.js';

/**
 * An adapter that is `adapter` with every decision counted by the group of its
 * client id (the tag before `-`), apart from swc's own count; and, with
 * `extra`, a package that allows that many more than it was set up with.
 */
export function countingAdapter(adapter: ClientAdapter, extra = 0): { adapter: ClientAdapter; of: (tag: string) => { sent: number; allowed: number } } {
  const counts = new Map<string, { sent: number; allowed: number }>();
  return {
    adapter: {
      ...adapter,
      clientOfKey: (key, prefix) => adapter.clientOfKey(key, prefix),
      async open(env, settings) {
        const opened = await adapter.open(env, { ...settings, limit: settings.limit + extra });
        return {
          version: opened.version,
          limiter: {
            async decide(id) {
              const allowed = await opened.limiter.decide(id);
              const tag = id.split('-')[0] ?? '';
              const count = counts.get(tag) ?? { sent: 0, allowed: 0 };
              count.sent += 1;
              if (allowed) count.allowed += 1;
              counts.set(tag, count);
              return allowed;
            },
            close: () => opened.limiter.close(),
          },
        };
      },
    },
    of: (tag) => counts.get(tag) ?? { sent: 0, allowed: 0 },
  };
}
