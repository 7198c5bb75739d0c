/**
 * One Redis-shaped handle over every primary of a cluster, for the read-only
 * and cleanup code that was written for one server (inspect, lights, clean,
 * verify's key checks) and for swc's script runner.
 *
 * Each command goes to the primary that owns its key's slot, on that
 * primary's own connection (a {@link ClusterSession} shard); a pipeline is
 * split per primary, sent to all of them at once, and its replies put back in
 * the order they were queued. A command without a key (TIME, CONFIG GET,
 * ECHO) goes to the first primary. SCAN walks every primary in turn behind
 * one cursor (`<node>-<cursor>`), so a SCAN loop written for one server sees
 * every key of the cluster, each once.
 *
 * The handle is also a {@link ScriptChannel}: script loads (keyless) go to
 * every primary and EVALSHA to the owner of its first key, so
 * `execPipeline` and `installScripts` run on a cluster unchanged.
 *
 * What a cluster can do to a read: a primary that does not answer is a
 * {@link RedisUnavailableError} naming it (exit 3); a MOVED or ASK reply (a
 * slot moved while swc was reading) is a {@link ServerStateError} saying so,
 * never a silently partial answer.
 */
import type { Redis } from 'ioredis';
import { RedisUnavailableError, ServerStateError, SwcError } from '../core/errors.js';
import { nodeAddress, redirectionOf, slotRanges, type ClusterSession } from './cluster.js';
import { ioredisChannel, type RedisCommand, type ScriptChannel } from './scripts.js';
import { keySlot } from './slot.js';

/** Commands sent through `call` whose key is not their first argument, or that have none. */
const KEY_AT: Readonly<Record<string, number | null>> = {
  MEMORY: 2,
  OBJECT: 2,
  CONFIG: null,
  INFO: null,
  PING: null,
  TIME: null,
  ECHO: null,
  CLUSTER: null,
  SCRIPT: null,
  DBSIZE: null,
  COMMAND: null,
  CLIENT: null,
  ACL: null,
  MULTI: null,
  EXEC: null,
};

/** Commands of swc's script runner sent to every primary (the script cache is per node). */
const BROADCAST = new Set(['MULTI', 'EXEC', 'SCRIPT']);

/** ioredis methods that take no key. */
const KEYLESS_METHODS = new Set(['echo', 'ping', 'time', 'info', 'config', 'dbsize', 'script', 'client', 'acl', 'cluster', 'command', 'multi', 'exec']);

/** Methods that take several keys of possibly different slots and answer with a count. */
const COUNTING_METHODS = new Set(['del', 'unlink', 'exists', 'touch']);

/** The key of a method call, or null when it has none. */
function keyOfCall(method: string, args: readonly unknown[]): string | null {
  if (KEYLESS_METHODS.has(method)) return null;
  if (method === 'call' || method === 'send_command') {
    const name = String(args[0] ?? '').toUpperCase();
    const at = name in KEY_AT ? KEY_AT[name] : 1;
    return at === null || at === undefined || args[at] === undefined ? null : String(args[at]);
  }
  return args[0] === undefined ? null : String(args[0]);
}

/** The key of a raw command (`EVALSHA sha n key…`, or `NAME key …`), or null. */
function keyOfCommand(command: RedisCommand): string | null {
  const name = (command[0] ?? '').toUpperCase();
  if (name === 'EVALSHA' || name === 'EVAL') return Number(command[2]) > 0 && command[3] !== undefined ? command[3] : null;
  const at = name in KEY_AT ? KEY_AT[name] : 1;
  return at === null || at === undefined ? null : (command[at] ?? null);
}

/** A Redis-shaped handle routed over a cluster; also a script channel (see the module comment). */
export type RoutedRedis = Redis & ScriptChannel & { readonly routed: true };

/** `host:port` of a primary. */
export const nodeName = (session: ClusterSession, index: number): string => {
  const node = session.topology.nodes[index];
  return node ? nodeAddress(node) : `node ${index}`;
};

/** The slot ranges of a primary, as `0-5460`. */
const rangesOf = (session: ClusterSession, index: number): string => {
  const node = session.topology.nodes[index];
  return node ? slotRanges(node) : '';
};

const SLOT_MOVED = 'a slot moved while swc was running';

/** Whether `err` says a slot moved after the slot map was read (see {@link clusterError}). */
export const isSlotMoved = (err: unknown): boolean => err instanceof ServerStateError && err.kind === 'cluster' && err.headline === SLOT_MOVED;

/**
 * The error of a command sent to primary `index`, made plain: a dead node
 * names itself; MOVED/ASK says the slot moved; other replies pass through.
 */
export function clusterError(session: ClusterSession, index: number, err: unknown): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const moved = redirectionOf(message);
  if (moved) {
    return new ServerStateError(
      'cluster',
      SLOT_MOVED,
      `slot ${moved.slot} is now served by ${moved.node}, not ${nodeName(session, index)} (resharding or a failover); run the command again once the cluster is stable`,
      { cause: err },
    );
  }
  if (err instanceof Error && err.name === 'ReplyError') return err;
  if (err instanceof RedisUnavailableError || !(err instanceof SwcError)) {
    return new RedisUnavailableError(`cluster node ${nodeName(session, index)} (slots ${rangesOf(session, index)}) did not answer: ${message.split('\n')[0]}`, {
      cause: err,
    });
  }
  return err;
}

type Queued = { method: string; args: unknown[] };

/**
 * Wraps a cluster session in one Redis-shaped handle (see the module comment).
 * Only the commands swc's readers use are routed; any other property access
 * that a single server has and this handle does not throws at once, so a new
 * use is caught by the tests rather than sent to the wrong node.
 */
export function routedRedis(session: ClusterSession): RoutedRedis {
  const count = session.shards.length;
  const nodeOfKey = (key: string | null): number => (key === null ? 0 : session.shardOfKey(key));
  const redisOf = (i: number): Redis => (session.shards[i] as { redis: Redis }).redis;
  const onNode = async <T>(i: number, run: (redis: Redis) => Promise<T>): Promise<T> => {
    try {
      return await run(redisOf(i));
    } catch (err) {
      throw clusterError(session, i, err);
    }
  };
  const invoke = (redis: Redis, method: string, args: readonly unknown[]): Promise<unknown> =>
    (redis as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]?.(...args) ??
    Promise.reject(new Error(`routed Redis: no method ${method}`));

  /** One SCAN step over every node: cursor `0` starts at node 0; `<node>-<cursor>` goes on. */
  const scan = async (cursor: unknown, ...rest: unknown[]): Promise<[string, string[]]> => {
    const text = String(cursor);
    const [node, inner] = text === '0' ? [0, '0'] : [Number(text.slice(0, text.indexOf('-'))), text.slice(text.indexOf('-') + 1)];
    if (!Number.isInteger(node) || node < 0 || node >= count) throw new Error(`routed Redis: bad SCAN cursor ${text}`);
    // Every key a primary holds is listed, even one of a slot the map gives another node (a slot
    // moving since): a key lives on one primary only, and reading it at the map's owner then says MOVED.
    const [next, keys] = (await onNode(node, (r) => invoke(r, 'scan', [inner, ...rest]))) as [string, string[]];
    if (next !== '0') return [`${node}-${next}`, keys];
    return [node + 1 < count ? `${node + 1}-0` : '0', keys];
  };

  /** A command over keys of several slots (DEL, EXISTS…): one per slot, the counts summed. */
  const counting = async (method: string, keys: readonly unknown[]): Promise<number> => {
    const bySlot = new Map<number, string[]>();
    for (const key of keys.flat()) {
      const slot = keySlot(String(key));
      bySlot.set(slot, [...(bySlot.get(slot) ?? []), String(key)]);
    }
    const counts = await Promise.all([...bySlot.values()].map((group) => onNode(nodeOfKey(group[0] as string), (r) => invoke(r, method, group))));
    return counts.reduce<number>((sum, n) => sum + Number(n), 0);
  };

  const pipeline = (): unknown => {
    const queued: Queued[] = [];
    const exec = async (): Promise<[Error | null, unknown][]> => {
      const perNode = new Map<number, number[]>();
      queued.forEach((q, i) => {
        const node = nodeOfKey(keyOfCall(q.method, q.args));
        perNode.set(node, [...(perNode.get(node) ?? []), i]);
      });
      const out = new Array<[Error | null, unknown]>(queued.length);
      await Promise.all(
        [...perNode].map(async ([node, indexes]) => {
          const replies = await onNode(node, async (r) => {
            const p = r.pipeline() as unknown as Record<string, (...a: unknown[]) => unknown> & { exec(): Promise<[Error | null, unknown][] | null> };
            for (const i of indexes) {
              const q = queued[i] as Queued;
              const fn = p[q.method];
              if (typeof fn !== 'function') throw new Error(`routed Redis: no pipeline method ${q.method}`);
              fn.apply(p, q.args);
            }
            return (await p.exec()) ?? [];
          });
          indexes.forEach((i, j) => {
            const [err, value] = replies[j] ?? [new Error('no reply'), null];
            out[i] = [err ? (clusterError(session, node, err) as Error) : null, value];
          });
        }),
      );
      return out;
    };
    const proxy: unknown = new Proxy(
      {},
      {
        get: (_, prop) => {
          if (prop === 'exec') return exec;
          if (prop === 'length') return queued.length;
          if (typeof prop !== 'string' || prop === 'then') return undefined;
          if (prop === 'scan') throw new Error('routed Redis: SCAN in a pipeline is not routed');
          return (...args: unknown[]) => {
            queued.push({ method: prop, args });
            return proxy;
          };
        },
      },
    );
    return proxy;
  };

  // The script channel: script loads (MULTI, SCRIPT LOAD, EXEC) to every primary, EVALSHA to its first key's owner, any other keyless command to the first.
  const send = async (commands: readonly RedisCommand[]): Promise<unknown[]> => {
    const keyed = commands.map((c) => keyOfCommand(c));
    const everywhere = commands.map((c) => BROADCAST.has((c[0] ?? '').toUpperCase()));
    const out = new Array<unknown>(commands.length);
    await Promise.all(
      session.shards.map(async (shard, node) => {
        const indexes = commands.map((_, i) => i).filter((i) => everywhere[i] === true || nodeOfKey(keyed[i] ?? null) === node);
        if (indexes.length === 0) return;
        let replies: unknown[];
        try {
          replies = await ioredisChannel(shard.redis).send(indexes.map((i) => commands[i] as RedisCommand));
        } catch (err) {
          throw clusterError(session, node, err);
        }
        indexes.forEach((i, j) => {
          const reply = replies[j];
          // A keyless command's reply: the first node's, unless a node answered with an error.
          if (everywhere[i] !== true) out[i] = reply instanceof Error ? clusterError(session, node, reply) : reply;
          else if (out[i] === undefined || (reply instanceof Error && !(out[i] instanceof Error))) out[i] = reply;
        });
      }),
    );
    return out;
  };

  const target: Record<string | symbol, unknown> = {
    routed: true,
    server: `cluster(${session.topology.nodes.map((n) => `${n.host}:${n.port}`).join(',')})`,
    user: session.shards[0]?.redis.options.username || 'default',
    send,
    pipeline,
    scan,
  };
  return new Proxy(target, {
    get: (t, prop) => {
      if (prop in t) return t[prop];
      if (typeof prop !== 'string' || prop === 'then') return undefined;
      return (...args: unknown[]): Promise<unknown> => {
        if (COUNTING_METHODS.has(prop)) return counting(prop, args);
        const node = nodeOfKey(keyOfCall(prop, args));
        return onNode(node, (r) => invoke(r, prop, args));
      };
    },
  }) as unknown as RoutedRedis;
}
