import type { Redis } from 'ioredis';

/** The encoding limits that decide how many bytes a light costs. */
export const ENCODING_SETTINGS = [
  'hash-max-listpack-entries',
  'hash-max-listpack-value',
  'zset-max-listpack-entries',
  'zset-max-listpack-value',
] as const;
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
  const info = parseInfo(await redis.info());
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
  };
}

/** The server's run_id: a restart between two readings means its data is gone. */
export async function serverRunId(redis: Redis): Promise<string> {
  return parseInfo(await redis.info('server')).run_id ?? '';
}
