/**
 * The script runner: the only code that loads swc's Lua into Redis, runs it,
 * re-runs what a SCRIPT FLUSH dropped, and turns the errors into typed ones
 * (via {@link classifyRedisError}). ioredis connections and the load
 * engine's RESP sockets both go through it, as a {@link ScriptChannel}.
 *
 * Calls are plain EVALSHA with NOSCRIPT handled here, not ioredis'
 * `defineCommand`: ioredis re-sends a pipelined call that hit NOSCRIPT on
 * its own, after the calls queued behind it, so a read could see a write
 * that had not happened yet; and the load engine cannot use ioredis at all.
 * One path of our own keeps both kinds of connection on the same rules.
 */
import { performance } from 'node:perf_hooks';
import { Command, type Redis } from 'ioredis';
import { ExitCode, RefusalError, ScriptError, SwcError } from '../core/errors.js';
import { locate, type LuaScript, type ScriptCall } from '../lua/source.js';
import { callLimitsOf, wireScript, type CallLimits } from './call-limits.js';
import { classifyRedisError, isGuardStop, type ErrorContext } from './errors.js';

/** One command: its name and arguments, as RESP bulk strings. */
export type RedisCommand = readonly string[];

/**
 * A connection as the runner sees it: sends commands in order, in one write,
 * and resolves with every reply, an Error for each error reply. Rejects only
 * when the connection itself fails.
 */
export interface ScriptChannel {
  /** The server it talks to (`host:port` or a socket path): scripts loaded through any channel to it are reloaded together. */
  readonly server: string;
  /** The ACL user, for NOPERM messages. */
  readonly user: string;
  send(commands: readonly RedisCommand[]): Promise<unknown[]>;
  /** Closes the connection, so calls queued behind a runaway script never run ({@link stopIfRunaway}). */
  readonly abort?: () => void;
}

/** How the runner waits out a busy server. */
export interface RunnerOptions {
  /**
   * How long to keep retrying while another client's script keeps the
   * server BUSY (a BUSY call did not run, so retrying is safe); 0 fails at
   * once. Default 5000 ms.
   */
  readonly busyWaitMs?: number;
}

const DEFAULT_BUSY_WAIT_MS = 5000;
/** Reloads in a row without one call getting through before swc gives up on a flushing server. */
const MAX_STALLS = 5;

/** Every script loaded through the runner, per server: a reload restores all of them at once. */
const loadedOn = new Map<string, Set<LuaScript>>();

/** `scripts` and every script loaded before on `server`, each once, as they are sent there (see {@link wireScript}). */
const withLoaded = (server: string, scripts: readonly LuaScript[]): LuaScript[] => [
  ...new Set([...(loadedOn.get(server) ?? []), ...scripts].map((script) => wireScript(script, server))),
];

/** Remembers scripts that loaded (only those: a script that failed to compile must not break later loads). */
function remember(server: string, scripts: readonly LuaScript[]): void {
  let known = loadedOn.get(server);
  if (!known) loadedOn.set(server, (known = new Set()));
  for (const script of scripts) known.add(script);
}

const replyCommand = (name: string, args: readonly string[]): Command => new Command(name, [...args], { replyEncoding: 'utf8' });

const channels = new WeakMap<Redis, ScriptChannel>();

/**
 * The channel of an ioredis connection. Commands go out corked, as one
 * write, without building an ioredis Pipeline (that copies every defined
 * command onto itself and costs more than small batches of calls).
 */
export function ioredisChannel(redis: Redis): ScriptChannel {
  let channel = channels.get(redis);
  if (channel) return channel;
  const { host, port, path, username } = redis.options;
  channel = {
    server: path ?? `${host ?? '127.0.0.1'}:${port ?? 6379}`,
    user: username || 'default',
    send: (commands) => {
      // Not ready: ioredis queues the commands itself and writes them later.
      const stream = redis.status === 'ready' ? redis.stream : undefined;
      const replies = new Array<Promise<unknown>>(commands.length);
      stream?.cork();
      try {
        for (let i = 0; i < commands.length; i += 1) {
          const [name, ...args] = commands[i] as RedisCommand;
          const command = replyCommand(name as string, args);
          redis.sendCommand(command);
          replies[i] = (command.promise as Promise<unknown>).catch((err: unknown) => {
            // An error reply is an answer; anything else means the connection failed.
            if (err instanceof Error && err.name === 'ReplyError') return err;
            throw err;
          });
        }
      } finally {
        stream?.uncork();
      }
      return Promise.all(replies);
    },
    abort: () => redis.disconnect(),
  };
  channels.set(redis, channel);
  return channel;
}

/**
 * Routes every script call made through `redis` (loads, calls, pipelines)
 * over `confined` instead: a connection of a temporary ACL user whose
 * permissions end at the run's namespace (src/safety/acl.ts).
 */
export function confineScriptsOf(redis: Redis, confined: Redis): void {
  channels.set(redis, ioredisChannel(confined));
}

/** Sends through a channel; a failed connection is thrown typed. */
async function sendOn(channel: ScriptChannel, commands: readonly RedisCommand[], context: ErrorContext): Promise<unknown[]> {
  const limits = callLimitsOf(channel.server);
  if (limits && commands.some((c) => c[0] === 'EVALSHA')) return oneAtATime(channel, commands, context, limits);
  try {
    return await (watches.has(channel.server) ? watched(channel, commands) : channel.send(commands));
  } catch (err) {
    throw classifyRedisError(err, { ...context, user: channel.user });
  }
}

/** The last send of each limited channel: the next waits for it, so no call queues behind another on one connection. */
const lastSend = new WeakMap<ScriptChannel, Promise<unknown>>();
/** What stopped a limited channel: every call queued behind it fails with it. */
const stoppedWith = new WeakMap<ScriptChannel, unknown>();

/**
 * Under {@link callLimitsOf}'s limits (scripts swc did not write, on a
 * server swc did not start): each command is sent once the one before has
 * answered and passed the checks, never pipelined or queued behind another
 * call on the same connection.
 */
function oneAtATime(channel: ScriptChannel, commands: readonly RedisCommand[], context: ErrorContext, limits: CallLimits): Promise<unknown[]> {
  const run = async (): Promise<unknown[]> => {
    // A runaway, or a call past the limits, stops every call queued on the channel with the same error, not a "closed connection".
    const stopped = stoppedWith.get(channel);
    if (stopped !== undefined) throw stopped;
    const replies: unknown[] = [];
    for (const command of commands) {
      const sentAt = performance.now();
      let reply: unknown;
      try {
        [reply] = await (watches.has(channel.server) ? watched(channel, [command]) : channel.send([command]));
      } catch (err) {
        // The runaway watch closed this connection under another call of the channel: that runaway is the error.
        const runaway = runawayOn.get(channel.server);
        throw runaway ? await runaway : classifyRedisError(err, { ...context, user: channel.user });
      }
      replies.push(reply);
      if (command[0] !== 'EVALSHA') continue;
      const script = scriptsIn(channel.server, [command])[0];
      const file = script?.file ?? 'a script';
      if (reply instanceof Error && isGuardStop(reply)) throw limits.guardStopped(file, reply, script);
      if (reply instanceof Error) continue;
      await limits.afterCall(sentAt, file);
    }
    return replies;
  };
  const sending = (lastSend.get(channel) ?? Promise.resolve()).then(run).catch((err: unknown) => {
    if (err instanceof RunawayScriptError || err instanceof RefusalError) stoppedWith.set(channel, err);
    throw err;
  });
  lastSend.set(
    channel,
    sending.catch(() => undefined),
  );
  return sending;
}

/**
 * A second connection to a server that runs scripts swc did not write, open
 * before they run (a new one would get BUSY in its handshake): it notices a
 * runaway script and stops it with SCRIPT KILL.
 */
interface RunawayWatch {
  /** The server as shown in messages (a redacted URL). */
  readonly shown: string;
  readonly redis: Redis;
  /** The scripts swc did not write, to name when the call that ran away cannot be told. */
  readonly scripts: readonly LuaScript[];
}

/** Watches by {@link ScriptChannel.server}: the confined user's connection and the admin's share one. */
const watches = new Map<string, RunawayWatch>();

/** How long a batch of calls may be unanswered before the watch asks the server whether a script blocks it. */
export const RUNAWAY_FIRST_CHECK_MS = 1000;
const RUNAWAY_CHECK_EVERY_MS = 500;
/** How long swc keeps killing the calls queued behind a runaway one (each runs to the busy threshold first: 5 s by default). */
const RUNAWAY_KILL_BOUND_MS = 30_000;

/**
 * Watches script calls made on `redis`'s server (through any channel to
 * it, the load engine's sockets included) for a runaway: a call left
 * unanswered while the server answers BUSY to another connection is one of
 * swc's own (a script blocking the server from elsewhere would have made
 * swc's call answer BUSY at once, not wait). swc then closes the connection
 * that waits (the calls queued behind the script must not run), sends
 * SCRIPT KILL and fails with a {@link RunawayScriptError} saying what state
 * the server is in. Returns the function that stops watching and closes the
 * second connection.
 *
 * @param shown the server as messages name it (redacted URL)
 * @param scripts the scripts that may run away (swc's own cannot loop)
 */
export async function watchRunawayScripts(redis: Redis, shown: string, scripts: readonly LuaScript[]): Promise<() => void> {
  const second = redis.duplicate();
  second.on('error', () => undefined);
  try {
    if (second.status === 'wait') await second.connect();
    await second.ping();
  } catch (err) {
    second.disconnect();
    throw classifyRedisError(err, { command: 'PING' });
  }
  const server = ioredisChannel(redis).server;
  const watch: RunawayWatch = { shown, redis: second, scripts };
  watches.set(server, watch);
  return () => {
    if (watches.get(server) === watch) watches.delete(server);
    second.disconnect();
  };
}

/** Whether script calls to `server` are watched for runaways ({@link watchRunawayScripts}). */
export const isWatched = (server: string): boolean => watches.has(server);

/** A script swc ran did not end: killed with SCRIPT KILL, or left running when Redis refused (the message says which). */
export class RunawayScriptError extends SwcError {
  constructor(
    message: string,
    /** What SCRIPT KILL answered: `killed`, `UNKILLABLE`, `NOTBUSY`, or another error's text. */
    readonly killed: string,
  ) {
    // Not a ScriptError: the run stops here, instead of going on to the next layout on a server that may still be busy.
    super(message, ExitCode.runtime);
  }
}

/**
 * Asks `server`'s watch whether a script blocks the server. When it does
 * (BUSY), the waiting connection is closed (`abort`), SCRIPT KILL is sent,
 * and the error saying what happened is returned; null when the server
 * answers, or nothing watches it.
 *
 * @param startedAt when the unanswered call was sent (Date.now())
 * @param among the files of the scripts the waiting calls run, when the caller can tell
 */
export async function stopIfRunaway(server: string, startedAt: number, abort: () => void, among?: ReadonlySet<string>): Promise<RunawayScriptError | null> {
  const watch = watches.get(server);
  if (!watch) return null;
  const pong = await watch.redis.ping().catch((err: unknown) => err);
  if (!isBusy(pong)) return null;
  const ranMs = Date.now() - startedAt;
  let settle: (err: RunawayScriptError) => void = () => undefined;
  runawayOn.set(server, new Promise((resolve) => (settle = resolve)));
  abort();
  // Closing swc's connection does not drop the calls Redis has already read from it: each runs in turn, and may run away too.
  const until = Date.now() + RUNAWAY_KILL_BOUND_MS;
  let kills = 0;
  let answer: string;
  let after: unknown;
  for (;;) {
    answer = await watch.redis.call('SCRIPT', 'KILL').then(
      () => 'killed',
      (err: unknown) => messageOf(err),
    );
    kills += 1;
    // NOTBUSY after a kill: the last queued call ended between the PING and this kill.
    if (answer !== 'killed' && !(kills > 1 && answer.startsWith('NOTBUSY'))) break;
    if (answer !== 'killed') answer = 'killed';
    // PONG once no call of swc's blocks the server; BUSY (after the threshold) when the next one ran away as well.
    after = await settled(watch.redis);
    if (!isBusy(after) || Date.now() >= until) break;
  }
  const candidates = watch.scripts.map((s) => s.file).filter((f) => among === undefined || among.has(f));
  const files = candidates.length > 0 ? candidates : watch.scripts.map((s) => s.file);
  const named = files.length === 1 ? `script ${files[0] ?? ''}` : `one of the scripts ${files.join(', ')}`;
  const head = `${named} ran over ${(ranMs / 1000).toFixed(1)} s on ${watch.shown} (Redis answered BUSY)`;
  const code = /^[A-Z]+/.exec(answer)?.[0];
  const times = kills > 1 ? ` (${kills} times: the calls queued behind it on swc's connection ran away too)` : '';
  const tail =
    answer === 'killed'
      ? isBusy(after)
        ? `swc sent SCRIPT KILL ${kills} times within ${RUNAWAY_KILL_BOUND_MS / 1000} s (each call queued behind it on swc's connection runs away too) and the server is still busy: send SCRIPT KILL until PING answers`
        : `swc sent SCRIPT KILL${times}: killed; the server answers again`
      : code === 'UNKILLABLE'
        ? `the script had written, so SCRIPT KILL was refused (UNKILLABLE${kills > 1 ? `, at the ${kills}th call: the calls queued behind the first ran away too` : ''}): the server stays busy until SHUTDOWN NOSAVE or the script ends`
        : code === 'NOTBUSY'
          ? `swc sent SCRIPT KILL${times}: NOTBUSY (the script had just ended by itself)`
          : `swc sent SCRIPT KILL, which failed (${answer}): the server may stay busy until SHUTDOWN NOSAVE or the script ends`;
  const stopped = new RunawayScriptError(`${head}; ${tail}`, code === 'UNKILLABLE' || code === 'NOTBUSY' ? code : answer === 'killed' ? 'killed' : answer);
  settle(stopped);
  return stopped;
}

/** The runaway being stopped on a server, once swc closed its connection there: a call that meets the closed connection fails with it. */
const runawayOn = new Map<string, Promise<RunawayScriptError>>();

/** PINGs that must answer in a row, {@link SETTLE_GAP_MS} apart, before the server counts as free again. */
const SETTLE_PINGS = 3;
const SETTLE_GAP_MS = 100;

/**
 * PONG once the server answered {@link SETTLE_PINGS} PINGs in a row, or the
 * second BUSY. One PONG is not enough: Redis reads the closed connection's
 * pipeline a chunk per event-loop turn, so the next queued call may start
 * right after a PING was answered (and a PING sent then waits for it). One
 * BUSY is not enough either: Redis acts on SCRIPT KILL at the killed
 * script's next hook, and a PING read in the same pass still answers BUSY.
 */
async function settled(redis: Redis): Promise<unknown> {
  let last: unknown = 'PONG';
  let busy = 0;
  for (let pongs = 0; pongs < SETTLE_PINGS;) {
    if (pongs > 0 || busy > 0) await new Promise((resolve) => setTimeout(resolve, SETTLE_GAP_MS));
    last = await redis.ping().catch((err: unknown) => err);
    if (!isBusy(last)) pongs += 1;
    else if (++busy === 2) return last;
  }
  return last;
}

/** The scripts of `commands`' EVALSHA calls, among those loaded on `server`. */
function scriptsIn(server: string, commands: readonly RedisCommand[]): LuaScript[] {
  const shas = new Set(commands.filter((c) => c[0] === 'EVALSHA').map((c) => c[1]));
  return [...(loadedOn.get(server) ?? [])].filter((s) => shas.has(s.sha1));
}

/** Sends `commands`, and meanwhile asks the server's watch whether a script of theirs has run away. */
async function watched(channel: ScriptChannel, commands: readonly RedisCommand[]): Promise<unknown[]> {
  if (!commands.some((c) => c[0] === 'EVALSHA') || !channel.abort) return channel.send(commands);
  const started = Date.now();
  let answered = false;
  let stopping = false;
  const abort = (): void => {
    stopping = true;
    channel.abort?.();
  };
  const sending = channel.send(commands).finally(() => {
    answered = true;
  });
  // Once the watch closes the connection, its "connection closed" is not the error, nor the killed call's reply that may still
  // arrive on the closing socket: the runaway is.
  const never = (): Promise<never> => new Promise<never>(() => undefined);
  const replies = sending.then(
    (answers) => (stopping ? never() : answers),
    (err: unknown) => (stopping ? never() : Promise.reject(err)),
  );
  let timer: NodeJS.Timeout | undefined;
  const tick = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    });
  const watching = (async (): Promise<unknown[]> => {
    await tick(RUNAWAY_FIRST_CHECK_MS);
    for (;;) {
      if (answered) return replies;
      // Which call runs cannot be told (Redis holds back the replies before it while the script runs): name the batch's scripts.
      const files = new Set(scriptsIn(channel.server, commands).map((s) => s.file));
      const stopped = await stopIfRunaway(channel.server, started, abort, files);
      if (stopped) throw stopped;
      if (answered) return replies;
      await tick(RUNAWAY_CHECK_EVERY_MS);
    }
  })();
  try {
    return await Promise.race([replies, watching]);
  } finally {
    clearTimeout(timer);
    watching.catch(() => undefined);
    sending.catch(() => undefined);
  }
}

const isChannel = (target: Redis | ScriptChannel): target is ScriptChannel =>
  typeof (target as Partial<ScriptChannel>).server === 'string' && typeof (target as Partial<ScriptChannel>).send === 'function';

const channelOf = (target: Redis | ScriptChannel): ScriptChannel => (isChannel(target) ? target : ioredisChannel(target));

/** The EVALSHA command of a call. */
export function evalshaCommand(call: ScriptCall, server?: string): RedisCommand {
  const { keys, args } = call;
  const command = new Array<string>(3 + keys.length + args.length);
  command[0] = 'EVALSHA';
  command[1] = wireScript(call.script, server).sha1;
  command[2] = String(keys.length);
  let i = 3;
  for (const key of keys) command[i++] = key;
  for (const arg of args) command[i++] = typeof arg === 'string' ? arg : String(arg);
  return command;
}

const messageOf = (reply: unknown): string => (typeof reply === 'string' ? reply : reply instanceof Error ? reply.message : '');

/** Whether a reply error (an Error, or a message) says the script is not in the server's cache. */
export const isNoScript = (err: unknown): boolean => messageOf(err).startsWith('NOSCRIPT');

/** Whether a reply error says the server is blocked by a running script (the command did not run). */
export const isBusy = (err: unknown): boolean => messageOf(err).startsWith('BUSY');

/** Whether a reply error says the call did not run and may be sent again as it was. */
const notRun = (err: unknown): boolean => isNoScript(err) || isBusy(err);

/** Waits out a BUSY server: resolves while there is time left, throws the BUSY error once there is none. */
class BusyWait {
  private readonly started = Date.now();
  private attempts = 0;
  constructor(private readonly limitMs: number) {}

  async next(reply: unknown, context: ErrorContext): Promise<void> {
    this.attempts += 1;
    const waitedMs = Date.now() - this.started;
    if (waitedMs >= this.limitMs) {
      const busy = this.limitMs > 0 ? { waitedMs, attempts: this.attempts } : undefined;
      throw classifyRedisError(reply, { ...context, ...(busy ? { busy } : {}) });
    }
    const pauseMs = Math.min(50 * 2 ** Math.min(this.attempts - 1, 4), this.limitMs - waitedMs);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** The commands that load `scripts` in one transaction. */
const loadCommands = (scripts: readonly LuaScript[]): RedisCommand[] => [['MULTI'], ...scripts.map((s) => ['SCRIPT', 'LOAD', s.source]), ['EXEC']];

/**
 * Checks the replies of {@link loadCommands}: returns true when every script
 * is loaded and hashed to swc's SHA1, the BUSY reply when the server was
 * blocked, and throws the typed error of any other failure.
 */
function checkLoad(channel: ScriptChannel, scripts: readonly LuaScript[], replies: readonly unknown[]): true | Error {
  const exec = replies.at(-1);
  // EXEC's array holds each load's result; without one (EXECABORT, or MULTI
  // itself refused) the loads' own replies say what happened.
  const results = Array.isArray(exec) ? (exec as unknown[]) : replies.slice(1, -1);
  // Loaded and hashed alike: done, even if MULTI was refused and they loaded one by one.
  if (scripts.every((script, i) => results[i] === script.sha1)) {
    remember(channel.server, scripts);
    return true;
  }
  const failedAt = results.findIndex((r) => r instanceof Error);
  const failure = failedAt !== -1 ? results[failedAt] : [replies[0], exec].find((r) => r instanceof Error);
  if (failure === undefined) {
    const script = scripts.find((s, i) => results[i] !== s.sha1) as LuaScript;
    const got = results[scripts.indexOf(script)];
    throw new ScriptError(`${script.file}: SCRIPT LOAD returned SHA1 ${String(got)}, not swc's ${script.sha1}; the server hashes scripts differently`);
  }
  if (isBusy(failure)) return failure as Error;
  const script = failedAt !== -1 ? scripts[failedAt] : undefined;
  const classified = classifyRedisError(failure, { command: 'SCRIPT LOAD', user: channel.user, ...(script ? { script } : {}) });
  if (classified instanceof ScriptError && script) {
    throw new ScriptError(`${script.file}: failed to load: ${locate(script, messageOf(failure))}`, { cause: failure });
  }
  throw classified;
}

/**
 * Loads `scripts` together with every script loaded before on the same
 * server, all in one MULTI/EXEC of SCRIPT LOADs, and checks that Redis
 * hashed each to swc's SHA1. One transaction means a SCRIPT FLUSH from
 * another client cannot fall between two loads: afterwards either all of
 * swc's scripts are cached or none is, so a later pipeline sees NOSCRIPT
 * only on a tail of its calls, which can be re-run in order. While the
 * server is BUSY it waits (up to `busyWaitMs`) and tries again.
 */
export async function loadScripts(target: Redis | ScriptChannel, scripts: readonly LuaScript[], options: RunnerOptions = {}): Promise<void> {
  const channel = channelOf(target);
  const all = withLoaded(channel.server, scripts);
  const busy = new BusyWait(options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS);
  for (;;) {
    const outcome = checkLoad(channel, all, await sendOn(channel, loadCommands(all), { command: 'SCRIPT LOAD' }));
    if (outcome === true) return;
    await busy.next(outcome, { command: 'SCRIPT LOAD', user: channel.user });
  }
}

/**
 * Loads scripts on a connection before any call, so a Lua error names its
 * file before traffic is sent (see {@link loadScripts}).
 */
export async function installScripts(redis: Redis, scripts: readonly LuaScript[], options: RunnerOptions = {}): Promise<void> {
  await loadScripts(redis, scripts, options);
}

const flushingError = (script: LuaScript): ScriptError =>
  new ScriptError(`${script.file}: the server keeps dropping swc's scripts from its cache (SCRIPT FLUSH in a loop?); stopping`);

/**
 * Where the tail of one sent batch of `count` calls that did not run starts:
 * the index of the first call that did not run, or `count` when all ran.
 * Throws unless no call from there on ran, since re-running that tail would
 * then put calls after ones that were queued behind them.
 *
 * With swc's scripts loaded all at once ({@link loadScripts}), a flush can
 * only drop a tail; a call running after a NOSCRIPT one means another
 * connection reloaded the scripts part-way through (or, for BUSY, that a
 * blocking script ended part-way through).
 *
 * @param notRun whether call `index` got NOSCRIPT (or BUSY): it did not run
 * @param within where these `count` calls sit in the caller's pipeline (a re-run tail's), for the error's numbers
 */
export function flushedFrom(
  count: number,
  notRun: (index: number) => boolean,
  within: { offset: number; total: number } = { offset: 0, total: count },
): number {
  let first = 0;
  while (first < count && !notRun(first)) first += 1;
  let last = first;
  // Numbered as in the caller's pipeline: a re-run tail's calls keep their places in it.
  const at = (index: number): number => within.offset + index + 1;
  for (let i = first + 1; i < count; i += 1) {
    if (notRun(i)) {
      last = i;
      continue;
    }
    const skipped = last === first ? `call ${at(first)}` : `calls ${at(first)}-${at(last)}`;
    throw new ScriptError(
      `${skipped} of a pipeline of ${within.total} did not run (the script cache was flushed, or a script blocked the server) ` +
        `while call ${at(i)} after them did (another connection reloaded the scripts, or the block ended); ` +
        're-running them would reorder calls, so swc stops',
    );
  }
  return first;
}

/**
 * Re-runs the tail `calls[from..]` of a batch that did not run (NOSCRIPT, or
 * BUSY), in order, until every call of it has run, and returns their
 * replies (an Error per error reply). `reason` is the reply of the first
 * call that did not run.
 *
 * Each round sends the scripts' load (see {@link loadScripts}) and the tail
 * in one write: Redis runs a client's buffered commands back to back, so
 * another client's SCRIPT FLUSH can hardly fall between the load and the
 * calls. After BUSY it first waits (up to `busyWaitMs`). It gives up when
 * flushes keep coming faster than a single call gets through.
 */
export async function rerunFlushedTail(
  target: Redis | ScriptChannel,
  calls: readonly ScriptCall[],
  from: number,
  reason: unknown,
  options: RunnerOptions = {},
): Promise<unknown[]> {
  const channel = channelOf(target);
  const busy = new BusyWait(options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS);
  const replies: unknown[] = [];
  let stalls = 0;
  let why = reason;
  let start = from;
  for (;;) {
    const first = calls[start] as ScriptCall;
    if (isBusy(why)) {
      await busy.next(why, { script: first.script, command: 'EVALSHA', keys: first.keys, user: channel.user });
    } else if (++stalls > MAX_STALLS) {
      throw flushingError(first.script);
    }
    const scripts = withLoaded(
      channel.server,
      calls.slice(start).map((c) => c.script),
    );
    const load = loadCommands(scripts);
    const sent = await sendOn(channel, [...load, ...calls.slice(start).map((c) => evalshaCommand(c, channel.server))], { command: 'EVALSHA' });
    // A BUSY load leaves its calls not run, as the tail below shows.
    checkLoad(channel, scripts, sent.slice(0, load.length));
    const results = sent.slice(load.length);
    const missing = flushedFrom(results.length, (i) => notRun(results[i]), { offset: start, total: calls.length });
    for (let i = 0; i < missing; i += 1) replies.push(results[i]);
    if (missing === results.length) return replies;
    if (missing > 0) stalls = 0;
    start += missing;
    why = results[missing];
  }
}

/** One pipelined reply: an error (already typed) or the script's reply. */
export type PipelineReply = [error: Error | null, reply: unknown];

/**
 * Runs script calls in one pipeline, in order, and returns one reply each
 * (errors typed, see {@link classifyRedisError}).
 *
 * When the script cache was flushed part-way (every call from some point on
 * answered NOSCRIPT, so none of those ran), the scripts are loaded again and
 * exactly that tail is re-run; likewise after BUSY, once the server is free
 * (see {@link rerunFlushedTail}). Any other pattern means calls would run
 * out of order if re-run, so it fails (see {@link flushedFrom}) instead of
 * returning numbers that could be wrong.
 */
export async function execPipeline(target: Redis | ScriptChannel, calls: readonly ScriptCall[], options: RunnerOptions = {}): Promise<PipelineReply[]> {
  const channel = channelOf(target);
  let results = await sendOn(
    channel,
    calls.map((c) => evalshaCommand(c, channel.server)),
    { command: 'EVALSHA' },
  );
  const missing = flushedFrom(results.length, (i) => notRun(results[i]));
  if (missing < calls.length) {
    results = [...results.slice(0, missing), ...(await rerunFlushedTail(channel, calls, missing, results[missing], options))];
  }
  return results.map((reply, i) => {
    if (reply instanceof Error) return [callError(channel, calls[i] as ScriptCall, reply) as Error, null];
    const oversize = replyTooLarge(reply);
    return oversize === null ? [null, reply] : [oversizeError((calls[i] as ScriptCall).script, oversize), null];
  });
}

/**
 * The largest reply a script may give swc. A window read is a few hundred
 * bytes (a 6.0 hash of buckets a few kilobytes); a script that answers
 * megabytes is not a counter, and reading it again and again would drive the
 * server's memory (its output buffers) up for no figure.
 */
export const MAX_SCRIPT_REPLY_BYTES = 1024 * 1024;

/** The size of a reply in bytes when it is over {@link MAX_SCRIPT_REPLY_BYTES}, else null (stops counting at the bound). */
export function replyTooLarge(reply: unknown, limit = MAX_SCRIPT_REPLY_BYTES): number | null {
  let total = 0;
  const walk = (value: unknown): boolean => {
    if (typeof value === 'string') total += value.length;
    else if (Buffer.isBuffer(value)) total += value.length;
    else if (Array.isArray(value)) {
      total += 8;
      for (const item of value as unknown[]) if (walk(item)) return true;
    } else total += 8;
    return total > limit;
  };
  return walk(reply) ? Math.max(total, limit + 1) : null;
}

/**
 * A script's reply over swc's bound: swc's own refusal, not the server's.
 * Exit 2, as the probe's refusal of the same script on a user's server: the
 * fault is in the scripts given (a manifest's, a --scripts tree's), which no
 * retry and no other server mends; swc's own scripts answer kilobytes.
 */
export class OversizeReplyError extends ScriptError {
  override readonly exitCode: ExitCode = ExitCode.usage;
}

/** A reply over the bound, as the error of its call. */
export function oversizeError(script: LuaScript, bytes: number): ScriptError {
  return new OversizeReplyError(
    `${script.file}: replied more than ${(MAX_SCRIPT_REPLY_BYTES / 1024 / 1024).toFixed(0)} MB (at least ${bytes.toLocaleString('en-US')} bytes); ` +
      'a sliding-window script answers a few kilobytes at most, so swc stops instead of reading it again',
  );
}

/** The typed error for a reply of `call`. */
function callError(channel: ScriptChannel, call: ScriptCall, reply: unknown): unknown {
  return classifyRedisError(reply, { script: call.script, command: 'EVALSHA', keys: call.keys, user: channel.user });
}

/**
 * Runs one script call and returns its raw reply. After NOSCRIPT it reloads
 * the scripts and runs the call again; while the server is BUSY it waits
 * (up to `busyWaitMs`) and tries again; any other error is thrown typed.
 */
export async function runScript(target: Redis | ScriptChannel, call: ScriptCall, options: RunnerOptions = {}): Promise<unknown> {
  const [[error, reply]] = (await execPipeline(target, [call], options)) as [PipelineReply];
  if (error) throw error;
  return reply;
}
