/**
 * The rehearsal: before scripts swc did not write send their first call to
 * a server swc did not start, the whole run goes once on a private
 * redis-server, with the same build where its binary is at hand (INFO
 * server's `executable`) and the user's server's encoding and memory
 * settings copied, the same namespace and the same traffic. Every call is
 * measured there (src/redis/call-limits.ts in rehearsal): the data it wrote
 * (used_memory_dataset), the Lua heap (used_memory_lua) and its server time.
 *
 * The run on the user's server is refused, before its first write, when a
 * rehearsed call went past the time budget or the Lua heap budget, or when
 * the run as rehearsed (its peak, plus a margin of twice its per-call
 * bound) would not fit under the user's maxmemory. What the rehearsal
 * measured then bounds the live run: a table doubling seen there (the
 * server's growth, not a script's write) is allowed for call by call.
 */
import { existsSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { FindingError, RefusalError } from '../core/errors.js';
import type { LuaScript } from '../lua/source.js';
import {
  asRehearsal,
  busyThresholdMs,
  callBudgetFor,
  callGrowthBound,
  limitCalls,
  memoryMargin,
  RehearsalStop,
  rehearsedNothing,
  type LiveLimits,
  type Rehearsed,
  wireScript,
} from '../redis/call-limits.js';
import { openSession } from '../redis/connect.js';
import { parseInfo } from '../redis/info.js';
import { ioredisChannel, watchRunawayScripts } from '../redis/scripts.js';
import { startPrivateServer, type PrivateServer } from '../redis/server.js';
import { singleTarget, type Target } from '../redis/target.js';
import { confineRun, denialFinding } from './acl.js';
import type { Namespace } from './namespace.js';

/**
 * Server settings copied from the user's server onto the rehearsal's: what
 * decides a key's encoding and bytes, when memory is freed, and how a dict
 * grows. Each is set with CONFIG SET once the private server runs; one the
 * build does not know, or the user's server does not show, keeps its default.
 */
export const REHEARSAL_SETTINGS = [
  'hash-max-listpack-entries',
  'hash-max-listpack-value',
  'hash-max-ziplist-entries',
  'hash-max-ziplist-value',
  'zset-max-listpack-entries',
  'zset-max-listpack-value',
  'zset-max-ziplist-entries',
  'zset-max-ziplist-value',
  'set-max-intset-entries',
  'set-max-listpack-entries',
  'set-max-listpack-value',
  'list-max-listpack-size',
  'list-max-ziplist-size',
  'list-compress-depth',
  'stream-node-max-bytes',
  'stream-node-max-entries',
  'activerehashing',
  'hz',
  'lazyfree-lazy-user-del',
  'lazyfree-lazy-server-del',
  'lazyfree-lazy-expire',
  'busy-reply-threshold',
  'lua-time-limit',
] as const;

/** What {@link rehearse} needs. */
export interface RehearsalInput {
  /** The user's server: every primary's connection (one on a single server). */
  readonly admins: readonly Redis[];
  /** The user's server as messages name it (redacted). */
  readonly target: string;
  /** The scripts swc did not write, for the runaway watch on the rehearsal's server. */
  readonly scripts: readonly LuaScript[];
  /** The share of the run's keys primary `i` holds (1 on a single server). */
  readonly shareOf: (index: number) => number;
  /** The bytes the preflight allowed the run on primary `i` (its estimate). */
  readonly budgetOf: (index: number) => number;
  /** Runs the run on the rehearsal's target, as it will run on the user's (a single server, not started by swc as far as the run can tell). */
  readonly run: (target: Target) => Promise<unknown>;
  /** A note (a build that differs from the user's). */
  readonly say: (line: string) => void;
  /** Aborted: the rehearsal ends and no run follows. */
  readonly signal?: AbortSignal;
  /**
   * The run's namespace and scripts when the live run is confined: the
   * rehearsal runs them as the same kind of temporary ACL user, so a script
   * that reaches outside is denied there, before the first write.
   */
  readonly confine?: { readonly namespace: Namespace; readonly files: Map<string, LuaScript> };
}

/** What a rehearsal found: its measurements, and the limits of the live run on each primary. */
export interface RehearsalResult {
  readonly rehearsed: Rehearsed;
  readonly limits: readonly LiveLimits[];
  /** The build it ran on, and whether it is the user's. */
  readonly build: string;
  readonly sameBuild: boolean;
}

const shown = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes`;

/** `redis 7.0.15`, `valkey 8.0.1` from INFO server. */
function buildOf(info: Record<string, string>): string {
  const name = info.server_name ?? 'redis';
  return `${name} ${(name === 'valkey' ? info.valkey_version : undefined) ?? info.redis_version ?? '?'}`;
}

/** The settings of {@link REHEARSAL_SETTINGS} the user's server shows (CONFIG GET; none where it is refused). */
async function settingsOf(redis: Redis): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of REHEARSAL_SETTINGS) {
    try {
      const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
      if (reply.length >= 2) out.set(name, String(reply[1]));
    } catch {
      break; // CONFIG refused: the build's defaults, said in the note
    }
  }
  return out;
}

/** Starts the rehearsal's server: the user's build where its binary is here, else the default one. */
async function startRehearsalServer(executable: string | undefined): Promise<PrivateServer> {
  if (executable !== undefined && existsSync(executable)) {
    try {
      return await startPrivateServer({ binary: executable });
    } catch {
      // Not startable here (another machine's path, a wrapper): the default build.
    }
  }
  return startPrivateServer({});
}

/** What stopped the rehearsal, in its words: a stop of the checks or the time guard said of the rehearsal, any other failure as such. */
function rehearsalWords(err: unknown, where: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RehearsalStop) return message;
  if (err instanceof RefusalError && message.startsWith('stopped: ')) return asRehearsal(message, where);
  return `the run failed in swc's rehearsal of it on ${where}: ${message}`;
}

/** The user's server's memory, per primary, as the rehearsal judges against it. */
interface Headroom {
  readonly admin: Redis;
  readonly usedBytes: number;
  readonly maxBytes: number;
  readonly policy: string;
}

async function headroomOf(admins: readonly Redis[]): Promise<Headroom[]> {
  const out: Headroom[] = [];
  for (const admin of admins) {
    const memory = parseInfo(String(await admin.call('INFO', 'memory')));
    out.push({
      admin,
      usedBytes: Number(memory.used_memory ?? 0),
      maxBytes: Number(memory.maxmemory ?? 0),
      policy: memory.maxmemory_policy ?? 'unknown policy',
    });
  }
  return out;
}

/**
 * The refusal when the run as rehearsed so far would not fit one primary of
 * the user's server: its peak (that primary's share) plus a margin of twice
 * the per-call bound must stay under maxmemory. Null when it fits.
 */
function wontFit(input: RehearsalInput, rooms: readonly Headroom[], rehearsed: Rehearsed, build: string): RehearsalStop | null {
  const margin = memoryMargin(callGrowthBound(rehearsed.largestCallBytes));
  for (const [i, room] of rooms.entries()) {
    const need = Math.ceil(rehearsed.peakDataBytes * input.shareOf(i));
    if (room.maxBytes <= 0 || room.usedBytes + need + margin <= room.maxBytes) continue;
    const node = rooms.length > 1 ? ` (node ${room.admin.options.host ?? '127.0.0.1'}:${room.admin.options.port ?? 6379})` : '';
    const largest = rehearsed.largestCallFile ? `, its largest call (${rehearsed.largestCallFile}) by ${shown(rehearsed.largestCallBytes)}` : '';
    return new RehearsalStop(
      `refused before the first write: in swc's rehearsal of this run on a private ${build}, the run grew the data by ${shown(need)}${rooms.length > 1 ? " (this primary's share)" : ''} by its call ${rehearsed.calls.toLocaleString('en-US')}${largest}; ` +
        `${input.target}${node} is ${shown(Math.max(0, room.maxBytes - room.usedBytes))} below its maxmemory (${shown(room.maxBytes)}, ${room.policy}), ` +
        `and scripts swc did not write need their peak plus a margin of ${shown(margin)} (twice the per-call bound) below it, so that no call can make Redis evict or refuse writes; ` +
        `nothing of the run was sent`,
    );
  }
  return null;
}

/**
 * Runs the run once on a private server shaped like the user's and measures
 * each call; throws a {@link RehearsalStop} (exit 3, nothing of the run sent
 * to the user's server) as soon as the run may not go there (a call past a
 * budget, or what was measured so far would not fit), else returns the
 * limits the live run is held to.
 */
export async function rehearse(input: RehearsalInput): Promise<RehearsalResult> {
  const first = input.admins[0];
  if (!first) throw new RefusalError('the rehearsal has no server to copy');
  const userInfo = parseInfo(String(await first.call('INFO', 'server')));
  const settings = await settingsOf(first);
  const callBudgetMs = callBudgetFor(await busyThresholdMs(first));
  let rooms = await headroomOf(input.admins);
  const server = await startRehearsalServer(userInfo.executable);
  const rehearsed = rehearsedNothing();
  const cleanups: (() => void | Promise<void>)[] = [() => server.stop()];
  let build = '';
  let sameBuild = false;
  try {
    const session = await openSession({ redisUrl: server.url });
    cleanups.push(() => session.close());
    for (const [name, value] of settings) await session.redis.call('CONFIG', 'SET', name, value).catch(() => undefined);
    build = buildOf(parseInfo(String(await session.redis.call('INFO', 'server'))));
    sameBuild = build === buildOf(userInfo);
    if (!sameBuild)
      input.say(`rehearsing on ${build}: ${input.target} runs ${buildOf(userInfo)}, whose binary is not at hand here (memory figures may differ a little)`);
    if (settings.size === 0)
      input.say(`rehearsing with ${build}'s default encoding settings: ${input.target} does not let swc read its own (CONFIG GET refused)`);
    const where = `a private ${build} at 127.0.0.1:${server.port}`;
    const channel = ioredisChannel(session.redis).server;
    const unwatch = await watchRunawayScripts(session.redis, where, input.scripts);
    cleanups.push(unwatch);
    const verdict = (so: Rehearsed): RehearsalStop | null => wontFit(input, rooms, so, build);
    const unlimit = await limitCalls(session.redis, channel, where, { rehearsal: rehearsed, callBudgetMs, verdict });
    cleanups.push(unlimit);
    const files = input.confine?.files;
    // Scripts go there with the time guard in: a denial names the guarded copy's SHA1, which is the same file.
    for (const script of [...(files?.values() ?? [])]) files?.set(wireScript(script, channel).sha1, script);
    const user = input.confine && files ? await confineRun(session.redis, input.confine.namespace, files) : null;
    if (user) cleanups.push(() => user.remove());
    try {
      await input.run(singleTarget(session));
    } catch (err) {
      if (input.signal?.aborted) throw err;
      if (err instanceof RehearsalStop && err.message.startsWith('refused before the first write')) throw err;
      const denied = user ? await denialFinding(session.redis, user, err) : null;
      if (denied) {
        const message = `${denied.message.replace(/; the user's keys are untouched$/, '')}; this was swc's rehearsal of the run on ${where}: nothing of the run was sent to ${input.target}`;
        throw new FindingError(message, { cause: err });
      }
      throw new RehearsalStop(`refused before the first write: ${rehearsalWords(err, where)}; nothing of the run was sent to ${input.target}`, { cause: err });
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  }
  // The user's server moved on meanwhile: judged again on what it holds now.
  rooms = await headroomOf(input.admins);
  const refused = wontFit(input, rooms, rehearsed, build);
  if (refused) throw refused;
  const limits = rooms.map((_room, i) => ({
    budgetBytes: Math.max(input.budgetOf(i), 2 * Math.ceil(rehearsed.peakDataBytes * input.shareOf(i))),
    rehearsedCallBytes: rehearsed.largestCallBytes,
  }));
  return { rehearsed, limits, build, sameBuild };
}
