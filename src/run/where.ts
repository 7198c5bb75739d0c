import type { Target } from '../redis/target.js';
import { plainTarget } from './cleanup.js';

/** The server a report names first: where it wrote, without credentials. */
export function serverWhere(target: Target): string {
  if (target.cluster) {
    return target.private ? `a private cluster of ${target.shards.length} primaries started by swc` : `${plainTarget(target.url)} (cluster)`;
  }
  return target.private ? 'a private redis-server that swc started and stopped' : plainTarget(target.url);
}
