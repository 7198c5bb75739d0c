import { Command } from 'commander';
import { CleanupIncompleteError, listNamespaces, namespaceOf, purgeNamespace, type Namespace, type NamespaceUsage } from '../bench/namespace.js';
import { ExitCode } from '../core/errors.js';
import { redactUrl } from '../redis/connect.js';
import { SWC_VERSION } from '../core/version.js';
import { action } from './lifecycle.js';
import { scanKeys } from '../layouts/inspection-keys.js';
import { shown as escapeText } from '../safety/text.js';
import { leftoverRunUsers } from '../safety/acl.js';
import type { ClusterSession } from '../redis/cluster.js';
import { clusterError, nodeName } from '../redis/routed.js';
import { primariesOf, readTargetFromFlags } from './cluster-read.js';
import { addClusterOptions, addJsonOption, addRedisOptions, parser, printJson, type ClusterFlags, type RedisFlags } from './options.js';
import { proseWidth, wrapText } from '../report/width.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

/** Leftovers are on the server a bench ran against; there is no private server to clean. */
const DEFAULT_URL = 'redis://127.0.0.1:6379';

interface CleanFlags extends RedisFlags, ClusterFlags {
  namespace?: Namespace;
  yes?: boolean;
  json?: boolean;
}

/** `3 d 4 h`, `12 min`: how long ago a run started. */
function age(startedAt: number | null, now: number): string {
  if (startedAt === null) return 'unknown age (no run marker)';
  const seconds = Math.max(0, Math.round((now - startedAt) / 1000));
  if (seconds < 120) return `${seconds} s old`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min old`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min old` : `${Math.floor(hours / 24)} d ${hours % 24} h old`;
}

/** How clean names a namespace whose marker does not prove swc wrote it. */
const NOT_SWCS = "not swc's (no run marker)";

function describe(ns: NamespaceUsage, now: number): string {
  if (!ns.marked) return `${escapeText(ns.prefix)}  ${ns.keys} key(s), ${NOT_SWCS}: left alone`;
  const size = ns.bytes === null ? 'bytes unavailable (MEMORY not allowed)' : `${(ns.bytes / 1024).toFixed(1)} KB`;
  const origin = ns.host ? `, from ${escapeText(ns.host)} pid ${ns.pid ?? '?'}` : '';
  return `${ns.prefix}  ${ns.keys} key(s), ${size}, ${age(ns.startedAt, now)}${origin}${ns.alive ? ', STILL RUNNING' : ''}`;
}

/** On a cluster: keys of each namespace per primary (one SCAN on each node itself), prefix → `host:port` → count. */
async function keysPerNode(cluster: ClusterSession, prefixes: readonly string[]): Promise<Map<string, Record<string, number>>> {
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

/** `swc clean`: list, and with --yes remove, what benchmark runs left on a server. */
export function cleanCommand(): Command {
  const command = new Command('clean')
    .description('list the swc-bench:* namespaces benchmark runs left on a Redis (age, keys, bytes); remove them with --yes')
    .option(
      '--namespace <prefix>',
      'only this run (swc-bench:<8 hex digits>, as swc bench prints it)',
      parser((value) => namespaceOf(value)),
    )
    .option('--yes', 'remove the namespaces listed (never a running one: its keys are refreshed within the last 15 s)');
  addRedisOptions(command, { privateServer: false });
  addClusterOptions(command, { privateCluster: false });
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
Only keys under swc-bench:<8 hex digits>: are ever listed or removed (SCAN,
then DEL grouped by hash slot; never KEYS, never FLUSHDB). A run still in
progress (its alive key exists) is listed but not removed.

Exit codes: 0 done (or nothing found), 1 something could not be removed or
is still running, 2 bad usage, 3 Redis unreachable.

On Redis Cluster (--cluster, or several --redis-url seeds): SCAN on every
primary, each DEL sent to the primary that owns its slot; each namespace says how many of
its keys each node holds (JSON: "nodes").

Examples:
  swc clean --redis-url redis://127.0.0.1:6379/0
  swc clean --redis-url redis://127.0.0.1:6379/0 \\
    --namespace swc-bench:1a2b3c4d --yes
  swc clean --cluster --redis-url redis://10.0.0.5:7000 --yes`,
  );
  return command.action(
    action(async (flags: CleanFlags) => {
      const session = await readTargetFromFlags(flags, DEFAULT_URL, 'clean');
      const now = Date.now();
      const listed = await listNamespaces(session.redis, flags.namespace);
      const perNode = session.cluster
        ? await keysPerNode(
            session.cluster,
            listed.map((ns) => ns.prefix),
          )
        : undefined;
      const found: (NamespaceUsage & { nodes?: Record<string, number> })[] = perNode
        ? listed.map((ns) => ({ ...ns, nodes: perNode.get(ns.prefix) ?? {} }))
        : listed;
      const removed: { prefix: string; keys: number }[] = [];
      const kept: { prefix: string; reason: string }[] = [];
      if (flags.yes) {
        for (const ns of found) {
          if (!ns.marked) {
            // Keys that only look like swc's may be someone's data: never deleted.
            kept.push({ prefix: ns.prefix, reason: NOT_SWCS });
            continue;
          }
          if (ns.alive) {
            kept.push({ prefix: ns.prefix, reason: 'still running' });
            continue;
          }
          try {
            removed.push({ prefix: ns.prefix, keys: await purgeNamespace(session.redis, namespaceOf(ns.prefix)) });
          } catch (err) {
            kept.push({ prefix: ns.prefix, reason: err instanceof CleanupIncompleteError ? err.message : String(err) });
          }
        }
      }
      // Temporary ACL users of runs that are gone (a SIGKILLed run leaves its user; src/safety/acl.ts).
      const aliveRuns = new Set(found.filter((ns) => ns.alive).map((ns) => ns.prefix));
      // Only users carrying swc's marker, on every primary of a cluster; a look-alike name alone is someone else's.
      const leftover = await leftoverRunUsers(session.cluster ? session.cluster.shards.map((s) => s.redis) : session.redis, (prefix) => aliveRuns.has(prefix));
      const users = [...leftover.keys()];
      const removedUsers: string[] = [];
      if (flags.yes) {
        for (const [name, nodes] of leftover) {
          try {
            for (const node of nodes) await node.call('ACL', 'DELUSER', name);
            removedUsers.push(name);
          } catch (err) {
            kept.push({ prefix: name, reason: `ACL DELUSER failed: ${err instanceof Error ? err.message : String(err)}` });
          }
        }
      }
      // Leaving a namespace that is not swc's is what clean is for: not a failure.
      const code = kept.some((k) => k.reason !== NOT_SWCS) ? ExitCode.finding : ExitCode.ok;
      if (flags.json) {
        printJson({
          schemaVersion: SCHEMA_VERSION,
          swcVersion: SWC_VERSION,
          redis: { url: redactUrl(session.url), ...(session.cluster ? { primaries: primariesOf(session.cluster) } : {}) },
          // A moment of the contract is ISO 8601; the marker holds milliseconds.
          namespaces: found.map((ns) => ({ ...ns, startedAt: ns.startedAt === null ? null : new Date(ns.startedAt).toISOString() })),
          removed,
          kept,
          runUsers: users,
          removedUsers,
        });
        return code;
      }
      const out: string[] = [];
      const where = session.cluster ? `on the ${session.cluster.shards.length} primaries of this cluster` : 'on this server';
      if (found.length === 0 && users.length === 0)
        out.push(flags.namespace ? `no keys under ${flags.namespace.pattern} ${where}` : `no swc-bench:* namespaces ${where}`);
      for (const ns of found) {
        out.push(describe(ns, now));
        if (ns.nodes)
          out.push(
            `  ${
              Object.entries(ns.nodes)
                .map(([node, keys]) => `${node}: ${keys} key(s)`)
                .join(', ') || 'no key on any primary'
            }`,
          );
      }
      for (const name of users) if (!removedUsers.includes(name)) out.push(`${name}  temporary ACL user of a run that is gone`);
      for (const r of removed) out.push(`removed ${r.keys} key(s) under ${r.prefix}:*`);
      for (const name of removedUsers) out.push(`removed the temporary ACL user ${name}`);
      for (const k of kept) out.push(`kept ${k.prefix}: ${k.reason}`);
      if (!flags.yes && found.some((ns) => ns.marked)) out.push('', 'nothing removed: run again with --yes to remove them');
      process.stdout.write(`${wrapText(out.join('\n'), proseWidth())}\n`);
      return code;
    }),
  );
}
