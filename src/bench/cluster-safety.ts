/**
 * Cluster safety: which of a plan's layouts send one script call keys in
 * several hash slots (a cluster node refuses those with CROSSSLOT). Each such
 * layout becomes a finding, confirmed by one real call so it shows what Redis
 * says, and its cluster-safe variant (same design, keys in one slot) runs in
 * its place when the layout registry knows one. No layout is named here.
 */
import { RefusalError } from '../core/errors.js';
import { clusterSafeVariant, namespacedLayout } from '../layouts/index.js';
import type { Layout, Light } from '../layouts/types.js';
import type { ScriptCall } from '../lua/source.js';
import type { ClusterFinding } from '../measure/types.js';
import { keySlot } from '../redis/slot.js';
import { BENCH_EPOCH } from '../traffic/events.js';
import { cellsOf, type BenchPlan } from './plan.js';
import type { Shard, Target } from '../redis/target.js';

/** A plan made cluster-safe, and what was left out. */
export interface ClusterPlan {
  readonly plan: BenchPlan;
  readonly findings: ClusterFinding[];
  /** Variants added in place of a layout that crosses slots. */
  readonly added: string[];
}

/** `record_failure` of `stoplight-v5/record_failure`. */
const operationOf = (call: ScriptCall): string => call.script.id.slice(call.script.id.lastIndexOf('/') + 1);

/** A layout's three calls for one light, at the end of the plan's widest window. */
function sampleCalls(layout: Layout, plan: BenchPlan): ScriptCall[] {
  const window = Math.max(...plan.windows);
  const at = BENCH_EPOCH + (plan.durationSeconds ?? window);
  const light: Light = { name: 'slot-check' };
  return [
    layout.recordSuccess(light, { at, windowSeconds: window, eventId: 'slot-check' }),
    layout.recordFailure(light, { at, windowSeconds: window, eventId: 'slot-check', errorJson: '{}' }),
    layout.getMetrics(light, { at, windowSeconds: window }),
  ];
}

/**
 * Sends one crossing call to the node that owns its first key. A cluster
 * node checks a command's keys before it runs it, so the call is refused
 * with CROSSSLOT and writes nothing (had it run, it would have written
 * under the run's namespace, which the clean-up removes).
 */
async function confirm(target: Target, call: ScriptCall): Promise<{ error: string; node: string }> {
  const shard = target.shardOfKey(call.keys[0] as string);
  const { session, node } = target.shards[shard] as Shard;
  try {
    await session.redis.call('SCRIPT', 'LOAD', call.script.source);
    await session.redis.call('EVALSHA', call.script.sha1, String(call.keys.length), ...call.keys, ...call.args.map(String));
    return { error: `(no error: Redis ran the call although its keys hash to ${new Set(call.keys.map(keySlot)).size} slots)`, node };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err), node };
  }
}

/**
 * Checks every layout of `plan` for calls across slots; returns the plan
 * without those layouts (each followed by its cluster-safe variant, when
 * there is one and the plan lacks it) and a finding per layout left out.
 * Throws (exit 3) when no layout is left: every cell would fail.
 */
export async function clusterSafePlan(target: Target, plan: BenchPlan, prefix: string): Promise<ClusterPlan> {
  const findings: ClusterFinding[] = [];
  const added: string[] = [];
  const layouts: string[] = [];
  const options = plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {};
  const perLayout = cellsOf({ ...plan, layouts: [plan.layouts[0] as string] }).length;
  for (const name of plan.layouts) {
    const layout = namespacedLayout(name, prefix, options);
    const crossing = sampleCalls(layout, plan).filter((call) => new Set(call.keys.map(keySlot)).size > 1);
    const first = crossing[0];
    if (!first) {
      if (!layouts.includes(name)) layouts.push(name);
      continue;
    }
    const variant = clusterSafeVariant(name);
    const { error, node } = await confirm(target, first);
    findings.push({
      layout: name,
      operations: crossing.map(operationOf),
      operation: operationOf(first),
      slots: [...new Set(first.keys.map(keySlot))],
      error,
      node,
      cells: perLayout,
      ...(variant !== undefined ? { variant } : {}),
    });
    if (variant !== undefined && !plan.layouts.includes(variant) && !layouts.includes(variant)) {
      layouts.push(variant);
      added.push(variant);
    }
  }
  if (layouts.length === 0) {
    throw new RefusalError(
      `no layout of this run can run on Redis Cluster: ${findings.map((f) => `${f.layout}'s ${f.operation} takes keys in ${f.slots.length} hash slots (${f.error})`).join('; ')}`,
    );
  }
  return { plan: { ...plan, layouts }, findings, added };
}
