import type { Redis } from 'ioredis';

/** How long to wait for MONITOR to show the end of a replay. */
const MONITOR_BOUND_MS = 3000;

/** One argument as MONITOR shows it: quoted, so "-0" and "0" read apart. */
const quoted = (arg: string): string => JSON.stringify(arg);

/**
 * The last command a script ran before it failed, exactly as the server
 * received it (its arguments after the server turned Lua values into
 * strings), by running `replay` under MONITOR. That conversion is where
 * builds differ: Lua's -0 reaches Redis 7.0 as "-0", which HINCRBY refuses,
 * and Redis 7.2+ / Valkey as "0". Returns null when the server does not
 * allow MONITOR or shows nothing in time.
 *
 * MONITOR costs the server a copy of every command to the monitoring
 * client: use it only on a server swc started itself, where nobody else's
 * commands are seen or slowed.
 */
export async function rejectedCommand(redis: Redis, replay: () => Promise<void>): Promise<string | null> {
  let monitor: Awaited<ReturnType<Redis['monitor']>>;
  try {
    monitor = await redis.monitor();
  } catch {
    return null;
  }
  const marker = `swc-verify-monitor-end-${process.pid}-${Date.now()}`;
  let last: string[] | null = null;
  let ended: () => void = () => undefined;
  const end = new Promise<void>((resolve) => (ended = resolve));
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) ended();
    else if (source === 'lua') last = args;
  });
  try {
    await replay();
    await redis.echo(marker);
    await Promise.race([end, new Promise((r) => setTimeout(r, MONITOR_BOUND_MS).unref())]);
  } finally {
    monitor.disconnect();
  }
  const seen: string[] | null = last;
  return seen === null ? null : (seen as string[]).map((a, i) => (i === 0 ? a.toUpperCase() : quoted(a))).join(' ');
}
