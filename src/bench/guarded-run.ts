/**
 * A guarded run: everything that stands between a run and a server swc did
 * not start, in one place and in this order. Scripts swc did not write are
 * probed on a private server (refused unless trusted); then, on the opened
 * target, every primary is checked before the first write (memory headroom,
 * eviction policy, replica role, ACL, a test write), layouts whose calls
 * cross hash slots are refused or set aside, the run takes its turn with
 * other swc runs, untrusted scripts are confined to a temporary ACL user,
 * the run runs, and its keys are removed on every way out. The CLI and the
 * library both go through here: a run on a shared server gets the same
 * refusals whichever way it is started.
 */
import type { Redis } from 'ioredis';
import { RefusalError } from '../core/errors.js';
import type { LayoutName } from '../layouts/index.js';
import type { LayoutOptions } from '../layouts/types.js';
import { redactUrl } from '../redis/connect.js';
import { preflight, refusalOf } from '../redis/preflight.js';
import type { Target } from '../redis/target.js';
import { deniedAsFinding, type RunUser } from '../safety/acl.js';
import { confineOrRefuse, guardUntrustedScripts } from '../safety/probe.js';
import { cleanHint, cleanUp, CLEANUP_BOUND_MS, plainTarget, SIGNAL_CLEANUP_BOUND_MS, sleep, STOP_WAIT_MS } from './cleanup.js';
import { createNamespace, markRun, purgeNamespace, waitForTurn, type Namespace, type RunHandle } from './namespace.js';

/** A line for the user (stderr in the CLI); `wrap`: a long line that may be wrapped to the terminal. */
export type Say = (line: string, options?: { wrap?: boolean }) => void;

/** What a guarded run is given, besides the run itself. */
export interface Guard {
  /** Who speaks in messages (`swc bench`, `swc verify`); also picks the wording of the checks. */
  readonly command: 'swc bench' | 'swc verify';
  /** The layouts the run calls, and the options they are built with (a scripts folder). */
  readonly layouts: readonly LayoutName[];
  readonly layoutOptions: LayoutOptions;
  /** Run scripts swc did not write on a server it did not start (after the probe, confined when the server lets swc). */
  readonly trustScripts?: boolean;
  /**
   * The user's server as named (a URL, or REDIS_URL's), when the run is not on
   * a server swc starts. Without it, the target opened says (its `private`).
   */
  readonly usersUrl?: string;
  /** Opens where the run writes; called after the scripts' probe, so nothing reaches a refused server. */
  readonly open: () => Promise<Target>;
  /** Checks on the opened target before the namespace is made (say, the build of a baseline). */
  readonly opened?: (target: Target) => Promise<void>;
  /** Bytes the run may hold at its peak on primary `index` (of `count`). */
  readonly peakBytes: (index: number, count: number) => number;
  /** Run even when the run may not fit under maxmemory. */
  readonly allowEviction?: boolean;
  /** Appended to a refusal, saying how to need less. */
  readonly refusalHint?: string;
  /**
   * Checks after every primary's preflight and before the scripts are
   * confined: `clusterMode` is true when a single server said it runs in
   * cluster mode (where calls across slots fail).
   */
  readonly checked?: (context: { readonly target: Target; readonly namespace: Namespace; readonly clusterMode: boolean }) => Promise<void>;
  /** Mark the run and wait for other swc runs on the server to end first, at most `timeoutMs`. */
  readonly takeTurns?: { readonly timeoutMs: number; readonly onWait: (others: readonly string[]) => void };
  /** The run's namespace (default a fresh one). */
  readonly namespace?: Namespace;
  /** Aborting it stops the run as a signal would (without the clean-up bound of a signal). */
  readonly signal?: AbortSignal;
  /** Where notes, warnings and the run's line go (default nowhere). */
  readonly say?: Say;
  /**
   * Registers a clean-up to run on a signal and returns its unregistering
   * (the CLI's shutdown hook). The clean-up runs on every other way out
   * whether or not this is given.
   */
  readonly onSignal?: (cleanup: () => Promise<void>) => () => void;
}

/** What the run itself is given. */
export interface GuardedContext {
  readonly target: Target;
  readonly namespace: Namespace;
  /** Aborted on a signal: the run stops writing. */
  readonly signal: AbortSignal;
  /** The temporary ACL user the untrusted scripts run as, when there is one. */
  readonly runUser: RunUser | null;
  /** Scripts swc did not write run on a server swc did not start: one call at a time per connection, each checked. */
  readonly untrusted: boolean;
  readonly say: Say;
}

/** Refuses (exit 3) when a primary is unsafe to write to; says each finding. */
async function checkEveryPrimary(guard: Guard, target: Target, namespace: Namespace, say: Say): Promise<boolean> {
  const bench = guard.command === 'swc bench';
  const count = target.shards.length;
  const reports = await target.each(async (shard, i) => {
    // On a cluster each primary's probe keys carry a hash tag it owns (still under the run's namespace).
    const tag = target.cluster ? probeTagOf(target, i, namespace.prefix) : undefined;
    const report = await preflight(shard.session.redis, {
      prefix: namespace.prefix,
      peakBytes: guard.peakBytes(i, count),
      ...(tag !== undefined ? { probeTag: tag } : {}),
    });
    const refusal = refusalOf(report, guard.allowEviction === true, guard.refusalHint);
    const which = !target.cluster ? 'this server' : bench ? `node ${shard.node}` : `cluster node ${shard.node}`;
    if (refusal) throw new RefusalError(`refusing to write to ${which}: ${refusal}`);
    for (const finding of report.findings) {
      const note = !bench || finding.advisory ? 'note' : 'warning (--allow-eviction)';
      say(`${guard.command}: ${note}: ${target.cluster ? `${which}: ` : ''}${finding.detail}`);
    }
    return report;
  });
  return reports.some((r) => r.cluster);
}

/** A hash tag whose slot primary `index` serves, for that primary's preflight probe keys. */
function probeTagOf(target: Target, index: number, prefix: string): string {
  for (let i = 0; i < 100_000; i += 1) {
    const tag = `probe-${i}`;
    if (target.shardOfKey(`${prefix}:{${tag}}`) === index) return tag;
  }
  return 'probe';
}

/** Removes the run's keys on every primary of a server swc did not start, within `boundMs`. */
async function removeKeys(guard: Guard, target: Target, namespace: Namespace, boundMs: number): Promise<void> {
  if (guard.command === 'swc bench') {
    // Every primary at once, within the one bound; each says what it left (and on which node, on a cluster).
    await Promise.all(
      target.shards.map((s) =>
        cleanUp(
          () => s.session.connectAnother(),
          s.session.redis,
          s.session.url,
          namespace,
          boundMs,
          target.cluster ? s.node : undefined,
          (line) => guard.say?.(line),
        ),
      ),
    );
    return;
  }
  try {
    await purgeNamespace(target.redis, namespace);
  } catch {
    guard.say?.(`${guard.command}: could not remove this run's keys; when Redis is back: ${cleanHint(target.url, namespace)}`);
  }
}

/**
 * Runs `run` under every guard (see the module comment) and returns what it
 * returned. Throws the refusal (exit 2 for scripts, 3 for the server) before
 * anything is written; the run's keys, its ACL user and its watchers are gone
 * when this returns or throws.
 */
export async function guardedRun<T>(guard: Guard, run: (context: GuardedContext) => Promise<T>): Promise<T> {
  const say: Say = guard.say ?? (() => undefined);
  const bench = guard.command === 'swc bench';
  // Scripts swc did not write are probed on a private server before they may reach the user's (src/safety/probe.ts).
  const untrusted = await guardUntrustedScripts({
    layouts: [...guard.layouts],
    layoutOptions: guard.layoutOptions,
    privateServer: guard.usersUrl === undefined,
    trust: guard.trustScripts === true,
    target: guard.usersUrl === undefined ? '' : redactUrl(guard.usersUrl),
    command: guard.command,
  });
  const target = await guard.open();
  await guard.opened?.(target);
  const namespace = guard.namespace ?? createNamespace();
  const stop = new AbortController();
  if (guard.signal?.aborted) stop.abort();
  guard.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const cleanups: (() => Promise<void>)[] = [];
  let running: Promise<T> | undefined;
  let finished = false;
  let heartbeat: RunHandle | undefined;
  let cleaning: Promise<void> | undefined;
  // Newest first: the ACL user and the watchers go before the keys.
  const cleanUpAll = (boundMs: number): Promise<void> =>
    (cleaning ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      heartbeat?.stop();
      if (!target.private) await removeKeys(guard, target, namespace, boundMs);
    })());
  // On a signal: stop writing first, then delete the run's keys (only under its namespace).
  const unregister = guard.onSignal?.(async () => {
    stop.abort();
    // A bench stuck behind a paused write does not notice the stop; clean up anyway. Still running here means a signal stopped it.
    const bound = running && !finished ? SIGNAL_CLEANUP_BOUND_MS : CLEANUP_BOUND_MS;
    if (running && bench) await Promise.race([running.catch(() => undefined), sleep(STOP_WAIT_MS)]);
    else await running?.catch(() => undefined);
    await cleanUpAll(bound);
  });
  try {
    let clusterMode = false;
    if (!target.private) {
      // Always shown: the run id is what finds leftovers.
      const where = target.cluster
        ? ` on ${target.shards.length} primaries (${target.shards.map((s) => s.node).join(', ')})`
        : ` on ${plainTarget(target.url)}`;
      const line = `${guard.command}: run ${namespace.prefix}: writing only under ${namespace.pattern}${bench ? where : ''}; removed at the end`;
      if (bench) say(line, { wrap: !target.cluster });
      clusterMode = await checkEveryPrimary(guard, target, namespace, say);
      if (!bench) say(line);
      if (guard.takeTurns) {
        const turns = guard.takeTurns;
        heartbeat = await markRun(target.redis, namespace);
        await waitForTurn(target.redis, heartbeat, { signal: stop.signal, timeoutMs: turns.timeoutMs, onWait: (others) => turns.onWait(others) });
      }
    }
    await guard.checked?.({ target, namespace, clusterMode });
    // After the probe, on the user's server: the scripts run as the run's temporary ACL user (src/safety/acl.ts).
    const admins: Redis | Redis[] = target.cluster ? target.shards.map((s) => s.session.redis) : target.redis;
    // The bytes the preflight allowed on each primary: the scripts' calls are checked against them (src/redis/call-limits.ts).
    const budgets = target.shards.map((_shard, i) => guard.peakBytes(i, target.shards.length));
    const runUser = untrusted ? await confineOrRefuse(untrusted, admins, namespace, (c) => void cleanups.push(c), budgets) : null;
    running = run({ target, namespace, signal: stop.signal, runUser, untrusted: untrusted !== null, say });
    void running.then(
      () => (finished = true),
      () => (finished = true),
    );
    // A NOPERM of the confined user is the finding it is (exit 1), not a crash.
    const admin = bench ? (target.shards[0]?.session.redis ?? target.redis) : target.redis;
    return await deniedAsFinding(running, admin, runUser);
  } finally {
    unregister?.();
    await cleanUpAll(CLEANUP_BOUND_MS);
  }
}
