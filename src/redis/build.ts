import { Redis } from 'ioredis';
import { parseInfo } from './info.js';
import { startPrivateServer } from './server.js';

/**
 * Settings that decide how many bytes a key costs (its encoding) or when
 * they are freed, as a build reports them. Builds differ here: Redis 7.2+
 * adds set listpacks, Valkey 8 frees deleted keys in the background.
 */
export const BUILD_SETTINGS = [
  'hash-max-listpack-entries',
  'hash-max-listpack-value',
  'zset-max-listpack-entries',
  'zset-max-listpack-value',
  'set-max-intset-entries',
  'set-max-listpack-entries',
  'set-max-listpack-value',
  'list-max-listpack-size',
  'lazyfree-lazy-user-del',
  'lazyfree-lazy-server-del',
  'lazyfree-lazy-expire',
  'activedefrag',
] as const;

/** What one server build is: the figures of two builds are never mixed. */
export interface BuildIdentity {
  /** The binary as given to --redis-server. */
  readonly path: string;
  /** `redis` or `valkey` (INFO server_name; Redis has none). */
  readonly server: string;
  /** The build's own version (Valkey reports redis_version 7.2.4 for compatibility, and valkey_version beside it). */
  readonly version: string;
  readonly gitSha: string;
  readonly gitDirty: boolean;
  readonly buildId: string;
  readonly allocator: string;
  readonly arch: string;
  readonly os: string;
  /** The compiled-in defaults of {@link BUILD_SETTINGS}, read from a bare start of the build (CONFIG GET); a setting it does not know is absent. */
  readonly defaults: Readonly<Record<string, string>>;
}

/** The build's identity from its INFO text. */
export function identityFromInfo(path: string, text: string, defaults: Record<string, string>): BuildIdentity {
  const info = parseInfo(text);
  const server = info.server_name ?? 'redis';
  return {
    path,
    server,
    version: (server === 'valkey' ? info.valkey_version : undefined) ?? info.redis_version ?? 'unknown',
    gitSha: info.redis_git_sha1 ?? '',
    gitDirty: info.redis_git_dirty === '1',
    buildId: info.redis_build_id ?? '',
    allocator: info.mem_allocator ?? 'unknown',
    arch: info.arch_bits ? `${info.arch_bits}-bit` : 'unknown',
    os: info.os ?? 'unknown',
    defaults,
  };
}

/** "Redis 7.0.15 jemalloc-5.3.0", "Valkey 8.0.1 jemalloc-5.3.0". */
export function buildLabel(build: BuildIdentity): string {
  const name = build.server.charAt(0).toUpperCase() + build.server.slice(1);
  return `${name} ${build.version} ${build.allocator}`;
}

/**
 * Starts `binary` bare (no settings: its compiled-in defaults), reads what it
 * is, and stops it. A binary that does not start fails here, before any run.
 */
export async function probeBuild(binary: string): Promise<BuildIdentity> {
  const server = await startPrivateServer({ binary });
  const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const text = await redis.info();
    const defaults: Record<string, string> = {};
    for (const name of BUILD_SETTINGS) {
      const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
      if (reply.length >= 2) defaults[name] = String(reply[1]);
    }
    return identityFromInfo(binary, text, defaults);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

/** Labels for builds, made unique: the same build given twice gets "#2" on its second label. */
export function uniqueLabels(builds: readonly BuildIdentity[]): string[] {
  const seen = new Map<string, number>();
  return builds.map((b) => {
    const label = buildLabel(b);
    const n = (seen.get(label) ?? 0) + 1;
    seen.set(label, n);
    return n === 1 ? label : `${label} #${n}`;
  });
}
