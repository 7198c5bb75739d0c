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
