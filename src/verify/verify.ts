import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { formatCommand, monitoredLuaCommands, parseMonitorLine, rejectedCommand } from './rejected.js';
import type { Redis } from 'ioredis';
import type { ScriptCall } from '../lua/source.js';
import type { Layout, Light } from '../layouts/types.js';
import { ScriptError, ServerStateError, UsageError } from '../core/errors.js';
import { namespacedLayout } from '../layouts/index.js';
import { recipeOf, withLayoutsOf } from '../layouts/recipes.js';
import { guardedRun, isGuarded } from '../run/guarded-run.js';
import type { Session } from '../redis/connect.js';
import { redactUrl } from '../redis/url.js';
import { expiredKeys } from '../redis/info.js';
import { execPipeline, installScripts, type PipelineReply } from '../redis/scripts.js';
import { keySlot } from '../redis/slot.js';
import { singleTarget, type Target } from '../redis/target.js';
import { decideTrust, untrustedScripts } from '../safety/probe.js';
import { trustLevelOf, type ScriptTrust } from '../safety/trust.js';
import { LightJudge, verifyErrorJson, type Verdict } from './judge.js';
import { shrink, type ShrinkBudget } from './shrink.js';
import { generateTraffic } from './traffic.js';
import type {
  CrossSlotFinding,
  Disagreement,
  DeviationMiss,
  DeviationSeen,
  KeyWithoutTtl,
  ReproCall,
  ScriptFailure,
  UnreproducedProblem,
  VerifyProgress,
  VerifyResult,
} from './types.js';

/**
 * Options for {@link verifyLayout}. Its `trustScripts`/`unconfinedScripts` ({@link ScriptTrust},
 * the type `runBench` takes too): without either, a layout's scripts swc did
 * not write are refused on a server swc did not start (exit 2), before any
 * script is loaded, as `swc verify --redis-url` refuses them.
 */
export interface VerifyOptions extends ScriptTrust {
  /** Seed of the traffic: the same seed sends the same calls. */
  readonly seed: number;
  /** Calls in the main run, over every light. */
  readonly calls: number;
  /** Lights (default 8). */
  readonly lights?: number;
  /** Calls per pipelined batch (default 1000). */
  readonly batch?: number;
  /** Findings of each kind shrunk and listed (default 3); the rest are counted. */
  readonly maxListed?: number;
  /** Wall-clock limit on all shrinking, ms (default 30 000). */
  readonly shrinkMs?: number;
  /** Limit on all shrinking replays (default 2000). */
  readonly shrinkReplays?: number;
  readonly progress?: VerifyProgress;
  /** Stops between batches and replays. */
  readonly signal?: AbortSignal;
  /**
   * Replays each script error's reproduction under MONITOR to show the
   * command the server rejected as it received it (see rejectedCommand);
   * only on a server swc started itself.
   */
  readonly monitorRejected?: boolean;
}

/**
 * Where verify runs: a target, a session (a server swc started when its
 * `server` is set), or a bare connection, which is taken for a server swc
 * did not start.
 */
export type VerifyTarget = Redis | Session | Target;

/** The connection of `where`, whether swc started its server, and its address as messages show it. */
function openedOf(where: VerifyTarget): { redis: Redis; private: boolean; shown: string } {
  if ('shards' in where) return { redis: where.redis, private: where.private, shown: redactUrl(where.url) };
  if ('connectAnother' in where) return { redis: where.redis, private: where.server !== undefined, shown: redactUrl(where.url) };
  const { host, port, path } = where.options;
  return { redis: where, private: false, shown: path ? `unix:${path}` : `redis://${host ?? '127.0.0.1'}:${port ?? 6379}` };
}

/** A problem seen on one light of the main run: the light's calls up to it, and the verdict. */
interface Problem {
  readonly light: number;
  /** The light's calls, the last one showing the problem. */
  readonly calls: readonly ReproCall[];
  readonly verdict: Exclude<Verdict, { kind: 'ok' } | { kind: 'skip' } | { kind: 'deviation' }>;
  /**
   * Wall time the light surely waited before the call that shows it, ms: from
   * the replies of the batch that held its previous call to the sending of
   * the batch that holds this one (0 when both were in one batch).
   */
  readonly pauseMs: number;
}

type ProblemKind = Problem['verdict']['kind'];

/**
 * Drives seeded random traffic through `layout` on `redis` and through the
 * reference model, on the injected clock, and reports every reply that
 * disagrees (shrunk to the shortest calls found that still disagree, each
 * replayed on a fresh light), every error reply, every declared deviation
 * that did not happen as declared, the keys left without a TTL, and
 * whether each light's keys share one cluster slot.
 *
 * Writes only the keys of its own lights (named `swc-verify-<run>-…` under
 * the layout's prefix) and deletes them before returning. On a server swc
 * did not start, a layout with scripts swc did not write is refused unless
 * {@link VerifyOptions.trustScripts}, before any script is loaded; trusted,
 * they run as `swc verify --trust-scripts` runs them, through the one guarded
 * run (src/run/guarded-run.ts): probed and rehearsed on a private server,
 * then confined to a temporary ACL user and a namespace of their own. Given
 * a target the guarded run made, it runs there as it is.
 */
export async function verifyLayout(where: VerifyTarget, layout: Layout, options: VerifyOptions): Promise<VerifyResult> {
  // A target the guarded run made: probed, confined and rehearsed there already (swc verify's own calls).
  if (isGuarded(where)) return verifyOn(where, layout, options);
  const opened = openedOf(where);
  const untrusted = opened.private ? [] : untrustedScripts(layout);
  if (untrusted.length === 0) return verifyOn(where, layout, options);
  // A user's own scripts on a server swc did not start: the CLI's refusal, here in the use case, before anything is sent.
  decideTrust({ layouts: [layout.name], files: untrusted.map((s) => s.file), trust: trustLevelOf(options), target: opened.shown });
  // Trusted: as `swc verify --trust-scripts`, through the guarded run.
  return verifyGuarded(where, layout, options, opened.shown);
}

/** A generous bound on the bytes one verify call leaves in Redis at once (a 5.x event is about 120). */
export const PEAK_BYTES_PER_CALL = 250;

/**
 * A trusted layout of scripts swc did not write, on a server swc did not
 * start, run as `swc verify --trust-scripts` runs it: probed on a private
 * server, rehearsed there, then run under a namespace of its own as the
 * run's temporary ACL user (refused where none can be made, unless
 * `unconfinedScripts`), its keys removed at the end.
 */
async function verifyGuarded(where: VerifyTarget, layout: Layout, options: VerifyOptions, shown: string): Promise<VerifyResult> {
  if (!recipeOf(layout)) {
    throw new UsageError(
      `verifyLayout: ${layout.name}: its scripts are not swc's, and swc can only probe and confine a layout it built (createLayout, loadManifestLayout): build it with one of those`,
    );
  }
  // Connections of the run's own: confinement changes them, and the caller's stay as they were.
  const target = await targetOf(where);
  return withLayoutsOf([layout], () =>
    guardedRun(
      {
        command: 'swc verify',
        layouts: [layout.name],
        layoutOptions: {},
        ...(options.trustScripts !== undefined ? { trustScripts: options.trustScripts } : {}),
        ...(options.unconfinedScripts !== undefined ? { unconfinedScripts: options.unconfinedScripts } : {}),
        usersUrl: shown,
        open: () => Promise.resolve(target),
        peakBytes: () => options.calls * PEAK_BYTES_PER_CALL,
        refusalHint: ' (fewer calls need less memory)',
        ...(options.signal ? { signal: options.signal } : {}),
      },
      async ({ target: guarded, namespace, signal, rehearsal }) => {
        const { progress, ...rest } = options;
        const result = await verifyOn(guarded, namespacedLayout(layout.name, namespace.prefix), {
          ...rest,
          signal,
          ...(progress && !rehearsal ? { progress } : {}),
          monitorRejected: false,
        });
        return stripNamespace(result, `${namespace.prefix}:`);
      },
    ),
  ).finally(() => target.close());
}

/**
 * `where` as a target of connections of its own (a cluster's Target is used
 * as given): the guarded run confines the connections it runs on, so the
 * caller's are left alone, and these are closed when the run ends.
 */
async function targetOf(where: VerifyTarget): Promise<Target> {
  if ('shards' in where && where.cluster) return { ...where, close: () => Promise.resolve() };
  const first: Redis = 'shards' in where ? (where.shards[0] as { session: Session }).session.redis : 'connectAnother' in where ? where.redis : where;
  const opened: Redis[] = [];
  const another = async (): Promise<Redis> => {
    const redis = first.duplicate();
    opened.push(redis);
    if (redis.status === 'wait') await redis.connect();
    return redis;
  };
  const redis = await another();
  return singleTarget({
    redis,
    url: 'shards' in where ? where.url : 'connectAnother' in where ? where.url : openedOf(where).shown,
    connectAnother: another,
    close: () => Promise.resolve(opened.forEach((r) => r.disconnect())),
  });
}

/** Key names as the layout writes them, without a run's namespace. */
export function stripNamespace(result: VerifyResult, prefix: string): VerifyResult {
  return {
    ...result,
    keysWithoutTtl: result.keysWithoutTtl.map((k) => ({ ...k, key: k.key.startsWith(prefix) ? k.key.slice(prefix.length) : k.key })),
    scriptErrors: result.scriptErrors.map((e) => (e.rejected === undefined ? e : { ...e, rejected: e.rejected.split(prefix).join('') })),
  };
}

/** {@link verifyLayout}'s run on `where`, once the guards are passed. */
async function verifyOn(where: VerifyTarget, layout: Layout, options: VerifyOptions): Promise<VerifyResult> {
  const started = Date.now();
  const { redis } = openedOf(where);
  const run = randomBytes(4).toString('hex');
  const batch = options.batch ?? 1000;
  const maxListed = options.maxListed ?? 3;
  await installScripts(redis, layout.scripts);

  const traffic = generateTraffic({ seed: options.seed, calls: options.calls, ...(options.lights ? { lights: options.lights } : {}) });
  // After an error a light's state is unknown, so its traffic goes on under a fresh name (a new generation).
  const generations: Light[][] = traffic.lights.map((_, i) => [{ name: `swc-verify-${run}-l${i}g0` }]);
  const current = (i: number): Light => (generations[i] as Light[]).at(-1) as Light;
  const judges = traffic.lights.map((l) => new LightJudge(layout, l.windowSeconds));
  const history: ReproCall[][] = traffic.lights.map(() => []);
  // Per light: when the replies of the batch holding its last call came back (performance.now(), ms).
  const lastReplied: (number | undefined)[] = traffic.lights.map(() => undefined);
  // Keys the server expired on its own clock, over the main run (null where INFO is refused).
  const expiredBefore = await expiredKeys(redis);
  const restart = new Set<number>();
  let largestEviction = 0;
  const problems = new Map<ProblemKind, Problem[]>();
  const seen = new Map<string, number>();
  let compared = 0;
  // On a cluster: operations refused because their keys span slots, and the lights that met it.
  const crossSlot = new Map<ReproCall['op'], { calls: number; error: string; slots: number[]; keys: number }>();
  const crossSlotLights = new Set<string>();

  // The lights' keys are deleted on every way out (found again when the run stopped before the check).
  let keysByLight: string[][] | undefined;
  try {
    for (let from = 0; from < traffic.calls.length; from += batch) {
      options.signal?.throwIfAborted();
      const slice = traffic.calls.slice(from, from + batch);
      const calls = slice.map((c) => scriptCall(layout, current(c.light), c, (traffic.lights[c.light] as { windowSeconds: number }).windowSeconds));
      const sentAt = performance.now();
      const replies = await execPipeline(redis, calls);
      const repliedAt = performance.now();
      throwServerState(replies);
      slice.forEach((call, i) => {
        const own = history[call.light] as ReproCall[];
        const previous = lastReplied[call.light];
        // Batches go one after another: the one holding the light's previous call came back before this one was sent.
        const pauseMs = previous === undefined ? 0 : sentAt - previous;
        lastReplied[call.light] = repliedAt;
        own.push({ op: call.op, at: call.at });
        const refused = crossSlotText((replies[i] as PipelineReply)[0]);
        if (refused !== null) {
          // The call did not run: the light's state is no longer what the model holds, so it starts afresh.
          const keys = (calls[i] as ScriptCall).keys;
          const found = crossSlot.get(call.op) ?? { calls: 0, error: refused, slots: [...new Set(keys.map(keySlot))].sort((a, b) => a - b), keys: keys.length };
          found.calls += 1;
          crossSlot.set(call.op, found);
          crossSlotLights.add(current(call.light).name);
          restart.add(call.light);
          return;
        }
        const verdict = (judges[call.light] as LightJudge).judge(call, replies[i] as PipelineReply);
        if (verdict.kind === 'skip') return;
        if (verdict.kind === 'error') restart.add(call.light);
        else compared += 1;
        if (verdict.kind === 'ok') return;
        if (verdict.kind === 'deviation') {
          seen.set(verdict.id, (seen.get(verdict.id) ?? 0) + 1);
          return;
        }
        const list = problems.get(verdict.kind) ?? [];
        // One problem of each kind per light: later ones usually follow from the first.
        if (!list.some((p) => p.light === call.light)) {
          list.push({ light: call.light, calls: [...own], verdict, pauseMs });
        }
        problems.set(verdict.kind, list);
      });
      for (const i of restart) {
        largestEviction = Math.max(largestEviction, (judges[i] as LightJudge).largestEviction);
        const generation = generations[i] as Light[];
        generation.push({ name: `swc-verify-${run}-l${i}g${generation.length}` });
        judges[i] = new LightJudge(layout, (traffic.lights[i] as { windowSeconds: number }).windowSeconds);
        history[i] = [];
        lastReplied[i] = undefined;
      }
      restart.clear();
      options.progress?.onCalls?.(Math.min(from + batch, traffic.calls.length), traffic.calls.length);
    }

    const lights = generations.flat();
    const lightIndex = generations.flatMap((g, i) => g.map(() => i));
    keysByLight = await keysOfLights(redis, layout, lights);
    const { keysWithoutTtl, spanning } = await checkKeys(redis, keysByLight, lightIndex);
    // A light spans slots when its keys do, or when Redis Cluster refused one of its calls for it.
    const lightsSpanningSlots = lights.filter((light, i) => spanning[i] === true || crossSlotLights.has(light.name)).length;
    const crossSlotFindings: CrossSlotFinding[] = [...crossSlot].map(([op, f]) => ({ op, ...f }));

    let replayCount = 0;
    const replayLight = (): Light => ({ name: `swc-verify-${run}-r${replayCount++}` });
    const windowOf = (p: Problem): number => (traffic.lights[p.light] as { windowSeconds: number }).windowSeconds;
    const expiredAfter = await expiredKeys(redis);
    const expired = expiredBefore !== null && expiredAfter !== null && expiredAfter > expiredBefore;
    const unreproduced = expired
      ? await dropUnreproduced(problems, windowOf, (p) => replay(redis, layout, replayLight(), windowOf(p), p.calls), options.signal)
      : [];

    const budget: ShrinkBudget = {
      deadline: Date.now() + (options.shrinkMs ?? 30_000),
      replays: 0,
      maxReplays: options.shrinkReplays ?? 2000,
      exhausted: false,
    };
    const shrunk = async (kind: ProblemKind): Promise<{ problem: Problem; reproduction: ReproCall[]; verdict: Problem['verdict'] }[]> => {
      const list = [...(problems.get(kind) ?? [])].sort((a, b) => a.calls.length - b.calls.length).slice(0, maxListed);
      const out: { problem: Problem; reproduction: ReproCall[]; verdict: Problem['verdict'] }[] = [];
      for (const problem of list) {
        const windowSeconds = windowOf(problem);
        const original = problem.calls;
        options.progress?.onShrinkStart?.(`${kind} on a ${windowSeconds} s window`, original.length);
        const matches = sameProblem(problem);
        const reproduces = async (candidate: readonly ReproCall[]): Promise<number | null> => {
          options.signal?.throwIfAborted();
          return firstMatch(await replay(redis, layout, replayLight(), windowSeconds, candidate), matches);
        };
        const reproduction = await shrink(original, reproduces, budget);
        // The values shown are the reproduction's own (its last call, replayed once more), not the longer original's.
        const verdicts = await replay(redis, layout, replayLight(), windowSeconds, reproduction);
        const own = verdicts.at(-1);
        const verdict = own !== undefined && matches(own) ? (own as Problem['verdict']) : problem.verdict;
        out.push({ problem, reproduction, verdict });
      }
      return out;
    };

    // The operation of the reproduction's last call: the one its values are for.
    const opOf = (calls: readonly ReproCall[]): ReproCall['op'] => (calls.at(-1) as ReproCall).op;
    const disagreements: Disagreement[] = (await shrunk('disagreement')).map(({ problem, reproduction, verdict }) => {
      const v = verdict as Extract<Verdict, { kind: 'disagreement' }>;
      return {
        windowSeconds: windowOf(problem),
        op: opOf(reproduction),
        expected: v.expected,
        actual: v.actual,
        fields: v.fields,
        reproduction,
        originalLength: problem.calls.length,
      };
    });
    const scriptErrors: ScriptFailure[] = (await shrunk('error')).map(({ problem, reproduction, verdict }) => ({
      windowSeconds: windowOf(problem),
      op: opOf(reproduction),
      error: (verdict as Extract<Verdict, { kind: 'error' }>).error,
      reproduction,
      originalLength: problem.calls.length,
    }));
    if (options.monitorRejected) {
      for (const [i, e] of scriptErrors.entries()) {
        const rejected = await rejectedCommand(redis, async () => {
          await replay(redis, layout, replayLight(), e.windowSeconds, e.reproduction);
        }).catch(() => null);
        if (rejected !== null) scriptErrors[i] = { ...e, rejected };
      }
    }
    const deviationMisses: DeviationMiss[] = (await shrunk('deviation-miss')).map(({ problem, reproduction, verdict }) => {
      const v = verdict as Extract<Verdict, { kind: 'deviation-miss' }>;
      return {
        deviation: v.id,
        windowSeconds: windowOf(problem),
        predicted: v.predicted,
        actual: v.actual,
        reproduction,
        originalLength: problem.calls.length,
      };
    });
    const deviations: DeviationSeen[] = (layout.deviations ?? []).map((d) => ({ id: d.id, description: d.description, observed: seen.get(d.id) ?? 0 }));
    const lightsDisagreeing = problems.get('disagreement')?.length ?? 0;
    const lightsWithErrors = problems.get('error')?.length ?? 0;
    const misses = problems.get('deviation-miss')?.length ?? 0;
    return {
      layout: layout.name,
      seed: options.seed,
      calls: traffic.calls.length,
      compared,
      lights: traffic.lights.length,
      windows: traffic.lights.map((l) => l.windowSeconds),
      largestEviction: Math.max(largestEviction, ...judges.map((j) => j.largestEviction)),
      disagreements,
      lightsDisagreeing,
      scriptErrors,
      lightsWithErrors,
      deviationMisses,
      deviations,
      keysWithoutTtl,
      unreproduced: unreproduced.map((p) => ({
        kind: p.verdict.kind as UnreproducedProblem['kind'],
        windowSeconds: windowOf(p),
        calls: p.calls.length,
        pauseSeconds: Math.round(p.pauseMs / 100) / 10,
      })),
      crossSlot: crossSlotFindings,
      slots: { lightsChecked: lights.length, lightsSpanningSlots, oneSlotPerLight: lightsSpanningSlots === 0 },
      shrink: { replays: budget.replays, budgetExhausted: budget.exhausted },
      durationSeconds: (Date.now() - started) / 1000,
      findings: lightsDisagreeing + lightsWithErrors + misses + keysWithoutTtl.length + crossSlotFindings.length,
    };
  } finally {
    try {
      await deleteKeys(redis, (keysByLight ?? (await keysOfLights(redis, layout, generations.flat()))).flat());
    } catch {
      // Redis went away: the error that stopped the run says so; a caller's namespace purge is the safety net.
    }
  }
}

/** Whether a verdict is the problem's own kind (and, for a declared deviation, the same one). */
function sameProblem(problem: Problem): (v: Verdict) => boolean {
  const { verdict } = problem;
  return (v) => v.kind === verdict.kind && (v.kind !== 'deviation-miss' || v.id === (verdict as { id: string }).id);
}

/**
 * Takes out of `problems` (and returns) the disagreements and deviation
 * misses that depended on the server's own clock rather than the injected
 * one: the light waited at least its window in wall time just before the
 * call that shows it (a correct layout keeps what its window holds for at
 * least the window, so a shorter wait cannot have expired anything it
 * needs: a TTL shorter than that stays a finding), and its calls, replayed
 * at once on a fresh light, do not show it. The caller asks only when the
 * server expired keys during the run. Script errors stay as they are.
 */
async function dropUnreproduced(
  problems: Map<ProblemKind, Problem[]>,
  windowOf: (problem: Problem) => number,
  replayOf: (problem: Problem) => Promise<Verdict[]>,
  signal: AbortSignal | undefined,
): Promise<Problem[]> {
  const dropped: Problem[] = [];
  for (const kind of ['disagreement', 'deviation-miss'] as const) {
    const kept: Problem[] = [];
    for (const problem of problems.get(kind) ?? []) {
      signal?.throwIfAborted();
      const waited = problem.pauseMs >= windowOf(problem) * 1000;
      if (waited && firstMatch(await replayOf(problem), sameProblem(problem)) === null) dropped.push(problem);
      else kept.push(problem);
    }
    if (kept.length > 0) problems.set(kind, kept);
    else problems.delete(kind);
  }
  return dropped;
}

/** The script call of one verify call; failures carry a realistic error JSON. */
function scriptCall(layout: Layout, light: Light, call: ReproCall, windowSeconds: number): ScriptCall {
  const options = { at: call.at, windowSeconds };
  if (call.op === 'read') return layout.getMetrics(light, options);
  if (call.op === 'success') return layout.recordSuccess(light, options);
  return layout.recordFailure(light, { ...options, errorJson: verifyErrorJson(call.at, layout.stampPrecision ?? 'seconds') });
}

/**
 * Replays a reproduction on a fresh light of `layout` under MONITOR and
 * returns the command of the last call's script that matches `rejected`
 * (same command and arguments but the key and the last one), as this server
 * received it: what a build that accepts the call was sent in the place of
 * what another build refused. Null when nothing matches. Only for a server
 * swc started itself (see rejectedCommand).
 */
export async function acceptedInstead(
  redis: Redis,
  layout: Layout,
  windowSeconds: number,
  reproduction: readonly ReproCall[],
  rejected: string,
): Promise<string | null> {
  await installScripts(redis, layout.scripts);
  const wanted = parseMonitorLine(rejected);
  const light: Light = { name: `swc-verify-accepted-${randomBytes(4).toString('hex')}` };
  const seen = await monitoredLuaCommands(redis, () => replay(redis, layout, light, windowSeconds, reproduction).then(() => undefined));
  const same = (args: readonly string[]): boolean =>
    args.length === wanted.length && args[0]?.toUpperCase() === wanted[0]?.toUpperCase() && args.slice(2, -1).every((a, i) => a === wanted[i + 2]);
  const found = seen.filter(same).at(-1);
  return found ? formatCommand(found) : null;
}

/** Sends `calls` on a fresh light in one pipeline and judges every reply. */
async function replay(redis: Redis, layout: Layout, light: Light, windowSeconds: number, calls: readonly ReproCall[]): Promise<Verdict[]> {
  const judge = new LightJudge(layout, windowSeconds);
  const replies = await execPipeline(
    redis,
    calls.map((c) => scriptCall(layout, light, c, windowSeconds)),
  );
  throwServerState(replies);
  const verdicts = calls.map((c, i) => judge.judge(c, replies[i] as PipelineReply));
  // The layout lists the keys a light has over a time range: no SCAN per replay.
  const from = Math.floor((calls[0] as ReproCall).at);
  const to = Math.floor((calls.at(-1) as ReproCall).at);
  await deleteKeys(
    redis,
    layout.keysOf(light, from, to).map((k) => k.key),
  );
  return verdicts;
}

/**
 * A reply refused for the server's state (OOM, BUSY past the wait, READONLY,
 * NOPERM, …) or a lost connection says nothing about the layout: the run
 * stops with that error (exit 3) rather than report it as the layout's.
 */
function throwServerState(replies: readonly PipelineReply[]): void {
  for (const [err] of replies) {
    if (err && !(err instanceof ScriptError) && crossSlotText(err) === null) throw err;
  }
}

/**
 * What Redis said when it refused a call because its keys hash to different
 * slots (only a cluster node does), or null for any other reply. That says
 * something about the layout (not cluster-safe), so it is a finding, not a
 * server state that stops the run.
 */
export function crossSlotText(err: Error | null): string | null {
  if (!(err instanceof ServerStateError) || err.kind !== 'cluster') return null;
  const raw = err.cause instanceof Error ? err.cause.message : err.message;
  const match = /CROSSSLOT[^\n]*/.exec(raw);
  return match ? match[0] : null;
}

function firstMatch(verdicts: readonly Verdict[], matches: (v: Verdict) => boolean): number | null {
  const index = verdicts.findIndex(matches);
  return index === -1 ? null : index;
}

/** Who a key belongs to, as the layout's inspector reads it off the key. */
function ownerOf(layout: Layout, key: string): string | null {
  const owner = layout.inspector.lightOfKey(key);
  return owner ? `${owner.system ?? ''}\u0000${owner.light}` : null;
}

/**
 * Every key of these lights, found with SCAN over the layout's patterns
 * (never KEYS) and told apart by the layout's inspector; also the keys the
 * layout says a light has, in case a buggy script wrote outside its patterns.
 */
async function keysOfLights(redis: Redis, layout: Layout, lights: readonly Light[]): Promise<string[][]> {
  const index = new Map<string, number>();
  const keys = lights.map(() => new Set<string>());
  lights.forEach((light, i) => {
    const [first] = layout.keysOf(light, 0, 0);
    const owner = first ? ownerOf(layout, first.key) : null;
    if (owner) index.set(owner, i);
  });
  for (const pattern of layout.inspector.scanPatterns()) {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      for (const key of found) {
        const owner = ownerOf(layout, key);
        const i = owner === null ? undefined : index.get(owner);
        if (i !== undefined) keys[i]?.add(key);
      }
    } while (cursor !== '0');
  }
  return keys.map((set) => [...set]);
}

/** Keys with no expiry, and whether each light's keys fall in more than one cluster slot. */
async function checkKeys(
  redis: Redis,
  keysByLight: readonly string[][],
  lightIndex: readonly number[],
): Promise<{ keysWithoutTtl: KeyWithoutTtl[]; spanning: boolean[] }> {
  const keysWithoutTtl: KeyWithoutTtl[] = [];
  const spanning: boolean[] = [];
  for (const [index, keys] of keysByLight.entries()) {
    spanning.push(new Set(keys.map(keySlot)).size > 1);
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.ttl(key);
    const ttls = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      if (ttls[i]?.[1] === -1) keysWithoutTtl.push({ key, light: lightIndex[index] as number });
    });
  }
  return { keysWithoutTtl, spanning };
}

async function deleteKeys(redis: Redis, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}
