import { plainTarget } from '../run/cleanup.js';
import { redactUrl } from '../redis/url.js';
import type { Target } from '../run/open.js';

/**
 * The server a reading command (lights, inspect) names first: the snapshot
 * file, the cluster's seed, or the URL, without credentials.
 */
export function serverRead(flags: { rdb?: string }, target: Pick<Target, 'url' | 'cluster'>): string {
  if (flags.rdb !== undefined) return `the snapshot ${flags.rdb} (loaded on a private redis-server)`;
  return `${/^rediss?:/.test(target.url) ? plainTarget(target.url) : redactUrl(target.url)}${target.cluster ? ' (cluster)' : ''}`;
}
