import { Command, type ChainableCommander, type Redis } from 'ioredis';
import { ScriptError } from '../errors.js';
import { locate, type LuaScript, type ScriptCall } from '../lua/source.js';

/**
 * Defines each script as an ioredis command (which handles EVALSHA, the EVAL
 * fallback and NOSCRIPT) and loads it with SCRIPT LOAD up front, so a Lua
 * error names its file before any traffic is sent.
 */
export async function installScripts(redis: Redis, scripts: readonly LuaScript[]): Promise<void> {
  for (const script of scripts) {
    if (!(script.command in redis)) {
      redis.defineCommand(script.command, { lua: script.source });
    }
    try {
      await redis.script('LOAD', script.source);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      throw new ScriptError(`${script.file}: failed to load: ${locate(script, message)}`, { cause });
    }
  }
}

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

function commandOf(target: Redis | ChainableCommander, call: ScriptCall): ScriptCommand {
  const fn = (target as unknown as Record<string, ScriptCommand | undefined>)[call.script.command];
  if (typeof fn !== 'function') {
    throw new ScriptError(`${call.script.file}: not installed on this connection (call installScripts first)`);
  }
  return fn.bind(target);
}

/** If `err` came from one of our scripts, a ScriptError naming its file and line. */
export function explainScriptError(call: ScriptCall, err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof ScriptError) return err;
  if (!/user_script|f_[0-9a-f]{40}|script:/i.test(err.message)) return err;
  return new ScriptError(`${call.script.file}: ${locate(call.script, err.message)}`, { cause: err });
}

/** Runs one script call on a connection and returns its raw reply. */
export async function runScript(redis: Redis, call: ScriptCall): Promise<unknown> {
  try {
    return await commandOf(redis, call)(call.keys.length, ...call.keys, ...call.args);
  } catch (err) {
    throw explainScriptError(call, err);
  }
}

/** Whether a reply error (an Error, or a message) says the script is not in the server's cache. */
export const isNoScript = (err: unknown): boolean =>
  (typeof err === 'string' ? err : err instanceof Error ? err.message : '').startsWith('NOSCRIPT');

/**
 * Loads scripts in one MULTI, so a flush cannot fall between two of them:
 * with only some of them back, the re-run tail would run out of order.
 */
async function reloadAtomically(redis: Redis, scripts: readonly LuaScript[]): Promise<void> {
  const transaction = redis.multi();
  for (const script of scripts) transaction.script('LOAD', script.source);
  const results = (await transaction.exec()) ?? [];
  const failed = results.findIndex(([err]) => err);
  if (failed !== -1) {
    const script = scripts[failed] as LuaScript;
    throw new ScriptError(`${script.file}: failed to reload: ${String(results[failed]?.[0])}`);
  }
}

const replied = (reply: unknown): PipelineReply => [null, reply];
const failed = (err: unknown): PipelineReply => [err instanceof Error ? err : new Error(String(err)), null];

/**
 * Sends plain EVALSHAs back to back and waits for every reply, in order.
 * Corking the socket makes the batch one write, as ioredis' Pipeline does,
 * without building a Pipeline: that copies every defined command onto
 * itself and costs more than the calls when a load engine sends small
 * batches in a loop.
 */
function sendEvalshas(redis: Redis, calls: readonly ScriptCall[]): Promise<PipelineReply[]> {
  // Not ready: ioredis queues the commands itself and writes them later.
  const stream = redis.status === 'ready' ? redis.stream : undefined;
  const replies: Promise<PipelineReply>[] = new Array<Promise<PipelineReply>>(calls.length);
  stream?.cork();
  try {
    for (let i = 0; i < calls.length; i += 1) {
      const call = calls[i] as ScriptCall;
      const command = new Command('evalsha', [call.script.sha1, call.keys.length, ...call.keys, ...call.args]);
      redis.sendCommand(command);
      replies[i] = (command.promise as Promise<unknown>).then(replied, failed);
    }
  } finally {
    stream?.uncork();
  }
  return Promise.all(replies);
}

/** One pipelined reply: an error (already explained) or the script's reply. */
export type PipelineReply = [error: Error | null, reply: unknown];

/**
 * Where the flushed tail of one sent batch of `count` calls starts: the
 * index of the first NOSCRIPT reply, or `count` when there is none. Throws
 * unless every call from there on got NOSCRIPT (see {@link execPipeline}).
 */
export function flushedFrom(count: number, noScript: (index: number) => boolean): number {
  let first = 0;
  while (first < count && !noScript(first)) first += 1;
  for (let i = first + 1; i < count; i += 1) {
    if (!noScript(i)) {
      throw new ScriptError(
        'the script cache was flushed and reloaded by another client during a pipeline; stopping rather than reorder calls',
      );
    }
  }
  return first;
}

/**
 * Re-runs the flushed tail of a pipeline until every call has run: reloads
 * the tail's scripts on `redis`, then `send(from)` sends `calls[from..]`
 * again and returns where its own flushed tail starts (`calls.length` when
 * none). `missingFrom` is where the first send's tail started.
 */
export async function rerunFlushedTail(
  redis: Redis,
  calls: readonly ScriptCall[],
  missingFrom: number,
  send: (from: number) => Promise<number>,
): Promise<void> {
  let from = 0;
  let missing = missingFrom;
  let stalls = 0;
  while (missing < calls.length) {
    // Give up only when flushes keep coming faster than a single call gets through.
    stalls = missing === from ? stalls + 1 : 0;
    if (stalls >= 5) {
      throw new ScriptError('the server keeps dropping swc\'s scripts from its cache (SCRIPT FLUSH in a loop?); stopping');
    }
    from = missing;
    await reloadAtomically(redis, [...new Set(calls.slice(from).map((call) => call.script))]);
    missing = await send(from);
  }
}

/**
 * Runs script calls in one pipeline, in order, and returns one reply each.
 *
 * ioredis re-sends a pipelined script that hit NOSCRIPT on its own, outside
 * the pipeline, so after a SCRIPT FLUSH the re-sent calls can run after the
 * ones queued behind them: a read would see a write that had not happened
 * yet. So pipelines send plain EVALSHA, and when the script cache was flushed
 * part-way (every call from some point on answered NOSCRIPT, and none of
 * those ran), the scripts are loaded again and exactly that tail is re-run.
 * Any other pattern means another client reloaded the cache mid-pipeline;
 * re-running would reorder calls, so it fails instead of returning numbers
 * that could be wrong.
 */
export async function execPipeline(redis: Redis, calls: readonly ScriptCall[]): Promise<PipelineReply[]> {
  const replies = new Array<PipelineReply>(calls.length);
  const send = async (from: number): Promise<number> => {
    const results = await sendEvalshas(redis, from === 0 ? calls : calls.slice(from));
    const missing = from + flushedFrom(results.length, (i) => isNoScript(results[i]?.[0]));
    for (let i = from; i < missing; i += 1) {
      const [err, reply] = results[i - from] as PipelineReply;
      replies[i] = [err ? (explainScriptError(calls[i] as ScriptCall, err) as Error) : null, reply];
    }
    return missing;
  };
  const missing = await send(0);
  if (missing < calls.length) await rerunFlushedTail(redis, calls, missing, send);
  return replies;
}
