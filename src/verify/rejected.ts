import type { Redis } from 'ioredis';

/** How long to wait for MONITOR to show the end of a replay. */
const MONITOR_BOUND_MS = 3000;

/** A command as MONITOR shows it, its arguments quoted so that "-0" and "0" read apart: `HINCRBY "k" "f" "-0"`. */
export function formatCommand(args: readonly string[]): string {
  return args.map((a, i) => (i === 0 ? a.toUpperCase() : JSON.stringify(a))).join(' ');
}

/** The arguments of a {@link formatCommand} line. */
export function parseMonitorLine(line: string): string[] {
  const space = line.indexOf(' ');
  const name = space < 0 ? line : line.slice(0, space);
  const rest = space < 0 ? '' : line.slice(space + 1);
  const args = [...rest.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => JSON.parse(m[0]) as string);
  return [name, ...args];
}

/**
 * Every command scripts ran while `replay` ran, in order, as the server
 * received them (after it turned Lua values into strings), by MONITOR.
 * Empty when MONITOR is not allowed.
 */
export async function monitoredLuaCommands(redis: Redis, replay: () => Promise<void>): Promise<string[][]> {
  let monitor: Awaited<ReturnType<Redis['monitor']>>;
  try {
    monitor = await redis.monitor();
  } catch {
    await replay();
    return [];
  }
  const marker = `swc-verify-monitor-end-${process.pid}-${Date.now()}`;
  const seen: string[][] = [];
  let ended: () => void = () => undefined;
  const end = new Promise<void>((resolve) => (ended = resolve));
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) ended();
    else if (source === 'lua') seen.push(args);
  });
  try {
    await replay();
    await redis.echo(marker);
    await Promise.race([end, new Promise((r) => setTimeout(r, MONITOR_BOUND_MS).unref())]);
  } finally {
    monitor.disconnect();
  }
  return seen;
}

/**
 * The last command a script ran before it failed, exactly as the server
 * received it, by running `replay` under MONITOR. That conversion is where
 * builds differ: Lua's -0 reaches Redis 7.0 as "-0", which HINCRBY refuses,
 * and Redis 7.2+ / Valkey as "0". Returns null when the server does not
 * allow MONITOR or shows nothing in time.
 *
 * MONITOR costs the server a copy of every command to the monitoring
 * client: use it only on a server swc started itself, where nobody else's
 * commands are seen or slowed.
 */
export async function rejectedCommand(redis: Redis, replay: () => Promise<void>): Promise<string | null> {
  const seen = await monitoredLuaCommands(redis, replay);
  const last = seen.at(-1);
  return last ? formatCommand(last) : null;
}
