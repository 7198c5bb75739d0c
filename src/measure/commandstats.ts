import type { Redis } from 'ioredis';
import { parseInfo } from '../redis/info.js';

/** Cumulative server-side counters of script calls (EVALSHA plus EVAL). */
export interface ScriptCommandStats {
  readonly calls: number;
  /** Microseconds the server spent running them, the Lua's own commands included. */
  readonly usec: number;
}

/** What the server spent on script calls between two readings. */
export interface ScriptCommandDelta {
  readonly calls: number;
  readonly usec: number;
  /** usec / calls; null when no call happened in between. */
  readonly usecPerCall: number | null;
}

// EVAL counts too: ioredis falls back to it when a script is missing.
const SCRIPT_COMMANDS = ['cmdstat_evalsha', 'cmdstat_eval'] as const;

/** Parses the `calls=…,usec=…` fields of one `cmdstat_*` line; null when malformed. */
function parseCommandLine(value: string): ScriptCommandStats | null {
  const calls = /(?:^|,)calls=(\d+)/.exec(value)?.[1];
  const usec = /(?:^|,)usec=(\d+)/.exec(value)?.[1];
  if (calls === undefined || usec === undefined) return null;
  return { calls: Number(calls), usec: Number(usec) };
}

/**
 * Sums the script counters of `INFO commandstats` text. A command that never
 * ran has no line, which counts as zero.
 */
export function parseScriptCommandStats(text: string): ScriptCommandStats | null {
  const fields = parseInfo(text);
  let calls = 0;
  let usec = 0;
  for (const name of SCRIPT_COMMANDS) {
    const line = fields[name];
    if (line === undefined) continue;
    const stats = parseCommandLine(line);
    if (!stats) return null;
    calls += stats.calls;
    usec += stats.usec;
  }
  return { calls, usec };
}

/**
 * Reads the script counters from `INFO commandstats`; null when the server
 * does not allow it (managed services may rename or block INFO). The
 * counters are never reset: the server may be someone else's, so callers
 * take deltas with {@link scriptCommandDelta}.
 */
export async function readScriptCommandStats(redis: Redis): Promise<ScriptCommandStats | null> {
  try {
    return parseScriptCommandStats(await redis.info('commandstats'));
  } catch {
    return null;
  }
}

/**
 * The difference between two readings; null when either is missing or the
 * counters went backwards (someone ran CONFIG RESETSTAT in between).
 */
export function scriptCommandDelta(before: ScriptCommandStats | null, after: ScriptCommandStats | null): ScriptCommandDelta | null {
  if (!before || !after) return null;
  const calls = after.calls - before.calls;
  const usec = after.usec - before.usec;
  if (calls < 0 || usec < 0) return null;
  return { calls, usec, usecPerCall: calls > 0 ? usec / calls : null };
}

/**
 * The server's main-thread CPU time so far, in seconds (`INFO cpu`: user
 * plus system; the whole process on servers without the main-thread
 * fields); null when INFO is not allowed. Unlike commandstats usec, which
 * is wall time inside each call, CPU time does not grow while the server is
 * descheduled: on a busy machine it is the steadier cost of a call.
 */
export async function readServerCpuSeconds(redis: Redis): Promise<number | null> {
  try {
    const fields = parseInfo(await redis.info('cpu'));
    const pair = (user: string | undefined, sys: string | undefined): number | null =>
      user === undefined || sys === undefined || !Number.isFinite(Number(user)) || !Number.isFinite(Number(sys)) ? null : Number(user) + Number(sys);
    return pair(fields.used_cpu_user_main_thread, fields.used_cpu_sys_main_thread) ?? pair(fields.used_cpu_user, fields.used_cpu_sys);
  } catch {
    return null;
  }
}

/** Every `cmdstat_<name>` line's `calls`, by lower-case command name (subcommands as `config|get`). */
export function parseCommandCalls(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [field, value] of Object.entries(parseInfo(text))) {
    if (!field.startsWith('cmdstat_')) continue;
    const stats = parseCommandLine(value);
    if (stats) calls.set(field.slice('cmdstat_'.length), stats.calls);
  }
  return calls;
}

/** One command's count per operation call over the measured calls: exact when min equals max. */
export interface CommandCount {
  readonly command: string;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/**
 * What one operation costs the server in commands and network bytes, per call,
 * from `INFO commandstats` and `INFO stats` deltas around each call.
 */
export interface CommandsPerCall {
  readonly calls: number;
  /**
   * Commands the operation's script runs per call (`redis.call` / `redis.pcall`
   * under their own names), mean with min and max over the calls. The
   * EVALSHA/EVAL that starts the script is not counted here: it is always one
   * per call ({@link scriptCalls}), and a changed script shows in the others.
   */
  readonly commands: { readonly mean: number; readonly min: number; readonly max: number };
  /** The same per command, by name, sorted by name. */
  readonly breakdown: readonly CommandCount[];
  /** EVALSHA plus EVAL per call: 1 unless the script had to be loaded again. */
  readonly scriptCalls: number;
  /** Bytes the server sent per call (`total_net_output_bytes` delta, the readings' own replies taken out). */
  readonly replyBytes: number;
  /** Bytes the server received per call (`total_net_input_bytes` delta, the readings' own requests taken out). */
  readonly requestBytes: number;
}

const READING = ['INFO', 'commandstats', 'stats'] as const;
/** The RESP bytes of the reading's own request, which the server counts as input. */
const READING_REQUEST_BYTES = Buffer.byteLength(`*${READING.length}\r\n${READING.map((word) => `$${Buffer.byteLength(word)}\r\n${word}\r\n`).join('')}`);
/** Commands the readings themselves add (INFO), never charged to the operation. */
const READING_COMMANDS = new Set(['info']);
const SCRIPT_COMMAND_NAMES = new Set(['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro']);

interface Reading {
  readonly calls: Map<string, number>;
  readonly input: number;
  readonly output: number;
  /** The RESP bytes of this reading's reply, which the server counts as output after it read its counters. */
  readonly replyBytes: number;
}

async function reading(redis: Redis): Promise<Reading> {
  const text = String(await redis.call(...READING));
  const fields = parseInfo(text);
  const body = Buffer.byteLength(text);
  return {
    calls: parseCommandCalls(text),
    input: Number(fields.total_net_input_bytes),
    output: Number(fields.total_net_output_bytes),
    replyBytes: `$${body}\r\n`.length + body + 2,
  };
}

/**
 * Runs `operation` `calls` times, one at a time, reading the server's
 * counters before and after each, and returns its commands and bytes per
 * call. Exact only on a server nobody else uses (a private one): any other
 * client's commands in between count as the operation's. Null when INFO is
 * not readable or a counter went backwards (CONFIG RESETSTAT).
 */
export async function measureCommandsPerCall(redis: Redis, operation: () => Promise<unknown>, calls: number): Promise<CommandsPerCall | null> {
  if (!Number.isInteger(calls) || calls < 1) throw new RangeError(`calls must be a positive integer, got ${calls}`);
  let before: Reading;
  try {
    before = await reading(redis);
  } catch {
    return null;
  }
  const perCommand = new Map<string, number[]>();
  const totals: number[] = [];
  let scriptCalls = 0;
  let input = 0;
  let output = 0;
  for (let i = 0; i < calls; i++) {
    await operation();
    const after = await reading(redis);
    if (!Number.isFinite(after.input) || !Number.isFinite(after.output)) return null;
    let total = 0;
    for (const [command, count] of after.calls) {
      const delta = count - (before.calls.get(command) ?? 0);
      if (delta < 0) return null;
      if (delta === 0 || READING_COMMANDS.has(command)) continue;
      if (SCRIPT_COMMAND_NAMES.has(command)) {
        scriptCalls += delta;
        continue;
      }
      const list = perCommand.get(command) ?? new Array<number>(i).fill(0);
      list.push(delta);
      perCommand.set(command, list);
      total += delta;
    }
    for (const list of perCommand.values()) if (list.length === i) list.push(0);
    totals.push(total);
    // The after reading's request is already in its input count; the before reading's reply is in its output count.
    input += after.input - before.input - READING_REQUEST_BYTES;
    output += after.output - before.output - before.replyBytes;
    before = after;
  }
  const summary = (values: readonly number[]): { mean: number; min: number; max: number } => ({
    mean: values.reduce((sum, v) => sum + v, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
  });
  const breakdown = [...perCommand.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([command, values]) => ({ command, ...summary(values) }));
  return { calls, commands: summary(totals), breakdown, scriptCalls: scriptCalls / calls, replyBytes: output / calls, requestBytes: input / calls };
}
