/**
 * A guarded run: everything that stands between a run and a server swc did
 * not start, in one place and in this order. Scripts swc did not write are
 * probed on a private server (refused unless trusted); then, on the opened
 * target, every primary is checked before the first write (memory headroom,
 * eviction policy, replica role, ACL, a test write), untrusted scripts are
 * confined to a temporary ACL user (refused where none can be made, unless
 * `unconfinedScripts`) and the whole run is rehearsed on a private server
 * (refused when a call would not fit the user's server), the run takes its
 * turn with other swc runs, layouts whose calls cross hash slots are refused
 * or set aside, the run runs, and its keys are removed on every way out. The CLI and the
 * library both go through here: a run on a shared server gets the same
 * refusals whichever way it is started.
 */
import type { Redis } from 'ioredis';
import { InterruptedError, RefusalError } from '../core/errors.js';
import type { LayoutName } from '../layouts/index.js';
import type { LayoutOptions } from '../layouts/types.js';
import type { LuaScript } from '../lua/source.js';
import { redactUrl } from '../redis/connect.js';
import { preflight, refusalOf } from '../redis/preflight.js';
import type { Target } from '../redis/target.js';
import { deniedAsFinding, type RunUser } from '../safety/acl.js';
import { confineOrRefuse, guardUntrustedScripts, limitUntrusted, untrustedScripts, type Untrusted } from '../safety/probe.js';
import { rehearse } from '../safety/rehearsal.js';
import { trustLevelOf, type ScriptTrust } from '../safety/trust.js';
import { createLayout } from '../layouts/index.js';
import { cleanHint, cleanUp, CLEANUP_BOUND_MS, plainTarget, SIGNAL_CLEANUP_BOUND_MS, sleep, STOP_WAIT_MS } from './cleanup.js';
import { countNamespace, createNamespace, markRun, purgeNamespace, waitForTurn, type Namespace, type RunHandle } from './namespace.js';

/** A line for the user (stderr in the CLI); `wrap`: a long line that may be wrapped to the terminal. */
export type Say = (line: string, options?: { wrap?: boolean }) => void;

/** What a guarded run is given, besides the run itself. */
export interface Guard extends ScriptTrust {
  /** Who speaks in messages (`swc bench`, `swc verify`); also picks the wording of the checks. */
  readonly command: 'swc bench' | 'swc verify';
  /** The layouts the run calls, and the options they are built with (a scripts folder). */
  readonly layouts: readonly LayoutName[];
  readonly layoutOptions: LayoutOptions;
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
  /**
   * Registers what a second signal still does when it cuts the clean-up
   * short (the CLI's `onSecondSignal`): remove the run's temporary ACL user
   * (a credential) first, then return the lines saying which keys remain
   * and the command that removes them. Returns its unregistering.
   */
  readonly onSecondSignal?: (urgent: () => Promise<readonly string[]>) => () => void;
}

/** The targets a guarded run handed to its run (the user's, and the rehearsal's private one). */
const guarded = new WeakSet<Target>();

/**
 * Whether `target` is one a guarded run made and handed to its run: its
 * scripts were probed, confined and rehearsed there already, so a use case
 * given it runs as it is (see the package's `verifyLayout`).
 */
export const isGuarded = (target: object): boolean => guarded.has(target as Target);

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
  /** This is the rehearsal of the run on swc's private server (src/safety/rehearsal.ts): its result is dropped, so it shows no progress. */
  readonly rehearsal?: boolean;
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

/**
 * The rehearsal of a run of scripts swc did not write (src/safety/rehearsal.ts),
 * then the limits its calls are held to on every primary: refused (exit 3)
 * before the first write when a rehearsed call would not fit.
 */
async function rehearseThenLimit(
  guard: Guard,
  untrusted: Untrusted,
  admins: readonly Redis[],
  runUser: RunUser | null,
  namespace: Namespace,
  register: (cleanup: () => Promise<void>) => void,
  rehearsal: (target: Target) => Promise<unknown>,
  signal: AbortSignal,
  say: Say,
): Promise<void> {
  const count = admins.length;
  const whole = Math.max(1, guard.peakBytes(0, 1));
  const rehearsed = await rehearse({
    admins,
    target: untrusted.options.target,
    scripts: [...new Set(untrusted.layouts.flatMap((name) => untrustedScripts(createLayout(name, untrusted.options.layoutOptions))))],
    shareOf: (i) => (count === 1 ? 1 : Math.min(1, guard.peakBytes(i, count) / whole)),
    budgetOf: (i) => guard.peakBytes(i, count),
    run: rehearsal,
    say: (line) => say(`${guard.command}: ${line}`),
    signal,
    ...(runUser ? { confine: { namespace, files: runUser.files as Map<string, LuaScript> } } : {}),
  });
  if (signal.aborted) throw new InterruptedError();
  await limitUntrusted(untrusted, [...admins], runUser, register, rehearsed.limits);
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
    trust: trustLevelOf(guard),
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
  let madeUser: RunUser | null = null;
  const unregisterUrgent = target.private ? undefined : guard.onSecondSignal?.(() => lastWords(guard, target, namespace, madeUser));
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
    }
    const context = (t: Target): GuardedContext => {
      guarded.add(t);
      return { target: t, namespace, signal: stop.signal, runUser: null, untrusted: untrusted !== null, say: () => undefined };
    };
    // After the probe, on the user's server: the scripts run as the run's temporary ACL user (src/safety/acl.ts).
    const admins: Redis[] = target.cluster ? target.shards.map((s) => s.session.redis) : [target.redis];
    const register = (c: () => Promise<void>): void => void cleanups.push(c);
    const runUser = untrusted ? await confineOrRefuse(untrusted, admins, namespace, register) : null;
    madeUser = runUser;
    if (untrusted)
      await rehearseThenLimit(guard, untrusted, admins, runUser, namespace, register, (t) => run({ ...context(t), rehearsal: true }), stop.signal, say);
    if (guard.takeTurns && !target.private) {
      const turns = guard.takeTurns;
      heartbeat = await markRun(target.redis, namespace);
      await waitForTurn(target.redis, heartbeat, { signal: stop.signal, timeoutMs: turns.timeoutMs, onWait: (others) => turns.onWait(others) });
    }
    await guard.checked?.({ target, namespace, clusterMode });
    running = run({ ...context(target), runUser, say });
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
    unregisterUrgent?.();
  }
}

/** How long a second signal's look at the run's keys may take on each primary. */
const LAST_WORDS_BOUND_MS = 1500;

/**
 * On a second signal, on fresh connections (the run's may be stuck behind a
 * paused write): the run's temporary ACL user deleted on every primary, then
 * one line per primary where keys of the run remain, with the command that
 * removes them (and any user that could not be deleted).
 */
async function lastWords(guard: Guard, target: Target, namespace: Namespace, user: RunUser | null): Promise<string[]> {
  const opened: Redis[] = [];
  const fresh = (shard: Target['shards'][number]): Promise<Redis> =>
    Promise.race([
      shard.session.connectAnother().then((redis) => (opened.push(redis), redis)),
      sleep(LAST_WORDS_BOUND_MS).then(() => {
        throw new Error('no connection');
      }),
    ]);
  const lines: string[] = [];
  try {
    if (user) {
      const kept = await Promise.all(
        target.shards.map((shard) =>
          fresh(shard)
            .then((redis) => redis.call('ACL', 'DELUSER', user.name))
            .then(
              () => null,
              () => shard.node,
            ),
        ),
      );
      const left = kept.filter((node): node is string => node !== null);
      lines.push(
        left.length === 0
          ? `${guard.command}: removed the run's temporary ACL user ${user.name}`
          : `${guard.command}: could not remove the run's temporary ACL user ${user.name}${target.cluster ? ` on ${left.join(', ')}` : ''}; ${cleanHint(target.url, namespace)} removes it`,
      );
    }
    const counts = await Promise.all(
      target.shards.map((shard) =>
        Promise.race([fresh(shard).then((redis) => countNamespace(redis, namespace)), sleep(LAST_WORDS_BOUND_MS).then(() => null)]).catch(() => null),
      ),
    );
    for (const [i, count] of counts.entries()) {
      if (count === 0) continue;
      const on = target.cluster ? ` on node ${target.shards[i]?.node ?? '?'}` : '';
      lines.push(
        `${guard.command}: ${count === null ? 'some' : count} key(s) of this run remain under ${namespace.pattern}${on}; remove them with: ${cleanHint(target.url, namespace)}`,
      );
    }
  } finally {
    for (const redis of opened) redis.disconnect();
  }
  return lines;
}
