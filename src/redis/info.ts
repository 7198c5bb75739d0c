import type { Redis } from 'ioredis';

/** The encoding limits that decide how many bytes a light costs. */
export const ENCODING_SETTINGS = ['hash-max-listpack-entries', 'hash-max-listpack-value', 'zset-max-listpack-entries', 'zset-max-listpack-value'] as const;
export type EncodingSetting = (typeof ENCODING_SETTINGS)[number];

/** What a server is, as far as memory figures care. */
export interface ServerInfo {
  readonly version: string;
  readonly memAllocator: string;
  readonly mode: string;
  readonly os: string;
  /** Encoding limits; null where CONFIG GET is not allowed (managed services). */
  readonly config: Record<EncodingSetting, number | null>;
  readonly configReadable: boolean;
  /** Changes whenever the server restarts (and so loses a benchmark's keys). */
  readonly runId: string;
  /**
   * A server that is not Redis (INFO server_name, e.g. `valkey`) and its own
   * version: Valkey reports redis_version 7.2.4 whatever its release, so
   * without these two builds could not be told apart. Absent on Redis.
   */
  readonly server?: { readonly name: string; readonly version: string };
}

/** Parses `INFO` text into a flat record. */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** Compares dotted versions: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Reads the version, allocator, mode and encoding limits of a server. */
export async function serverInfo(redis: Redis): Promise<ServerInfo> {
  // Managed services may deny or rename INFO: what it would say is then unknown, not an error.
  const info = parseInfo(await redis.info().catch(() => ''));
  // A user without INFO (a read-only ACL) still has HELLO, which ACLs never deny: server name and version.
  if (info.redis_version === undefined) Object.assign(info, await helloFields(redis));
  const config = Object.fromEntries(ENCODING_SETTINGS.map((name) => [name, null])) as Record<EncodingSetting, number | null>;
  let configReadable = true;
  try {
    const reply = (await redis.call('CONFIG', 'GET', '*-max-listpack-*')) as string[];
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const name = reply[i] as EncodingSetting;
      if ((ENCODING_SETTINGS as readonly string[]).includes(name)) config[name] = Number(reply[i + 1]);
    }
  } catch {
    configReadable = false;
  }
  return {
    version: info.redis_version ?? 'unknown',
    memAllocator: info.mem_allocator ?? 'unknown',
    mode: info.redis_mode ?? 'standalone',
    os: info.os ?? 'unknown',
    config,
    configReadable,
    runId: info.run_id ?? '',
    ...(info.server_name !== undefined && info.server_name !== 'redis'
      ? { server: { name: info.server_name, version: info[`${info.server_name}_version`] ?? info.redis_version ?? 'unknown' } }
      : {}),
  };
}

/** `redis_version` (and `server_name`, `redis_mode`) as HELLO reports them; empty when HELLO fails (before 6.0). */
async function helloFields(redis: Redis): Promise<Record<string, string>> {
  try {
    const reply = (await redis.call('HELLO')) as unknown[];
    const hello: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) hello[String(reply[i])] = String(reply[i + 1]);
    if (hello.version === undefined) return {};
    const name = hello.server ?? 'redis';
    return {
      redis_version: hello.version,
      ...(name !== 'redis' ? { server_name: name, [`${name}_version`]: hello.version } : {}),
      ...(hello.mode !== undefined ? { redis_mode: hello.mode } : {}),
    };
  } catch {
    return {};
  }
}

/** The server's run_id: a restart between two readings means its data is gone. */
export async function serverRunId(redis: Redis): Promise<string> {
  return parseInfo(await redis.info('server')).run_id ?? '';
}

/** INFO stats `expired_keys`: keys the server expired on its own clock so far; null when INFO is not allowed. */
export async function expiredKeys(redis: Redis): Promise<number | null> {
  try {
    const count = parseInfo(await redis.info('stats')).expired_keys;
    return count === undefined ? null : Number(count);
  } catch {
    return null;
  }
}

/** Counters that tell whether something disturbed a measurement between two readings. */
export interface ServerCounters {
  readonly runId: string;
  /** INFO stats `evicted_keys`: keys Redis removed to stay under maxmemory. */
  readonly evictedKeys: number;
  /** `CLIENT PAUSE` calls so far (INFO commandstats): Redis 7.0 shows no pause state of its own. */
  readonly pauses: number;
}

/** Reads {@link ServerCounters}; null when INFO is not allowed. */
export async function serverCounters(redis: Redis): Promise<ServerCounters | null> {
  try {
    const server = parseInfo(await redis.info('server'));
    const stats = parseInfo(await redis.info('stats'));
    const commands = parseInfo(await redis.info('commandstats'));
    const pauseLine = commands['cmdstat_client|pause'] ?? '';
    return {
      runId: server.run_id ?? '',
      evictedKeys: Number(stats.evicted_keys ?? 0),
      pauses: Number(/(?:^|,)calls=(\d+)/.exec(pauseLine)?.[1] ?? 0),
    };
  } catch {
    return null;
  }
}

/**
 * What happened between two readings that makes a figure taken in between
 * wrong: a restart, evictions, a CLIENT PAUSE. Counters that went backwards
 * were reset (CONFIG RESETSTAT): their new value is what happened since.
 * Empty when nothing did.
 */
export function disturbances(before: ServerCounters, after: ServerCounters): string[] {
  if (before.runId !== after.runId) return ['the server restarted (its data was lost)'];
  const delta = (a: number, b: number): number => (b < a ? b : b - a);
  const out: string[] = [];
  const evicted = delta(before.evictedKeys, after.evictedKeys);
  if (evicted > 0) out.push(`Redis evicted ${evicted.toLocaleString('en-US')} key(s) (maxmemory reached)`);
  const pauses = delta(before.pauses, after.pauses);
  if (pauses > 0) out.push(`another client paused the server (CLIENT PAUSE, ${pauses}×)`);
  return out;
}
