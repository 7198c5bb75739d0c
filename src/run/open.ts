/**
 * The one way a use case reaches Redis: {@link openTarget} opens what a
 * {@link TargetSpec} names (a server's URL, a running cluster's seeds, a
 * private server or cluster swc starts, a snapshot on a private server),
 * under the run's limits, as a {@link Target}. The CLI builds a spec from
 * its flags and never opens a connection itself; the guarded run
 * (./guarded-run.ts) takes the opened target from here.
 */
import { openSession } from '../redis/connect.js';
import { CommandCap } from '../redis/command-cap.js';
import { openClusterExplained, primariesOf, withSlotRetry } from '../redis/cluster-read.js';
import { clusterTarget, singleTarget, type Target } from '../redis/target.js';
import { parseInfo } from '../redis/info.js';
import type { Redis } from 'ioredis';

export type { Target, Shard } from '../redis/target.js';
export type { Session } from '../redis/connect.js';
// Which server build a path runs (`--redis-server`), for the commands that run several.
export { probeBuild, uniqueLabels, type BuildIdentity } from '../redis/build.js';
export { primariesOf, withSlotRetry };

/** Where a use case reaches Redis. */
export type TargetSpec =
  /** One server swc did not start. `flag`: where the URL came from, for messages (default `--redis-url`). */
  | { readonly url: string; readonly flag?: string }
  /**
   * A running Redis Cluster, by one or more of its nodes. `namedBy`: which
   * URL the target gives as its own (messages name it): the first seed, or
   * (default) the first primary.
   */
  | { readonly seeds: readonly string[]; readonly flag?: string; readonly namedBy?: 'seed' | 'primary' }
  /** A private redis-server swc starts and stops (`binary`: another build). */
  | { readonly privateServer: { readonly settings?: readonly string[]; readonly binary?: string } }
  /** A private cluster of `shards` primaries swc starts and stops. */
  | { readonly privateCluster: { readonly shards?: number; readonly settings?: readonly string[] } }
  /** A snapshot (RDB file) loaded on a private redis-server of its own, read over one connection. */
  | { readonly rdb: string; readonly binary?: string };

/** The run's limits on what it sends. */
export interface TargetLimits {
  /** `--max-ops`: every command over the whole target waits its turn under this many per second. */
  readonly maxOpsPerSecond?: number;
  /** A command that gets no reply for this long fails (a paused or stuck server). */
  readonly commandTimeoutMs?: number;
}

/** Whether a spec names a cluster (running or private). */
export const isClusterSpec = (spec: TargetSpec): boolean => 'seeds' in spec || 'privateCluster' in spec;

/** Opens what `spec` names, under `limits`; the caller closes it (`target.close()` stops what swc started). */
export async function openTarget(spec: TargetSpec, limits: TargetLimits = {}): Promise<Target> {
  const cap = limits.maxOpsPerSecond !== undefined ? new CommandCap(limits.maxOpsPerSecond) : undefined;
  const connect = {
    ...(limits.commandTimeoutMs !== undefined ? { commandTimeoutMs: limits.commandTimeoutMs } : {}),
    ...(cap ? { cap } : {}),
  };
  if ('rdb' in spec) return rdbTarget(spec.rdb, spec.binary);
  if ('url' in spec) return singleTarget(await openSession({ redisUrl: spec.url, ...(spec.flag !== undefined ? { flag: spec.flag } : {}), ...connect }));
  if ('privateServer' in spec) {
    if (spec.privateServer.binary !== undefined) return singleTarget(await privateBuild(spec.privateServer.binary, spec.privateServer.settings ?? []));
    return singleTarget(await openSession({ serverSettings: spec.privateServer.settings ?? [], ...connect }));
  }
  if ('seeds' in spec) {
    const cluster = await openClusterExplained({ seeds: spec.seeds, ...(spec.flag !== undefined ? { flag: spec.flag } : {}), ...connect });
    return clusterTarget(cluster, spec.namedBy === 'seed' ? spec.seeds[0] : undefined);
  }
  const { shards, settings } = spec.privateCluster;
  return clusterTarget(await openClusterExplained({ ...(shards !== undefined ? { shards } : {}), serverSettings: settings ?? [], ...connect }));
}

/** A private server of another build (`binary`), as a session; refused (exit 2) when that build does not start. */
async function privateBuild(binary: string, settings: readonly string[]) {
  const [{ startPrivateServer }, { connect }] = await Promise.all([import('../redis/server.js'), import('../redis/connect.js')]);
  const server = await startPrivateServer({ binary, settings });
  const redis = await connect(server.url).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const others: (typeof redis)[] = [];
  return {
    redis,
    url: server.url,
    server,
    connectAnother: async () => {
      const another = await connect(server.url);
      others.push(another);
      return another;
    },
    close: async () => {
      for (const r of [redis, ...others]) r.disconnect();
      await server.stop();
    },
  };
}

/** `--rdb <file>`: the snapshot on a private server on a unix socket, read over the one connection it was opened with. */
async function rdbTarget(file: string, binary: string | undefined): Promise<Target> {
  const { startRdbServer } = await import('../redis/rdb-server.js');
  const server = await startRdbServer(file, binary);
  return singleTarget({
    redis: server.redis,
    url: server.url,
    // A snapshot is read over the one connection the server was opened with.
    connectAnother: () => Promise.reject(new Error('--rdb: a snapshot is read over one connection')),
    close: () => server.stop(),
  });
}

/** The server's version as INFO says it, or `unknown` where INFO is refused. */
export async function serverVersion(redis: Redis): Promise<string> {
  return parseInfo(await redis.info('server').catch(() => '')).redis_version ?? 'unknown';
}
