import { leftoverRunUsers } from '../safety/acl.js';
import type { Target } from '../redis/target.js';
import { clusterError, nodeName } from '../redis/routed.js';
import { scanKeys } from '../layouts/inspection-keys.js';
import { listDemos, removeDemo } from '../demo/marker.js';
import { CleanupIncompleteError, listNamespaces, namespaceOf, purgeNamespace, type Namespace, type NamespaceUsage } from '../run/namespace.js';

/** How clean names a namespace whose marker does not prove swc wrote it. */
const NOT_SWCS = "not swc's (no run marker)";

/** A namespace found, with (on a cluster) its keys per primary; `kind` says a demo's (`swc demo --write`) from a bench run's. */
export type FoundNamespace = NamespaceUsage & { nodes?: Record<string, number>; kind?: 'bench' | 'demo' };

/** What `swc clean` found and, with `remove`, removed. */
export interface CleanResult {
  readonly found: readonly FoundNamespace[];
  readonly removed: readonly { prefix: string; keys: number }[];
  /** What was left, and why (a namespace not swc's, a running one, a failed removal). */
  readonly kept: readonly { prefix: string; reason: string }[];
  /** Temporary ACL users of runs that are gone. */
  readonly runUsers: readonly string[];
  readonly removedUsers: readonly string[];
  /** Something could not be removed or is still running (leaving a namespace that is not swc's is what clean is for: no failure). */
  readonly failed: boolean;
}

/** On a cluster: keys of each namespace per primary (one SCAN on each node itself), prefix → `host:port` → count. */
async function keysPerNode(cluster: NonNullable<Target['cluster']>, prefixes: readonly string[]): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>(prefixes.map((p) => [p, {}]));
  if (prefixes.length === 0) return out;
  const pattern = prefixes.length === 1 ? `${prefixes[0] as string}:*` : 'swc-bench:*';
  for (const [i, shard] of cluster.shards.entries()) {
    const node = nodeName(cluster, i);
    let keys: string[];
    try {
      keys = await scanKeys(shard.redis, pattern);
    } catch (err) {
      throw clusterError(cluster, i, err);
    }
    for (const key of keys) {
      const counts = out.get(key.slice(0, key.indexOf(':', 'swc-bench:'.length)));
      if (counts && cluster.shardOfKey(key) === i) counts[node] = (counts[node] ?? 0) + 1;
    }
  }
  return out;
}

/**
 * Lists the swc-bench:* namespaces runs left on a server (or only
 * `namespace`) and the temporary ACL users of runs that are gone; with
 * `remove`, removes them, never a running run's nor one without swc's marker.
 */
export async function cleanServer(target: Pick<Target, 'redis' | 'cluster'>, options: { namespace?: Namespace; remove: boolean }): Promise<CleanResult> {
  const listed = await listNamespaces(target.redis, options.namespace);
  const perNode = target.cluster
    ? await keysPerNode(
        target.cluster,
        listed.map((ns) => ns.prefix),
      )
    : undefined;
  const found: FoundNamespace[] = perNode ? listed.map((ns) => ({ ...ns, nodes: perNode.get(ns.prefix) ?? {} })) : listed;
  const removed: { prefix: string; keys: number }[] = [];
  const kept: { prefix: string; reason: string }[] = [];
  // The demo lights of `swc demo --write` (one server, never a cluster): removed by their marker's list.
  const demos = options.namespace || target.cluster ? [] : await listDemos(target.redis);
  for (const demo of demos) {
    found.push({ ...demo, keys: demo.keys.length, alive: false, kind: 'demo' });
    if (!options.remove) continue;
    if (!demo.marked) kept.push({ prefix: demo.prefix, reason: NOT_SWCS });
    else removed.push({ prefix: demo.prefix, keys: await removeDemo(target.redis, demo) });
  }
  if (options.remove) {
    for (const ns of found) {
      if (ns.kind === 'demo') continue;
      // Keys that only look like swc's may be someone's data: never deleted.
      if (!ns.marked) kept.push({ prefix: ns.prefix, reason: NOT_SWCS });
      else if (ns.alive) kept.push({ prefix: ns.prefix, reason: 'still running' });
      else {
        try {
          removed.push({ prefix: ns.prefix, keys: await purgeNamespace(target.redis, namespaceOf(ns.prefix)) });
        } catch (err) {
          kept.push({ prefix: ns.prefix, reason: err instanceof CleanupIncompleteError ? err.message : String(err) });
        }
      }
    }
  }
  // Temporary ACL users of runs that are gone (a SIGKILLed run leaves its user; src/safety/acl.ts).
  const aliveRuns = new Set(found.filter((ns) => ns.alive).map((ns) => ns.prefix));
  // Only users carrying swc's marker, on every primary of a cluster; a look-alike name alone is someone else's.
  const leftover = await leftoverRunUsers(target.cluster ? target.cluster.shards.map((s) => s.redis) : target.redis, (prefix) => aliveRuns.has(prefix));
  const removedUsers: string[] = [];
  if (options.remove) {
    for (const [name, nodes] of leftover) {
      try {
        for (const node of nodes) await node.call('ACL', 'DELUSER', name);
        removedUsers.push(name);
      } catch (err) {
        kept.push({ prefix: name, reason: `ACL DELUSER failed: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
  }
  return { found, removed, kept, runUsers: [...leftover.keys()], removedUsers, failed: kept.some((k) => k.reason !== NOT_SWCS) };
}
