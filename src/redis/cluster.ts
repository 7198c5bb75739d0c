/**
 * Redis Cluster: a private cluster of n primaries on loopback, the slot map of
 * any cluster, and one session per primary.
 *
 * swc talks to each primary directly and routes every key by its slot
 * ({@link keySlot}), so a layout's script always runs on the node that owns its
 * keys, the load engine keeps one lean socket per shard, and per-shard figures
 * (keys, bytes, commandstats) are read where they live. ioredis's Cluster
 * client is there for one-off routed commands (inspect) that should follow a
 * MOVED redirection by themselves.
 */
import { Cluster, type Redis } from 'ioredis';
import { ServerStartError, ServerStateError, UsageError } from '../core/errors.js';
import { connect, openSession, parseRedisUrl, redactUrl, type Session, type SessionOptions } from './connect.js';
import { checkServerSetting, startPrivateServer, type PrivateServer } from './server.js';
import { MAX_PRIVATE_SHARDS } from './server-settings.js';
import { keySlot } from './slot.js';

/** Hash slots in a Redis Cluster. */
export const SLOTS = 16384;

/** One primary of a cluster and the slot ranges it serves. */
export interface ClusterNode {
  /** The node's 40-character cluster id. */
  readonly id: string;
  readonly host: string;
  readonly port: number;
  /** The seed URL with this node's host and port (credentials and TLS kept, no database). */
  readonly url: string;
  /** Inclusive slot ranges, in ascending order. */
  readonly ranges: readonly (readonly [number, number])[];
}

/** `host:port` of a node, as messages and results name it. */
export function nodeAddress(node: Pick<ClusterNode, 'host' | 'port'>): string {
  return `${node.host}:${node.port}`;
}

/** A node's slot ranges as `0-5460,7000` (a range of one slot as the slot). */
export function slotRanges(node: Pick<ClusterNode, 'ranges'>): string {
  return node.ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',');
}

/** A MOVED or ASK redirection in an error's text: the slot and the `host:port` now serving it. */
export function redirectionOf(text: string): { kind: 'MOVED' | 'ASK'; slot: number; node: string } | undefined {
  const found = /\b(MOVED|ASK) (\d+) (\[[^\]\s]+\]:\d+|[^\s()]+:\d+)/.exec(text);
  return found ? { kind: found[1] as 'MOVED' | 'ASK', slot: Number(found[2]), node: found[3] as string } : undefined;
}

/** Which primary serves which slot, as one node reported it. */
export interface ClusterTopology {
  /** The primaries, ordered by their first slot. */
  readonly nodes: readonly ClusterNode[];
  /** Index into {@link nodes} of the primary that serves `slot`, or -1 when no node does. */
  nodeOfSlot(slot: number): number;
}

/** Builds a topology from `CLUSTER SLOTS` (available on every cluster version swc supports). */
export function topologyFromSlots(reply: unknown, seedUrl: string): ClusterTopology {
  if (!Array.isArray(reply)) throw new Error('CLUSTER SLOTS: unexpected reply');
  const byId = new Map<string, { id: string; host: string; port: number; ranges: [number, number][] }>();
  const owner = new Int32Array(SLOTS).fill(-1);
  for (const entry of reply as unknown[]) {
    if (!Array.isArray(entry) || entry.length < 3) continue;
    const [start, end, primary] = entry as [unknown, unknown, unknown];
    if (!Array.isArray(primary)) continue;
    const [rawHost, rawPort, rawId] = primary as [unknown, unknown, unknown];
    const host = rawHost === '' || rawHost === '?' || rawHost == null ? '127.0.0.1' : String(rawHost);
    const port = Number(rawPort);
    const id = rawId == null ? `${host}:${port}` : String(rawId);
    const node = byId.get(id) ?? { id, host, port, ranges: [] };
    node.ranges.push([Number(start), Number(end)]);
    byId.set(id, node);
  }
  const seed = parseRedisUrl(seedUrl);
  const nodes: ClusterNode[] = [...byId.values()]
    .map((n) => ({ ...n, ranges: n.ranges.sort((a, b) => a[0] - b[0]) }))
    .sort((a, b) => (a.ranges[0]?.[0] ?? 0) - (b.ranges[0]?.[0] ?? 0))
    .map((n) => ({ ...n, url: nodeUrl(seed, n.host, n.port) }));
  nodes.forEach((n, i) => {
    for (const [from, to] of n.ranges) owner.fill(i, from, to + 1);
  });
  return { nodes, nodeOfSlot: (slot) => owner[slot] ?? -1 };
}

/** The seed's URL (scheme, user, password, query) pointed at another node; a cluster has database 0 only. */
function nodeUrl(seed: URL, host: string, port: number): string {
  const url = new URL(seed.href);
  url.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  url.port = String(port);
  url.pathname = '';
  url.searchParams.delete('db');
  return url.href;
}

/** Reads the slot map through `redis`, refusing a node that is not in cluster mode or a cluster that is not ok. */
export async function readTopology(redis: Redis, seedUrl: string, flag = '--redis-url'): Promise<ClusterTopology> {
  const info = String(await redis.info('cluster'));
  if (!/cluster_enabled:1/.test(info)) {
    throw new UsageError(`${flag}: ${redactUrl(seedUrl)} is not a cluster node (cluster_enabled:0); drop --cluster to use it as a single server`);
  }
  const db = parseRedisUrl(seedUrl, flag).pathname.replace(/^\//, '');
  if (db !== '' && db !== '0') throw new UsageError(`${flag}: a cluster has database 0 only, got "/${db}"`);
  const state = String(await redis.call('CLUSTER', 'INFO'));
  const ok = /cluster_state:ok/.test(state);
  if (!ok) {
    throw new ServerStateError(
      'cluster',
      'the cluster is not ready',
      `${redactUrl(seedUrl)} reports ${/cluster_state:\w+/.exec(state)?.[0] ?? 'no cluster_state'}; wait until every slot is served (redis-cli --cluster check)`,
    );
  }
  const topology = topologyFromSlots(await redis.call('CLUSTER', 'SLOTS'), seedUrl);
  if (topology.nodes.length === 0) throw new ServerStateError('cluster', 'the cluster is not ready', `${redactUrl(seedUrl)} serves no slots`);
  return topology;
}

/** A cluster of primaries that swc started and owns. */
export interface PrivateCluster {
  readonly servers: readonly PrivateServer[];
  /** Every node's URL, in start order. */
  readonly urls: readonly string[];
  /** Stops every node. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options for {@link startPrivateCluster}. */
export interface PrivateClusterOptions {
  /** Primaries, 1..16. */
  readonly shards: number;
  /** Settings for every node (`name=value`), checked as `--redis-server-arg` is. */
  readonly settings?: readonly string[];
  readonly binary?: string;
  /** How long to wait for `cluster_state:ok` on every node; default 20 s. */
  readonly readyTimeoutMs?: number;
}

export { MAX_PRIVATE_SHARDS } from './server-settings.js';

/**
 * Starts `shards` redis-servers in cluster mode on free loopback ports, each
 * in its own temp folder (its nodes.conf there), introduces them with
 * CLUSTER MEET, splits the 16384 slots evenly and waits until every node says
 * `cluster_state:ok` and knows every other. Every node stops with the handle,
 * on exit and on Ctrl-C as any private server does; a failed start stops the
 * ones already running.
 */
export async function startPrivateCluster(options: PrivateClusterOptions): Promise<PrivateCluster> {
  const { shards } = options;
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_PRIVATE_SHARDS) {
    throw new UsageError(`--cluster-shards: must be a whole number from 1 to ${MAX_PRIVATE_SHARDS}, got ${shards}`);
  }
  // The user's settings are checked as --redis-server-arg's are; swc's own cluster settings are added after.
  const userSettings = (options.settings ?? []).map(checkServerSetting);
  for (const s of userSettings) {
    if (s.startsWith('cluster-')) throw new UsageError(`--redis-server-arg: ${s.slice(0, s.indexOf('='))} is set by swc on a private cluster`);
  }
  const settings = [...userSettings, 'cluster-enabled=yes', 'cluster-config-file=nodes.conf', 'cluster-node-timeout=5000', 'cluster-require-full-coverage=yes'];
  const servers: PrivateServer[] = [];
  const clients: Redis[] = [];
  const stop = async (): Promise<void> => {
    for (const c of clients) c.disconnect();
    clients.length = 0;
    await Promise.all(servers.map((s) => s.stop()));
  };
  try {
    const started = await Promise.all(
      Array.from({ length: shards }, () =>
        startPrivateServer({
          settings,
          allowAnySetting: true,
          ...(options.binary !== undefined ? { binary: options.binary } : {}),
        }).then((s) => {
          servers.push(s);
          return s;
        }),
      ),
    );
    for (const s of started) clients.push(await connect(s.url));
    const [first] = clients as [Redis, ...Redis[]];
    for (const s of started.slice(1)) await first.call('CLUSTER', 'MEET', '127.0.0.1', String(s.port));
    // Even split: node i serves [i*16384/n, (i+1)*16384/n - 1].
    await Promise.all(
      clients.map((c, i) => {
        const from = Math.floor((i * SLOTS) / shards);
        const to = Math.floor(((i + 1) * SLOTS) / shards) - 1;
        return c.call('CLUSTER', 'ADDSLOTSRANGE', String(from), String(to));
      }),
    );
    const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
    for (;;) {
      const states = await Promise.all(clients.map(async (c) => String(await c.call('CLUSTER', 'INFO'))));
      const ready = states.every(
        (s) => /cluster_state:ok/.test(s) && new RegExp(`cluster_known_nodes:${shards}\\b`).test(s) && /cluster_slots_ok:16384\b/.test(s),
      );
      // Every node must also route every slot the same way before a client relies on it.
      if (ready) {
        const maps = await Promise.all(
          clients.map(async (c) =>
            JSON.stringify(topologyFromSlots(await c.call('CLUSTER', 'SLOTS'), 'redis://127.0.0.1').nodes.map((n) => [n.port, n.ranges])),
          ),
        );
        if (maps.every((m) => m === maps[0])) break;
      }
      if (Date.now() > deadline) {
        throw new ServerStartError(
          `the private cluster of ${shards} node(s) did not reach cluster_state:ok in time (${states.map((s) => /cluster_state:\w+/.exec(s)?.[0]).join(', ')})`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const c of clients) c.disconnect();
    clients.length = 0;
    return { servers: started, urls: started.map((s) => s.url), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Sessions on every primary of a cluster, and where each key lives. */
export interface ClusterSession {
  readonly topology: ClusterTopology;
  /** One session per primary, in the order of {@link ClusterTopology.nodes}. */
  readonly shards: readonly Session[];
  /** Set when swc started the cluster itself. */
  readonly cluster?: PrivateCluster;
  /** The shard (index into {@link shards}) that serves `key`; throws when no node serves its slot. */
  shardOfKey(key: string): number;
  /** An ioredis Cluster client on the same nodes (opened on first use, closed with the session), for routed one-off commands. */
  client(): Promise<Cluster>;
  /** Disconnects everything and stops a private cluster. Safe to call twice. */
  close(): Promise<void>;
}

/** Options for {@link openClusterSession}: seeds of a running cluster, or a private one of `shards` primaries. */
export interface ClusterSessionOptions extends Pick<SessionOptions, 'timeoutMs' | 'commandTimeoutMs' | 'cap'> {
  /** URLs of one or more nodes of a running cluster; the first that answers gives the slot map. */
  readonly seeds?: readonly string[];
  /** Without seeds: start a private cluster of this many primaries. */
  readonly shards?: number;
  /** Settings for the private cluster's nodes. */
  readonly serverSettings?: readonly string[];
  /** The flag the seeds came from, for messages. */
  readonly flag?: string;
}

/** Opens a session per primary of a running cluster (from its seeds) or of a private one. */
export async function openClusterSession(options: ClusterSessionOptions): Promise<ClusterSession> {
  const flag = options.flag ?? '--redis-url';
  const seeds = options.seeds ?? [];
  if (seeds.length > 0 && (options.serverSettings?.length ?? 0) > 0) {
    throw new UsageError('--redis-server-arg: only applies to a private cluster; drop it or drop --redis-url');
  }
  for (const seed of seeds) parseRedisUrl(seed, flag);
  const cluster =
    seeds.length === 0
      ? await startPrivateCluster({ shards: options.shards ?? 3, ...(options.serverSettings ? { settings: options.serverSettings } : {}) })
      : undefined;
  const candidates = cluster ? [...cluster.urls] : [...seeds];
  const shards: Session[] = [];
  let ioCluster: Cluster | undefined;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      ioCluster?.disconnect();
      await Promise.all(shards.map((s) => s.close()));
      await cluster?.stop();
    })();
    return closed;
  };
  try {
    let topology: ClusterTopology | undefined;
    let lastError: unknown;
    for (const seed of candidates) {
      let probe: Session | undefined;
      try {
        probe = await openSession({ redisUrl: seed, flag, ...pick(options) });
        topology = await readTopology(probe.redis, seed, flag);
        break;
      } catch (err) {
        lastError = err;
        if (err instanceof UsageError || err instanceof ServerStateError) throw err;
      } finally {
        await probe?.close();
      }
    }
    if (!topology) throw lastError instanceof Error ? lastError : new Error('no seed answered');
    for (const node of topology.nodes) shards.push(await openSession({ redisUrl: node.url, flag, ...pick(options) }));
    const found = topology;
    return {
      topology,
      shards,
      ...(cluster ? { cluster } : {}),
      shardOfKey(key) {
        const index = found.nodeOfSlot(keySlot(key));
        if (index < 0) throw new ServerStateError('cluster', 'the cluster is not ready', `no node serves slot ${keySlot(key)} (key ${JSON.stringify(key)})`);
        return index;
      },
      async client() {
        if (!ioCluster) {
          const first = parseRedisUrl(found.nodes[0]?.url ?? candidates[0] ?? '', flag);
          ioCluster = new Cluster(
            found.nodes.map((n) => ({ host: n.host, port: n.port })),
            {
              enableReadyCheck: true,
              lazyConnect: true,
              slotsRefreshTimeout: options.timeoutMs ?? 3000,
              clusterRetryStrategy: (times) => (times > 3 ? null : 200 * times),
              redisOptions: {
                ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
                ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
                ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
                connectTimeout: options.timeoutMs ?? 3000,
                commandTimeout: options.commandTimeoutMs ?? 30_000,
                maxRetriesPerRequest: 2,
              },
            },
          );
          ioCluster.on('error', () => undefined);
          await ioCluster.connect();
        }
        return ioCluster;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The connection options every session of the cluster opens with: the seed's probe and each primary's, so a cap (`--max-ops`) counts from the first command on every node. */
function pick(options: ClusterSessionOptions): Pick<SessionOptions, 'timeoutMs' | 'commandTimeoutMs' | 'cap'> {
  return {
    ...(options.cap !== undefined ? { cap: options.cap } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
  };
}
