/**
 * Limits on every call of scripts swc did not write, while they run on a
 * server swc did not start (`--trust-scripts`), and the measurements of the
 * rehearsal that runs them first on a private server (src/safety/rehearsal.ts).
 * A probe on a private server cannot prove that later calls behave, so each
 * call is checked after it answers, before the next one is sent:
 *
 * - calls go one at a time per connection (no pipeline, no batch queued
 *   behind one), so a slow or looping call never has calls of swc's waiting
 *   on the server behind it;
 * - a call that took more than {@link UNTRUSTED_CALL_BUDGET_MS} (or a
 *   quarter of the server's busy threshold, if lower) stops the run;
 * - used_memory is read after every call (INFO memory): a call that grew the
 *   server's data by more than the per-call bound, a run whose data grew
 *   past the bytes the preflight allowed it, or used_memory within the
 *   margin of maxmemory stops the run before Redis would evict anybody's
 *   keys or refuse their writes;
 * - used_memory_lua, the scripts' heap (outside used_memory, so maxmemory
 *   never sees it), grown by more than {@link UNTRUSTED_LUA_HEAP_BYTES}
 *   since the run started stops the run.
 *
 * The per-call bound is {@link UNTRUSTED_CALL_GROWTH_BYTES}, or twice the
 * largest call of the rehearsal when that is more: a sorted set's or hash's
 * table doubling (256 KB at 32,768 members, the server's own growth, not a
 * script's write) showed there, at the same call, and is allowed for. The
 * margin is at least twice that bound.
 *
 * The bound, honestly: a check runs after a call, so one call can still
 * write its own amount (or run its own time) before swc sees it. Every call
 * before it grew the data by at most the per-call bound and left used_memory
 * below the stop line, so the server holds at most the stop line plus that
 * one call's growth: Redis reaches maxmemory only when a single call writes
 * more than the margin, and the rehearsal refuses, before the first write,
 * a run whose largest call (or whole run) would not fit. A loop never
 * answers: the runaway watch (`watchRunawayScripts`) stops it with SCRIPT
 * KILL when Redis allows.
 */
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { RefusalError } from '../core/errors.js';
import { GUARD_LUA_HEAP_BYTES, guardedScript } from '../lua/guard.js';
import type { LuaScript } from '../lua/source.js';
import { guardStoppedError } from './errors.js';
import { parseInfo } from './info.js';

/** The longest one call of a script swc did not write may take on a user's server (well under Redis's 5 s busy threshold). */
export const UNTRUSTED_CALL_BUDGET_MS = 250;
/** The most one such call may grow the server's data (a counter call adds bytes, a key changing encoding tens of KB, and Redis allocates some 100-200 KB of its own the first time a server meets a slow call; a 256 KB APPEND is more). */
export const UNTRUSTED_CALL_GROWTH_BYTES = 256 * 1024;
/** How far below maxmemory such a run stops, at least: more than one call may grow, so the call that crosses the line does not reach maxmemory. */
export const UNTRUSTED_MEMORY_MARGIN_BYTES = 1024 * 1024;
/** How much the scripts' Lua heap (used_memory_lua) may grow over a run, on the rehearsal's server and on the user's. */
export const UNTRUSTED_LUA_HEAP_BYTES = GUARD_LUA_HEAP_BYTES;

/** The per-call growth bound of a run whose rehearsal's largest call grew the data by `rehearsedBytes`. */
export const callGrowthBound = (rehearsedBytes = 0): number => Math.max(UNTRUSTED_CALL_GROWTH_BYTES, 2 * rehearsedBytes);
/** How far below maxmemory a run with per-call bound `boundBytes` stops. */
export const memoryMargin = (boundBytes: number): number => Math.max(UNTRUSTED_MEMORY_MARGIN_BYTES, 2 * boundBytes);

/** What a run's calls on one server are held to. */
export interface LiveLimits {
  /** The bytes the preflight allowed the run there. */
  readonly budgetBytes: number;
  /** The largest growth of the data in one call in the run's rehearsal (absent: none). */
  readonly rehearsedCallBytes?: number;
}

/** What the rehearsal of a run measured, over every call (filled in by {@link CallLimits} in rehearsal). */
export interface Rehearsed {
  /** Calls checked. */
  calls: number;
  /** The largest growth of the data in one call, and the script that made it. */
  largestCallBytes: number;
  largestCallFile: string;
  /** The largest growth of the data since the start (the run's peak). */
  peakDataBytes: number;
  /** The largest growth of used_memory_lua since the start. */
  luaHeapBytes: number;
  /** The longest call, server time (INFO commandstats), and its script. */
  longestCallMs: number;
  longestCallFile: string;
}

/** A fresh {@link Rehearsed}. */
export const rehearsedNothing = (): Rehearsed => ({
  calls: 0,
  largestCallBytes: 0,
  largestCallFile: '',
  peakDataBytes: 0,
  luaHeapBytes: 0,
  longestCallMs: 0,
  longestCallFile: '',
});

/** A refusal of the rehearsal: a call on swc's private server went past a budget; nothing was sent to the user's server. */
export class RehearsalStop extends RefusalError {}

/** A stop of the checks or the time guard (`stopped: <file> <what> on <where>; …`) said of the rehearsal on `where`. */
export function asRehearsal(message: string, where: string): string {
  return message
    .replace(/^stopped: /, '')
    .replace(` on ${where}`, ` in swc's rehearsal of this run on ${where}`)
    .replace(/, and swc stopped the run \(what the call wrote before stays under the run's namespace, removed with it\)/, '');
}
/** How long after a jump of the data's bytes it is read again (Redis's client cron runs every 100 ms at the default hz). */
const CONFIRM_AFTER_MS = 250;
/** Redis's busy threshold when CONFIG GET is not allowed (busy-reply-threshold, lua-time-limit before 7.0). */
const DEFAULT_BUSY_THRESHOLD_MS = 5000;

/** The figures one check reads. */
interface Reading {
  readonly usedBytes: number;
  /** used_memory_dataset: the keys' bytes, without client buffers or the keyspace's own tables (a rehash is not a script's write). */
  readonly dataBytes: number;
  /** Microseconds the server spent in EVAL/EVALSHA calls so far (INFO commandstats). */
  readonly scriptUsec: number;
  /** used_memory_lua: the scripts' Lua heap (Redis 7.0+ also names it used_memory_vm_eval). */
  readonly luaBytes: number;
}

const number = (fields: Record<string, string>, name: string): number => Number(fields[name] ?? 0);
const shown = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes`;

/** The limits on one server, with the connection that reads its INFO. */
export class CallLimits {
  private last: Reading;
  private reading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    /** The server as messages name it (redacted URL). */
    readonly shownServer: string,
    /** The per-call time budget in ms. */
    readonly callBudgetMs: number,
    private readonly maxBytes: number,
    /** The bytes the preflight allowed the run on this server. */
    private readonly budgetBytes: number,
    private readonly start: Reading,
    /** The most one call may grow the data ({@link callGrowthBound}). */
    readonly callGrowthBytes: number = UNTRUSTED_CALL_GROWTH_BYTES,
    /** Set in a rehearsal: every call is measured into it, and only time, the Lua heap and {@link verdict} stop the run. */
    private readonly rehearsal?: Rehearsed,
    private readonly verdict?: (rehearsed: Rehearsed) => RefusalError | null,
  ) {
    this.last = start;
  }

  /**
   * What one call may send to Redis on this server (the guard weighs each call's arguments against it, src/lua/guard.ts): the per-call
   * bound on the user's server, where a call that behaved in the rehearsal could otherwise write megabytes and make Redis evict before
   * the check after the call; none in a rehearsal, which measures what calls write.
   */
  get sentBytesBound(): number {
    return this.rehearsal ? 0 : this.callGrowthBytes;
  }

  /** used_memory above which the run stops (maxmemory less the margin), or null without maxmemory. */
  get stopLineBytes(): number | null {
    return this.maxBytes > 0 ? this.maxBytes - memoryMargin(this.callGrowthBytes) : null;
  }

  /**
   * Checks one answered call of `file`, sent at `sentAtMs`
   * (performance.now()): throws the {@link RefusalError} that stops the run
   * when it took too long or memory grew past a bound. Checks are made one
   * after another, each against the reading before it.
   */
  afterCall(sentAtMs: number, file: string): Promise<void> {
    const tookMs = performance.now() - sentAtMs;
    const check = this.reading.then(() => this.check(tookMs, file));
    this.reading = check.catch(() => undefined);
    return check;
  }

  /** The error that stops the run when the time guard inside a script ended a call (src/lua/guard.ts): `reply` is its SWCGUARD error. */
  guardStopped(file: string, reply: unknown, script?: LuaScript): RefusalError {
    const stopped = guardStoppedError(file, reply, this.shownServer, script);
    return this.rehearsal ? new RehearsalStop(asRehearsal(stopped.message, this.shownServer)) : stopped;
  }

  private async check(tookMs: number, file: string): Promise<void> {
    const before = this.last;
    let now = await read(this.redis);
    this.last = now;
    const rehearsal = this.rehearsal;
    const stop = (what: string): RefusalError =>
      rehearsal
        ? new RehearsalStop(`${file} ${what} in swc's rehearsal of this run on ${this.shownServer}`)
        : new RefusalError(
            `stopped: ${file} ${what} on ${this.shownServer}; swc checks each call of scripts it did not write (--trust-scripts) and stopped the run`,
          );
    // The client's clock includes the network and this process's own delays: the server's time in scripts must say so too.
    const serverMs = (now.scriptUsec - before.scriptUsec) / 1000;
    if (rehearsal && serverMs > rehearsal.longestCallMs) {
      rehearsal.longestCallMs = serverMs;
      rehearsal.longestCallFile = file;
    }
    if (tookMs > this.callBudgetMs && serverMs > this.callBudgetMs) {
      throw stop(`took ${Math.round(Math.min(tookMs, serverMs)).toLocaleString('en-US')} ms in one call, over the per-call budget of ${this.callBudgetMs} ms`);
    }
    const lua = now.luaBytes - this.start.luaBytes;
    if (rehearsal) rehearsal.luaHeapBytes = Math.max(rehearsal.luaHeapBytes, lua);
    if (lua > UNTRUSTED_LUA_HEAP_BYTES) {
      throw stop(
        `grew the scripts' Lua heap (used_memory_lua, which maxmemory does not count) by ${shown(lua)}, over the budget of ${shown(UNTRUSTED_LUA_HEAP_BYTES)}`,
      );
    }
    let grew = now.dataBytes - before.dataBytes;
    if (grew > this.callGrowthBytes) {
      // Redis counts a client's buffers in its overhead only at its next cron pass (within 100 ms), so a
      // new connection's buffers can pass for data for a moment: a jump is read again before it stops the run.
      await new Promise((resolve) => setTimeout(resolve, CONFIRM_AFTER_MS));
      now = await read(this.redis);
      this.last = now;
      grew = now.dataBytes - before.dataBytes;
    }
    if (rehearsal) {
      // Measured, not judged here: the rehearsal compares the run's largest call and peak with the user's server (src/safety/rehearsal.ts).
      rehearsal.calls += 1;
      if (grew > rehearsal.largestCallBytes) {
        rehearsal.largestCallBytes = grew;
        rehearsal.largestCallFile = file;
      }
      rehearsal.peakDataBytes = Math.max(rehearsal.peakDataBytes, now.dataBytes - this.start.dataBytes);
      const refused = this.verdict?.(rehearsal);
      if (refused) throw refused;
      return;
    }
    if (grew > this.callGrowthBytes) {
      throw stop(`grew the server's data by ${shown(grew)} in one call, over the per-call bound of ${shown(this.callGrowthBytes)}`);
    }
    const line = this.stopLineBytes;
    if (line !== null && now.usedBytes > line) {
      throw stop(
        `brought used_memory to ${shown(now.usedBytes)}, within ${shown(this.maxBytes - now.usedBytes)} of maxmemory (${shown(this.maxBytes)}); ` +
          `the run stops ${shown(this.maxBytes - line)} below it, before Redis would evict or refuse writes`,
      );
    }
    const total = now.dataBytes - this.start.dataBytes;
    if (total > this.budgetBytes) {
      throw stop(`grew the server's data by ${shown(total)} since the run started, over the ${shown(this.budgetBytes)} the preflight allowed this run`);
    }
  }
}

/** used_memory, used_memory_dataset and the server's time in scripts, in one round trip. */
async function read(redis: Redis): Promise<Reading> {
  const replies = (await redis.pipeline().info('memory').info('commandstats').exec()) ?? [];
  const [memory, stats] = replies.map(([err, text]) => {
    if (err) throw err;
    return parseInfo(String(text));
  }) as [Record<string, string>, Record<string, string>];
  let scriptUsec = 0;
  for (const name of ['cmdstat_eval', 'cmdstat_evalsha', 'cmdstat_eval_ro', 'cmdstat_evalsha_ro']) {
    const usec = /(?:^|,)usec=(\d+)/.exec(stats[name] ?? '')?.[1];
    if (usec !== undefined) scriptUsec += Number(usec);
  }
  return {
    usedBytes: number(memory, 'used_memory'),
    dataBytes: number(memory, 'used_memory_dataset'),
    scriptUsec,
    luaBytes: Number(memory.used_memory_lua ?? memory.used_memory_vm_eval ?? 0),
  };
}

/** The server's busy threshold in ms (CONFIG GET; the default where it is not allowed). */
export async function busyThresholdMs(redis: Redis): Promise<number> {
  for (const name of ['busy-reply-threshold', 'lua-time-limit']) {
    try {
      const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
      const ms = Number(reply[1]);
      if (reply.length >= 2 && Number.isFinite(ms) && ms > 0) return ms;
    } catch {
      break; // CONFIG refused: the default
    }
  }
  return DEFAULT_BUSY_THRESHOLD_MS;
}

/** Limits by server (`host:port` or socket path, as a script channel names it). */
const limits = new Map<string, CallLimits>();

/** The limits on calls to `server`, when scripts swc did not write run there. */
export const callLimitsOf = (server: string): CallLimits | undefined => limits.get(server);

/**
 * `script` as it is sent to `server`: where that server's calls are limited
 * (scripts swc did not write, on a server swc did not start), the copy with
 * the time guard in (src/lua/guard.ts); else `script` itself.
 */
export function wireScript(script: LuaScript, server: string | undefined): LuaScript {
  const limited = server === undefined ? undefined : limits.get(server);
  return limited ? guardedScript(script, limited.callBudgetMs, limited.sentBytesBound) : script;
}

/** The per-call time budget on a server whose busy threshold is `thresholdMs`. */
export const callBudgetFor = (thresholdMs: number): number => Math.max(1, Math.min(UNTRUSTED_CALL_BUDGET_MS, Math.floor(thresholdMs / 4)));

/** How {@link limitCalls} limits a server: a run's live limits, or a rehearsal's. */
export type LimitMode =
  | LiveLimits
  | {
      readonly rehearsal: Rehearsed;
      readonly callBudgetMs: number;
      /** After each call: the refusal when what was measured so far already cannot fit the user's server (the rehearsal stops there). */
      readonly verdict?: (rehearsed: Rehearsed) => RefusalError | null;
    };

/**
 * Puts every script call to `admin`'s server under the limits above: a run
 * allowed `mode.budgetBytes` there (the preflight's figure), whose rehearsal
 * measured its largest call; or, with `mode.rehearsal`, the rehearsal itself
 * on swc's private server, measured into it, with the user's server's time
 * budget (so the same guarded copy of each script runs). Opened before the
 * scripts run (a new connection would get BUSY in its handshake). Returns
 * the function that lifts them and closes the reading connection.
 *
 * @param server the key script channels name the server by
 * @param shownServer the server as messages name it (redacted)
 */
export async function limitCalls(admin: Redis, server: string, shownServer: string, mode: LimitMode): Promise<() => void> {
  const redis = admin.duplicate();
  redis.on('error', () => undefined);
  if (redis.status === 'wait') await redis.connect();
  try {
    const memory = parseInfo(String(await redis.info('memory')));
    const start = await read(redis);
    let made: CallLimits;
    if ('rehearsal' in mode) {
      made = new CallLimits(redis, shownServer, mode.callBudgetMs, 0, Number.POSITIVE_INFINITY, start, Number.POSITIVE_INFINITY, mode.rehearsal, mode.verdict);
    } else {
      const budgetMs = callBudgetFor(await busyThresholdMs(redis));
      // A small run's estimate (verify's is 250 bytes a call) would stop on noise: at least the margin.
      const allowed = Math.max(mode.budgetBytes, UNTRUSTED_MEMORY_MARGIN_BYTES);
      made = new CallLimits(redis, shownServer, budgetMs, number(memory, 'maxmemory'), allowed, start, callGrowthBound(mode.rehearsedCallBytes));
    }
    limits.set(server, made);
    return () => {
      if (limits.get(server) === made) limits.delete(server);
      redis.disconnect();
    };
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}
