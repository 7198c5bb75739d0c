/**
 * `swc bench` as a guarded run (src/run/guarded-run.ts): the plan's
 * layouts probed, every primary checked, layouts whose calls cross hash
 * slots refused (a single server in cluster mode) or replaced by their
 * cluster-safe variant (a cluster), then {@link runBench} (or one layout at a
 * time, for a ranking) and the clean-up. This is the bench the package
 * exports: a library call gets the CLI's refusals.
 */
import { RefusalError } from '../core/errors.js';
import { layoutLabel } from '../layouts/index.js';
import type { ClusterFinding, BenchReport } from '../measure/types.js';
import type { Session } from '../redis/connect.js';
import { singleTarget, type Target } from '../redis/target.js';
import { clusterSafePlan } from './cluster-safety.js';
import { estimatePeakBytes } from './footprint.js';
import { plainTarget } from '../run/cleanup.js';
import { guardedRun, type Guard, type GuardedContext, type Say } from '../run/guarded-run.js';
import type { Namespace } from '../run/namespace.js';
import type { BenchPlan } from './plan.js';
import { layoutsAcrossSlots, runBench, type BenchProgress, type BenchRun } from './run.js';
import { runBenchPerLayout } from './suggest-run.js';
import type { Unmeasured } from './suggest.js';
import type { ScriptTrust } from '../safety/trust.js';

/** Inputs of {@link guardedBench}. */
export interface GuardedBench extends ScriptTrust {
  /** Where to write: an open session, a target ({@link clusterTarget}), or `open` to open one after the scripts' probe. */
  readonly session?: Session;
  readonly target?: Target;
  readonly open?: () => Promise<Target>;
  readonly plan: BenchPlan;
  /** Every key of the run goes under this namespace (default a fresh one). */
  readonly namespace?: Namespace;
  /** Run even when the run may not fit under maxmemory. */
  readonly allowEviction?: boolean;
  /** The user's server as named, for messages (default the target's URL, unless swc started it). */
  readonly usersUrl?: string;
  /**
   * A single server in cluster mode: leave the layouts whose calls cross
   * slots out (returned in `setAside`) instead of refusing, unless every
   * layout does.
   */
  readonly setAsideCrossSlot?: boolean;
  /** One layout at a time, a failing layout named instead of ending the run (a ranking's run). */
  readonly perLayout?: boolean;
  /** Progress hooks for the plan that runs (after a cluster's substitutions). */
  readonly progress?: BenchProgress | ((plan: BenchPlan, target: Target) => BenchProgress);
  /** Options echoed into the report, for the plan that runs. */
  readonly options?: Record<string, unknown> | ((plan: BenchPlan) => Record<string, unknown>);
  /** Aborting stops the run before its next pipeline. */
  readonly signal?: AbortSignal;
  readonly turnWaitMs?: number;
  /** Checks on the opened target before the namespace is made. */
  readonly opened?: (target: Target) => Promise<void>;
  /** Just before the run starts, with the plan that runs. */
  readonly starting?: (plan: BenchPlan) => void;
  readonly say?: Say;
  readonly onSignal?: Guard['onSignal'];
  readonly onSecondSignal?: Guard['onSecondSignal'];
}

/** What a guarded bench returns. */
export interface GuardedBenchResult {
  readonly report: BenchReport;
  /** The plan that ran. */
  readonly plan: BenchPlan;
  readonly namespace: Namespace;
  /** Layouts left out on a single server in cluster mode (with {@link GuardedBench.setAsideCrossSlot}). */
  readonly setAside: readonly { layout: string; slots: number[] }[];
  /** Layouts whose script failed, with {@link GuardedBench.perLayout}. */
  readonly failed: readonly Unmeasured[];
}

function openOf(input: GuardedBench): () => Promise<Target> {
  if (input.open) return input.open;
  const given = input.target ?? (input.session ? singleTarget(input.session) : undefined);
  if (!given || given.shards.length === 0) throw new Error('runBench: give a session or a target');
  return () => Promise.resolve(given);
}

/**
 * Runs a bench under every guard and returns its report with the plan that
 * ran. Refused (exit 2) before anything is sent when untrusted scripts are
 * not trusted; refused (exit 3) before the first write when a primary is
 * unsafe to write to; the run's keys are removed on every way out.
 */
export async function guardedBench(input: GuardedBench): Promise<GuardedBenchResult> {
  let plan = input.plan;
  let findings: ClusterFinding[] = [];
  const setAside: { layout: string; slots: number[] }[] = [];
  const say: Say = input.say ?? (() => undefined);
  const usersUrl =
    input.usersUrl ?? (input.session && !input.session.server ? input.session.url : input.target && !input.target.private ? input.target.url : undefined);
  const guard: Guard = {
    command: 'swc bench',
    layouts: plan.layouts,
    layoutOptions: plan.scriptsDir !== undefined ? { scriptsDir: plan.scriptsDir } : {},
    ...(input.trustScripts !== undefined ? { trustScripts: input.trustScripts } : {}),
    ...(input.unconfinedScripts !== undefined ? { unconfinedScripts: input.unconfinedScripts } : {}),
    ...(usersUrl !== undefined ? { usersUrl } : {}),
    open: openOf(input),
    ...(input.opened ? { opened: input.opened } : {}),
    // Lights spread evenly: each primary holds about its share of the peak.
    peakBytes: (_i, count) => {
      const peak = estimatePeakBytes(plan).bytes;
      return count === 1 ? peak : Math.ceil((peak * Math.ceil(plan.lights / count)) / Math.max(1, plan.lights));
    },
    allowEviction: input.allowEviction === true,
    ...(input.namespace ? { namespace: input.namespace } : {}),
    say,
    ...(input.onSignal ? { onSignal: input.onSignal } : {}),
    ...(input.onSecondSignal ? { onSecondSignal: input.onSecondSignal } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    checked: async ({ target, namespace, clusterMode }) => {
      if (target.cluster) {
        const safe = await clusterSafePlan(target, plan, namespace.prefix);
        for (const f of safe.findings) {
          const label = f.variant !== undefined ? layoutLabel(f.variant) : undefined;
          say(
            `swc bench: cluster-safety finding: ${f.layout} cannot run on Redis Cluster: its ${f.operations.join(', ')} take keys in ${f.slots.length} hash slots; ` +
              `node ${f.node} answered ${f.operation}: ${f.error}` +
              (f.variant !== undefined ? `; running ${f.variant}${label ? ` (${label})` : ''} in its place` : `; its ${f.cells} cell(s) are not measured`),
          );
        }
        plan = safe.plan;
        findings = safe.findings;
        return;
      }
      const spanning = clusterMode ? layoutsAcrossSlots(plan, namespace.prefix) : [];
      if (spanning.length === 0) return;
      if (input.setAsideCrossSlot && spanning.length < plan.layouts.length) {
        setAside.push(...spanning);
        plan = { ...plan, layouts: plan.layouts.filter((l) => !spanning.some((s) => s.layout === l)) };
        return;
      }
      throw new RefusalError(
        `refusing to write to this server: it runs in cluster mode, and ${spanning.map((s) => `${s.layout}'s scripts take keys in ${s.slots.length} hash slots`).join(', ')} ` +
          `(Redis would answer CROSSSLOT); leave ${spanning.length > 1 ? 'those layouts' : 'it'} out with --layout`,
      );
    },
  };
  let failed: Unmeasured[] = [];
  let ranNamespace: Namespace | undefined;
  const report = await guardedRun(guard, async ({ target, namespace, signal, untrusted, rehearsal }: GuardedContext) => {
    ranNamespace = namespace;
    if (untrusted && plan.throughput) {
      // Calls go one at a time, each followed by swc's checks (src/redis/call-limits.ts): a figure of that is not throughput.
      const { throughput: _skipped, ...rest } = plan;
      plan = rest;
      say(
        `swc bench: throughput not measured: scripts swc did not write run one call at a time on ${plainTarget(target.url)}, each checked for time and memory (--trust-scripts); measure it on a private server (drop --redis-url)`,
      );
    }
    // The rehearsal on swc's private server (src/safety/rehearsal.ts) runs the same plan, silently: its report is dropped.
    if (!rehearsal) input.starting?.(plan);
    const progress = rehearsal ? undefined : typeof input.progress === 'function' ? input.progress(plan, target) : input.progress;
    const options = typeof input.options === 'function' ? input.options(plan) : input.options;
    const run: BenchRun = {
      signal,
      ...(input.turnWaitMs !== undefined ? { turnWaitMs: input.turnWaitMs } : {}),
      ...(target.cluster ? { shards: target, findings } : { session: target.shards[0]?.session as Session }),
      plan,
      namespace,
      ...(progress ? { progress } : {}),
      ...(options ? { options } : {}),
    };
    if (!input.perLayout) return runBench(run);
    const joined = await runBenchPerLayout(run);
    if (!rehearsal) failed = joined.failed;
    return joined.report;
  });
  return { report, plan, namespace: ranNamespace as Namespace, setAside, failed };
}

/**
 * The package's `runBench`: {@link guardedBench}, returning the report. On a
 * server swc did not start it refuses what `swc bench --redis-url` refuses
 * (untrusted scripts without `trustScripts`, a server that could evict or
 * refuse the run's writes without `allowEviction`, a replica, a missing
 * permission, layouts that cross slots in cluster mode), and removes every
 * key of the run when it ends.
 */
export async function runGuardedBench(run: GuardedBench): Promise<BenchReport> {
  return (await guardedBench(run)).report;
}
