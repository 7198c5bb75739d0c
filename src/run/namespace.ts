import { DEFAULT_TURN_TIMEOUT_MS } from '../core/thresholds.js';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { RefusalError, ExitCode, InterruptedError, SwcError } from '../core/errors.js';
import { keySlot } from '../redis/slot.js';
import { SWC_VERSION } from '../core/version.js';
import { BENCH_ROOT, namespaceOf, PREFIX_SHAPE, type Namespace } from '../safety/namespace.js';

// The naming of a run's keys sits in safety/ (the probe and the run's ACL user
// are named from it); it is re-exported here for the code that reads it
// with the rest of a run's life (markers, turns, deletion).
export { BENCH_ROOT, createNamespace, namespaceOf, type Namespace } from '../safety/namespace.js';

/**
 * The run marker: a hash with the run's start time, host and pid, kept as
 * long as any key a layout writes can live (7 days) plus an hour, so
 * `swc clean` can tell the age of leftovers after a SIGKILL.
 */
export const runKey = (ns: Namespace): string => `${ns.prefix}:run`;
/** Exists while the run is alive: refreshed every few seconds, expires soon after a crash. */
export const aliveKey = (ns: Namespace): string => `${ns.prefix}:alive`;

const MARKER_TTL_SECONDS = 7 * 86400 + 3600;
const ALIVE_TTL_SECONDS = 15;
const ALIVE_REFRESH_MS = 5000;

/** Keys per DEL and per pipeline while deleting. */
const DELETE_BATCH = 500;
/** How long deleting waits out BUSY (another client's long script) before giving up. */
export const DEFAULT_CLEANUP_BOUND_MS = 6000;

/** Some keys could not be deleted in time; says how many (null: unknown) and why. */
export class CleanupIncompleteError extends SwcError {
  constructor(
    readonly left: number | null,
    readonly reason: string,
  ) {
    super(`${left ?? 'some'} key(s) left: ${reason}`, ExitCode.runtime);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Runs `op`, retrying while the server answers BUSY (a script of another
 * client is running; every command is refused until it ends) until
 * `deadline` (ms since epoch). Other errors go through.
 */
async function whileBusy<T>(deadline: number, op: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (!/^BUSY/.test(messageOf(err)) || Date.now() >= deadline) throw err;
      await sleep(100);
    }
  }
}

/**
 * Deletes exactly the given keys, one DEL per hash slot (in pipelined
 * batches), so a cluster node never answers CROSSSLOT, and waits out BUSY
 * until `boundMs` has passed. Throws {@link CleanupIncompleteError} naming
 * how many keys may remain. Returns how many were removed.
 */
export async function deleteKeys(redis: Redis, keys: readonly string[], boundMs = DEFAULT_CLEANUP_BOUND_MS): Promise<number> {
  const deadline = Date.now() + boundMs;
  const bySlot = new Map<number, string[]>();
  for (const key of keys) {
    const slot = keySlot(key);
    const group = bySlot.get(slot);
    if (group) group.push(key);
    else bySlot.set(slot, [key]);
  }
  const groups: string[][] = [];
  for (const group of bySlot.values()) {
    for (let i = 0; i < group.length; i += DELETE_BATCH) groups.push(group.slice(i, i + DELETE_BATCH));
  }
  let removed = 0;
  let pending = groups;
  while (pending.length > 0) {
    const batch = pending.slice(0, 100);
    const pipeline = redis.pipeline();
    for (const group of batch) pipeline.del(...group);
    let replies: [Error | null, unknown][];
    try {
      replies = ((await pipeline.exec()) ?? []) as [Error | null, unknown][];
    } catch (err) {
      throw new CleanupIncompleteError(pending.flat().length, messageOf(err));
    }
    const retry: string[][] = [];
    let lastError = '';
    batch.forEach((group, i) => {
      const [err, count] = replies[i] ?? [new Error('no reply'), 0];
      if (!err) removed += Number(count);
      else {
        retry.push(group);
        lastError = err.message;
      }
    });
    if (retry.length > 0) {
      if (!/^BUSY/.test(lastError) || Date.now() >= deadline) {
        throw new CleanupIncompleteError(retry.flat().length + pending.slice(batch.length).flat().length, lastError);
      }
      await sleep(100);
    }
    pending = [...retry, ...pending.slice(batch.length)];
  }
  return removed;
}

/** SCANs `pattern` and returns every key found (BUSY waited out until `deadline`). */
async function scanAll(redis: Redis, pattern: string, deadline: number): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await whileBusy(deadline, () => redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000));
    cursor = next;
    for (const key of keys) found.add(key);
  } while (cursor !== '0');
  return [...found];
}

/**
 * Deletes every key under the run's namespace, found with SCAN (never KEYS,
 * never FLUSHDB): the safety net at the end of a run and on Ctrl-C.
 * Returns how many keys were removed.
 */
export async function deleteNamespace(redis: Redis, namespace: Namespace, boundMs = DEFAULT_CLEANUP_BOUND_MS): Promise<number> {
  const deadline = Date.now() + boundMs;
  let keys: string[];
  try {
    keys = await scanAll(redis, namespace.pattern, deadline);
  } catch (err) {
    throw new CleanupIncompleteError(null, messageOf(err));
  }
  return deleteKeys(redis, keys, Math.max(0, deadline - Date.now()));
}

/**
 * Deletes the namespace until a pass finds nothing, so a write that was still
 * in flight when the run stopped cannot leave a key behind. Returns the keys
 * removed; throws {@link CleanupIncompleteError} when `boundMs` is not enough.
 */
export async function purgeNamespace(redis: Redis, namespace: Namespace, passes = 5, boundMs = DEFAULT_CLEANUP_BOUND_MS): Promise<number> {
  const deadline = Date.now() + boundMs;
  let total = 0;
  for (let pass = 0; pass < passes; pass += 1) {
    const removed = await deleteNamespace(redis, namespace, Math.max(0, deadline - Date.now()));
    total += removed;
    if (removed === 0 && pass > 0) break;
    await sleep(50);
  }
  return total;
}

/** How many keys the namespace holds (SCAN only: works while writes are paused). */
export async function countNamespace(redis: Redis, namespace: Namespace): Promise<number> {
  return (await scanAll(redis, namespace.pattern, Date.now())).length;
}

/** What a run marker says. */
export interface RunMarker {
  /** Always `swc`: what tells swc's marker from a hash a user happened to name alike. */
  readonly origin: string;
  /** The 8 hex digits of the namespace, repeated inside the marker. */
  readonly runId: string;
  readonly startedAt: number;
  readonly host: string;
  readonly pid: number;
  readonly swcVersion: string;
}

/** What a live run is doing: waiting for its turn, or writing (measuring). */
export type RunState = 'waiting' | 'writing';

/** Another run's alive key, read. */
export interface LiveRun {
  readonly prefix: string;
  readonly state: RunState;
  readonly startedAt: number;
}

/** A run's markers on the server, kept fresh until {@link RunHandle.stop}. */
export interface RunHandle {
  readonly namespace: Namespace;
  readonly startedAt: number;
  /** Rewrites the alive key with the new state (and keeps it so). */
  setState(state: RunState): Promise<void>;
  /** Stops refreshing the alive key (it expires, or the clean-up deletes it). */
  stop(): void;
  /**
   * Runs `body` with the heartbeat held: no alive-key write is in flight or
   * sent while it runs (one overdue is sent right after), so a reading of the
   * server's command counters inside it sees none of swc's own SETs.
   */
  quiet<T>(body: () => Promise<T>): Promise<T>;
}

/** Options of {@link markRun}; the refresh interval is a test's to shorten. */
export interface MarkRunOptions {
  readonly refreshMs?: number;
}

const aliveValue = (state: RunState, startedAt: number): string => `${state} ${startedAt}`;

/**
 * Marks the run as started and alive (`waiting`), and keeps the alive key
 * fresh until `stop` is called. Other runs read the alive keys to take turns
 * ({@link waitForTurn}); after a SIGKILL the key expires within 15 s.
 */
export async function markRun(redis: Redis, namespace: Namespace, aliveRedis: Redis = redis, options: MarkRunOptions = {}): Promise<RunHandle> {
  const refreshMs = options.refreshMs ?? ALIVE_REFRESH_MS;
  const startedAt = Date.now();
  const marker: Record<keyof RunMarker, string> = {
    origin: RUN_ORIGIN,
    runId: namespace.prefix.slice(BENCH_ROOT.length),
    startedAt: String(startedAt),
    host: os.hostname(),
    pid: String(process.pid),
    swcVersion: SWC_VERSION,
  };
  await redis.hset(runKey(namespace), marker);
  await redis.expire(runKey(namespace), MARKER_TTL_SECONDS);
  let state: RunState = 'waiting';
  // On a cluster the two markers may live on different nodes: `aliveRedis` owns the alive key.
  let inflight: Promise<unknown> = Promise.resolve();
  let lastWrite = 0;
  const write = (): Promise<unknown> => {
    lastWrite = Date.now();
    inflight = aliveRedis.set(aliveKey(namespace), aliveValue(state, startedAt), 'EX', ALIVE_TTL_SECONDS);
    return inflight;
  };
  await write();
  let stopped = false;
  let held = 0;
  let timer: NodeJS.Timeout | undefined;
  const beat = (): void => {
    timer = setInterval(() => {
      write().catch(() => undefined);
    }, refreshMs);
    timer.unref();
  };
  beat();
  return {
    namespace,
    startedAt,
    setState: async (next) => {
      state = next;
      await write();
    },
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    quiet: async (body) => {
      clearInterval(timer);
      held++;
      try {
        await inflight.catch(() => undefined);
        return await body();
      } finally {
        held--;
        if (!stopped && held === 0) {
          if (Date.now() - lastWrite >= refreshMs) write().catch(() => undefined);
          beat();
        }
      }
    },
  };
}

/** Other runs whose alive key exists: runs on this server (on every primary given, for a cluster) now, waiting or writing. */
export async function otherLiveRuns(servers: Redis | readonly Redis[], namespace: Namespace): Promise<LiveRun[]> {
  if (Array.isArray(servers)) {
    const all: LiveRun[] = [];
    for (const redis of servers as readonly Redis[]) all.push(...(await otherLiveRuns(redis, namespace)));
    return all.sort((a, b) => a.prefix.localeCompare(b.prefix));
  }
  const redis = servers as Redis;
  const keys = (await scanAll(redis, `${BENCH_ROOT}*:alive`, Date.now())).filter((k) => {
    const prefix = k.slice(0, -':alive'.length);
    return PREFIX_SHAPE.test(prefix) && prefix !== namespace.prefix;
  });
  if (keys.length === 0) return [];
  // GETs, not MGET: on a cluster node the keys sit in different slots.
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.get(key);
  const replies = (await pipeline.exec()) ?? [];
  const out: LiveRun[] = [];
  keys.forEach((key, i) => {
    const [state, at] = String(replies[i]?.[1] ?? '').split(' ');
    // A run of an older swc wrote a bare start time: count it as writing.
    out.push({ prefix: key.slice(0, -':alive'.length), state: state === 'waiting' ? 'waiting' : 'writing', startedAt: Number(at ?? state) || 0 });
  });
  return out.sort((a, b) => a.prefix.localeCompare(b.prefix));
}

/** Whether `a` goes before `b`: the earlier start, ties broken by prefix. */
const ahead = (a: { startedAt: number; prefix: string }, b: { startedAt: number; prefix: string }): boolean =>
  a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.prefix < b.prefix);

/** Options of {@link waitForTurn}. */
export interface TurnOptions {
  /** Give up after this long; default {@link DEFAULT_TURN_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Called once, when the run has to wait, with the runs ahead of it. */
  readonly onWait?: (ahead: readonly string[]) => void;
}

export { DEFAULT_TURN_TIMEOUT_MS };

/**
 * Waits until no other run is writing and no earlier run is waiting, then
 * marks this run `writing`. Two runs that flip at the same moment both see
 * it; the later one steps back. Runs on one server so take turns instead of
 * measuring each other's writes. Throws a SwcError (exit 3) after the
 * timeout, an InterruptedError when `signal` aborts.
 */
export async function waitForTurn(redis: Redis | readonly Redis[], run: RunHandle, options: TurnOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TURN_TIMEOUT_MS);
  const self = { prefix: run.namespace.prefix, startedAt: run.startedAt };
  let announced = false;
  for (;;) {
    if (options.signal?.aborted) throw new InterruptedError();
    const blocking = (await otherLiveRuns(redis, run.namespace)).filter((o) => o.state === 'writing' || ahead(o, self));
    if (blocking.length === 0) {
      await run.setState('writing');
      const clash = (await otherLiveRuns(redis, run.namespace)).filter((o) => o.state === 'writing' && ahead(o, self));
      if (clash.length === 0) return;
      await run.setState('waiting');
      continue;
    }
    if (!announced) {
      announced = true;
      options.onWait?.(blocking.map((o) => o.prefix));
    }
    if (Date.now() >= deadline) {
      const now = Date.now();
      const shown = blocking.map(
        (o) => `${o.prefix}, ${o.state}${o.startedAt > 0 ? `, started ${Math.max(0, Math.round((now - o.startedAt) / 1000))} s ago` : ''}`,
      );
      throw new RefusalError(
        `another swc run (${shown.join('; ')}) is using this server: swc waited ${Math.round((options.timeoutMs ?? DEFAULT_TURN_TIMEOUT_MS) / 1000)} s for it to end and did not start, ` +
          "since its writes would land in this run's figures; run again once it is done, or wait longer with --wait-for-runs <seconds> " +
          `(a run that died stops counting within ${ALIVE_TTL_SECONDS} s; swc clean lists the runs on this server)`,
      );
    }
    await sleep(250);
  }
}

/** Whether a process of this machine still exists (a run killed with SIGKILL leaves its alive key for up to 15 s). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The `origin` field of every run marker swc writes. */
export const RUN_ORIGIN = 'swc';

/**
 * Whether a marker hash proves the namespace is a run of swc: its origin,
 * its own run id and a start time (a marker of an swc from before `origin`
 * was written holds its version, start time, host and pid instead). Keys
 * that only look like swc's (`swc-bench:deadbeef:*` made by someone else)
 * have none, and `swc clean` leaves them alone.
 */
export function isRunMarker(prefix: string, marker: Readonly<Record<string, string>>): boolean {
  const started = /^\d{10,16}$/.test(marker.startedAt ?? '');
  if (!started) return false;
  if (marker.origin !== undefined) return marker.origin === RUN_ORIGIN && marker.runId === prefix.slice(BENCH_ROOT.length);
  return /^\d+\.\d+/.test(marker.swcVersion ?? '') && /^\d+$/.test(marker.pid ?? '') && (marker.host ?? '') !== '';
}

/** One namespace found by {@link listNamespaces}. */
export interface NamespaceUsage {
  readonly prefix: string;
  readonly keys: number;
  /** Sum of MEMORY USAGE … SAMPLES 0 over its keys; null when MEMORY is not allowed. */
  readonly bytes: number | null;
  /** When the run started (from its marker); null for runs older than markers. */
  readonly startedAt: number | null;
  readonly host: string | null;
  readonly pid: number | null;
  /** The run's alive key exists: it is probably still running. */
  readonly alive: boolean;
  /** Its run marker proves swc wrote it ({@link isRunMarker}); `swc clean` removes only such namespaces. */
  readonly marked: boolean;
}

/**
 * Every `swc-bench:<id>` namespace on the server, with its size and age,
 * oldest first. Read-only (SCAN, HGETALL of markers, MEMORY USAGE).
 */
export async function listNamespaces(redis: Redis, only?: Namespace): Promise<NamespaceUsage[]> {
  const keys = await scanAll(redis, only ? only.pattern : `${BENCH_ROOT}*`, Date.now());
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const prefix = key.slice(0, BENCH_ROOT.length + 8);
    // Keys under swc-bench: in another shape were not written by swc; leave them out.
    if (!PREFIX_SHAPE.test(prefix) || key[prefix.length] !== ':') continue;
    const group = groups.get(prefix);
    if (group) group.push(key);
    else groups.set(prefix, [key]);
  }
  const out: NamespaceUsage[] = [];
  for (const [prefix, members] of groups) {
    const ns = namespaceOf(prefix);
    let bytes: number | null = 0;
    for (let i = 0; i < members.length && bytes !== null; i += DELETE_BATCH) {
      const pipeline = redis.pipeline();
      for (const key of members.slice(i, i + DELETE_BATCH)) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
      const replies = (await pipeline.exec()) ?? [];
      if (replies.some(([err]) => err && /NOPERM|unknown command|ERR unknown/i.test(err.message))) bytes = null;
      else bytes += replies.reduce((sum, [, reply]) => sum + Number(reply ?? 0), 0);
    }
    // TYPE first: a user's key of another type under the marker's name is no marker (HGETALL would answer WRONGTYPE).
    const isHash = members.includes(runKey(ns)) && (await redis.type(runKey(ns)).catch(() => 'none')) === 'hash';
    const marker: Record<string, string> = isHash ? await redis.hgetall(runKey(ns)).catch(() => ({}) as Record<string, string>) : {};
    const marked = isRunMarker(prefix, marker);
    out.push({
      prefix,
      keys: members.length,
      bytes,
      startedAt: marked && marker.startedAt ? Number(marker.startedAt) : null,
      host: marked ? (marker.host ?? null) : null,
      pid: marked && marker.pid ? Number(marker.pid) : null,
      alive: members.includes(aliveKey(ns)) && !(marker.host === os.hostname() && marker.pid && !processExists(Number(marker.pid))),
      marked,
    });
  }
  return out.sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0) || a.prefix.localeCompare(b.prefix));
}
