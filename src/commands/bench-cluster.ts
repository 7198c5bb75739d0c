/**
 * `swc bench` on Redis Cluster: opening the primaries, the checks before the
 * first write (on every primary), cluster safety, and the clean-up on every
 * primary. src/commands/bench.ts calls these; the run itself is runBench's.
 */
import type { Redis } from 'ioredis';
import { clusterSafePlan } from '../bench/cluster-safety.js';
import { estimatePeakBytes } from '../bench/footprint.js';
import type { Namespace } from '../bench/namespace.js';
import type { BenchPlan } from '../bench/plan.js';
import { clusterShards, type ShardSet } from '../bench/shards.js';
import { ExitCode, SwcError, UsageError } from '../core/errors.js';
import { layoutLabel } from '../layouts/index.js';
import type { ClusterFinding } from '../measure/types.js';
import { preflight, refusalOf } from '../redis/preflight.js';
import { clusterSessionFromFlags, type ClusterFlags, type RedisFlags } from './options.js';

/** The flags this module reads. */
export interface BenchClusterFlags extends Partial<RedisFlags & ClusterFlags> {
  realtime?: boolean;
  allowEviction?: boolean;
}

/** Refuses flags a cluster run cannot honour (exit 2), before anything is started or connected. */
export function checkClusterFlags(flags: BenchClusterFlags): void {
  if (flags.realtime)
    throw new UsageError("--realtime: not supported with --cluster/--cluster-shards (real traffic is paced on one server's clock); drop one of them");
  if (flags.clusterShards !== undefined && (flags.redisUrls?.length ?? 0) > 0) {
    throw new UsageError('--cluster-shards: starts a private cluster; drop it or drop --redis-url');
  }
}

/** Removes a run's keys on one server, as bench does on a single one (src/commands/bench.ts cleanUp). */
export type ServerCleanUp = (
  connectAnother: () => Promise<Redis>,
  current: Redis,
  url: string,
  namespace: Namespace,
  boundMs: number,
  node?: string,
) => Promise<void>;

/** An opened cluster for a bench run. */
export interface ClusterTarget {
  readonly set: ShardSet;
  /** `host:port` of every primary, for messages. */
  readonly nodes: string;
  /**
   * Checks every primary (memory headroom and eviction policy, replica role,
   * ACL, a test write) and the plan's layouts for calls across slots; returns
   * the plan that runs and the findings. Throws (exit 3) on a refusal.
   */
  prepare(plan: BenchPlan, namespace: Namespace, allowEviction: boolean): Promise<{ plan: BenchPlan; findings: ClusterFinding[] }>;
  /** Removes the run's keys on every primary (a private cluster's nodes stop instead). */
  cleanUp(namespace: Namespace, boundMs: number, serverCleanUp: ServerCleanUp): Promise<void>;
}

/** A hash tag whose slot `shard` serves, for that node's preflight probe keys. */
function probeTagOf(set: ShardSet, shard: number, prefix: string): string {
  for (let i = 0; i < 100_000; i += 1) {
    const tag = `probe-${i}`;
    if (set.shardOfKey(`${prefix}:{${tag}}`) === shard) return tag;
  }
  return 'probe';
}

/** Opens the cluster the flags name (or starts a private one); its session closes on every way out. */
export async function openClusterTarget(flags: BenchClusterFlags): Promise<ClusterTarget> {
  const session = await clusterSessionFromFlags(flags);
  const set = clusterShards(session);
  const nodes = set.shards.map((s) => s.node).join(', ');
  return {
    set,
    nodes,
    async prepare(plan, namespace, allowEviction) {
      if (!set.private) {
        process.stderr.write(
          `swc bench: run ${namespace.prefix}: writing only under ${namespace.pattern} on ${set.shards.length} primaries (${nodes}); removed at the end\n`,
        );
        // Lights spread evenly: each primary holds about its share of the peak.
        const peak = estimatePeakBytes(plan).bytes;
        const share = Math.ceil((peak * Math.ceil(plan.lights / set.shards.length)) / Math.max(1, plan.lights));
        for (const [i, shard] of set.shards.entries()) {
          const report = await preflight(shard.session.redis, { prefix: namespace.prefix, peakBytes: share, probeTag: probeTagOf(set, i, namespace.prefix) });
          const refusal = refusalOf(report, allowEviction);
          if (refusal) throw new SwcError(`refusing to write to node ${shard.node}: ${refusal}`, ExitCode.runtime);
          for (const finding of report.findings) {
            const note = finding.advisory ? 'note' : 'warning (--allow-eviction)';
            process.stderr.write(`swc bench: ${note}: node ${shard.node}: ${finding.detail}\n`);
          }
        }
      }
      const safe = await clusterSafePlan(set, plan, namespace.prefix);
      for (const f of safe.findings) {
        const label = f.variant !== undefined ? layoutLabel(f.variant) : undefined;
        process.stderr.write(
          `swc bench: cluster-safety finding: ${f.layout} cannot run on Redis Cluster: its ${f.operations.join(', ')} take keys in ${f.slots.length} hash slots; ` +
            `node ${f.node} answered ${f.operation}: ${f.error}` +
            (f.variant !== undefined ? `; running ${f.variant}${label ? ` (${label})` : ''} in its place\n` : `; its ${f.cells} cell(s) are not measured\n`),
        );
      }
      return { plan: safe.plan, findings: safe.findings };
    },
    async cleanUp(namespace, boundMs, serverCleanUp) {
      if (set.private) return;
      // Every primary at once, within the one bound; each says what it left and on which node.
      await Promise.all(set.shards.map((s) => serverCleanUp(() => s.session.connectAnother(), s.session.redis, s.session.url, namespace, boundMs, s.node)));
    },
  };
}
