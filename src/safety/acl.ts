/**
 * Confinement of scripts swc did not write on a server swc did not start: a
 * temporary ACL user, made for the run, whose key pattern is the run's
 * namespace only and who may not run any @admin or @dangerous command
 * (FLUSHALL, CONFIG, DEBUG, MONITOR, SLOWLOG, CLIENT, …), nor KEYS or SCAN,
 * nor reach another database: SELECT of any but the run's own, SWAPDB,
 * MOVE and COPY (whose `DB n` copies into another one) are denied. Redis 7 checks the calling user's ACL on every
 * `redis.call` inside a script, so a script that reaches outside fails with
 * NOPERM instead of changing a user's key. swc's own commands (markers,
 * SCAN of its namespace, INFO, the clean-up) keep the user's connection;
 * only script calls (the runner's channel, the load engine's sockets) go
 * through the confined user.
 */
import { randomBytes } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import { BENCH_ROOT, type Namespace } from './namespace.js';
import { FindingError, type SwcError } from '../core/errors.js';
import { connect } from '../redis/connect.js';
import { originOf, type LuaScript } from '../lua/source.js';
import { confineScriptsOf } from '../redis/scripts.js';
import { confineRespTarget } from '../redis/confined-targets.js';

/** `swc-run-<8 hex>`: the temporary user of run `swc-bench:<8 hex>`. */
export const RUN_USER_PREFIX = 'swc-run-';
const RUN_USER_SHAPE = /^swc-run-[0-9a-f]{8}$/;

/** Commands the run's user may not run (the issue's list, and what would let it undo its own confinement). */
export const DENIED_TO_RUN_USER = [
  'flushall',
  'flushdb',
  'swapdb',
  'move',
  'keys',
  'scan',
  'config',
  'acl',
  'shutdown',
  'debug',
  'migrate',
  // COPY … DB n writes into another database, where the run's clean-up never looks (keys left behind).
  'copy',
  'monitor',
  'replicaof',
  'slaveof',
  'failover',
  'module',
  'save',
  'bgsave',
  'bgrewriteaof',
  'sync',
  'psync',
  // What a script could use on the server rather than on keys (#29: SLOWLOG RESET wiped the operator's slow log).
  'slowlog',
  'client',
  'latency',
] as const;

/** Whole categories the run's user may not run: every server-administration command, whatever its name. */
export const DENIED_CATEGORIES_TO_RUN_USER = ['@admin', '@dangerous'] as const;

/** A run's temporary user, and how to undo it. */
export interface RunUser {
  readonly name: string;
  /** The connection script calls go through. */
  readonly scripts: Redis;
  /** SHA1 → file of the scripts it runs, to name the one denied. */
  readonly files: ReadonlyMap<string, LuaScript>;
  /** Deletes the user and closes its connection (safe to call twice). */
  remove(): Promise<void>;
}

/** The name of the temporary user of `namespace`. */
export const runUserName = (namespace: Namespace): string => `${RUN_USER_PREFIX}${namespace.prefix.slice(BENCH_ROOT.length)}`;

/**
 * Creates the run's user on `admin`'s server and routes every script call
 * made through `admin` (and the load engine's sockets opened with its
 * options) through it. Returns null when the server does not let the
 * connected user create users (managed Redis, ACL denied, Redis before 6).
 */
export async function confineRun(admin: Redis, namespace: Namespace, files: ReadonlyMap<string, LuaScript> = new Map()): Promise<RunUser | null> {
  const name = runUserName(namespace);
  const password = randomBytes(24).toString('hex');
  const db = admin.options.db ?? 0;
  const rules = [
    'reset',
    'on',
    `>${password}`,
    `~${namespace.prefix}:*`,
    'resetchannels',
    // The run marker: a channel pattern no one subscribes to, which proves to `swc clean` that swc made this user.
    `&${runUserMarker(name)}`,
    '+@all',
    ...DENIED_CATEGORIES_TO_RUN_USER.map((c) => `-${c}`),
    ...DENIED_TO_RUN_USER.map((c) => `-${c}`),
    // One database: no SELECT of another (ioredis selects the run's own at connect, so that one SELECT is allowed by its argument).
    '-select',
    ...(db === 0 ? [] : [`+select|${db}`]),
  ];
  try {
    await admin.call('ACL', 'SETUSER', name, ...rules);
  } catch {
    return null;
  }
  let scripts: Redis;
  try {
    scripts = await connect(urlOf(admin.options, name, password));
  } catch (err) {
    await admin.call('ACL', 'DELUSER', name).catch(() => undefined);
    throw err;
  }
  confineScriptsOf(admin, scripts);
  confineRespTarget(admin.options, { ...pick(admin.options), username: name, password });
  let removed: Promise<void> | undefined;
  return {
    name,
    scripts,
    files,
    remove: () =>
      (removed ??= (async () => {
        scripts.disconnect();
        await admin.call('ACL', 'DELUSER', name).catch(() => undefined);
      })()),
  };
}

function pick(options: RedisOptions): Pick<RedisOptions, 'host' | 'port' | 'path' | 'db' | 'tls'> {
  return {
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.db !== undefined ? { db: options.db } : {}),
    ...(options.tls !== undefined ? { tls: options.tls } : {}),
  };
}

function urlOf(options: RedisOptions, user: string, password: string): string {
  const scheme = options.tls ? 'rediss' : 'redis';
  // No /<db> for db 0: connect() would SELECT it, which the user may not run.
  const db = options.db ?? 0;
  return `${scheme}://${encodeURIComponent(user)}:${password}@${options.host ?? '127.0.0.1'}:${options.port ?? 6379}${db === 0 ? '' : `/${db}`}`;
}

/**
 * A NOPERM of the run's user as a finding (exit 1) naming the command and
 * key, read from ACL LOG on the user's own connection; null when `err` is
 * not such a denial.
 */
export async function denialFinding(admin: Redis, user: RunUser, err: unknown): Promise<SwcError | null> {
  const message = err instanceof Error ? err.message : String(err);
  // Redis 7.0 words a denial inside a script "The user executing the script can't …", 7.2+ and Valkey "ACL failure in script", a direct one NOPERM.
  if (!DENIAL.test(message)) return null;
  let detail = '';
  try {
    const entries = (await admin.call('ACL', 'LOG', '10')) as unknown[][];
    for (const entry of entries) {
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < entry.length; i += 2) fields[String(entry[i])] = String(entry[i + 1]);
      if (fields.username !== user.name) continue;
      detail = fields.reason === 'key' ? `key "${fields.object ?? '?'}"` : `${fields.reason ?? 'command'} "${fields.object ?? '?'}"`;
      break;
    }
  } catch {
    // ACL LOG refused: the denial is still named from the error text.
  }
  // The reply names the script by SHA1 (`script: <sha>`), in the error or its causes.
  let text = message;
  for (let e: unknown = err; e instanceof Error && e.cause !== undefined; e = e.cause)
    text += ` ${e.cause instanceof Error ? e.cause.message : String(e.cause)}`;
  const sha = /script: ([0-9a-f]{40})/.exec(text)?.[1];
  // Under swc's clock wrapper the error is raised by the wrapper; it names the script's own line as "called at".
  const line = (/called at user_script:(\d+)/.exec(text) ?? /@user_script:(\d+)/.exec(text))?.[1];
  const loaded = sha !== undefined ? user.files.get(sha) : undefined;
  const origin = loaded && line !== undefined ? originOf(loaded, Number(line)) : undefined;
  const script = loaded === undefined ? undefined : origin ? `${origin.file}:${origin.line}` : loaded.file;
  return new FindingError(
    `denied by swc's confinement: ${script ? `${script} ` : 'a script '}tried ${detail || 'a command or key outside the run'} ` +
      `(as the run's temporary user ${user.name}, whose ACL allows only its own namespace); the user's keys are untouched`,
    { cause: err },
  );
}

/** How the builds swc supports word an ACL denial (direct, and of a command inside a script). */
export const DENIAL = /NOPERM|ACL failure in script|user executing the script can't/;

/** Whether `name` is named like a temporary run user swc makes (`swc-run-<8 hex>`); {@link hasRunMarker} proves it. */
export const isRunUser = (name: string): boolean => RUN_USER_SHAPE.test(name);

/** The channel pattern swc gives the run user `name` when it creates it: its run marker. */
export const runUserMarker = (name: string): string => `swc-run-marker:${name}`;

/** Whether the ACL user `name` on `redis` carries the marker swc wrote when it made it (ACL GETUSER's channels). */
export async function hasRunMarker(redis: Redis, name: string): Promise<boolean> {
  let fields: unknown;
  try {
    fields = await redis.call('ACL', 'GETUSER', name);
  } catch {
    return false;
  }
  if (!Array.isArray(fields)) return false;
  const at = fields.findIndex((f) => String(f) === 'channels');
  // Redis 7 answers one string of patterns ("&a &b"), 6.2 a list of them.
  const value: unknown = at === -1 ? undefined : fields[at + 1];
  const patterns = (Array.isArray(value) ? value.map(String) : String(value ?? '').split(' ')).map((p) => p.replace(/^&/, ''));
  return patterns.includes(runUserMarker(name));
}

/**
 * `swc clean`: the temporary users of runs that are no longer alive (a run
 * killed with SIGKILL leaves its user) on each of `nodes` (every primary of a
 * cluster): named like swc's and carrying swc's marker, never a look-alike.
 * Returns name → the nodes holding it; empty where ACL USERS is refused.
 */
export async function leftoverRunUsers(nodes: Redis | readonly Redis[], alive: (prefix: string) => boolean): Promise<Map<string, Redis[]>> {
  const out = new Map<string, Redis[]>();
  for (const redis of Array.isArray(nodes) ? (nodes as readonly Redis[]) : [nodes as Redis]) {
    let lines: string[];
    try {
      lines = (await redis.call('ACL', 'USERS')) as string[];
    } catch {
      continue;
    }
    for (const name of lines) {
      if (!isRunUser(name) || alive(`${BENCH_ROOT}${name.slice(RUN_USER_PREFIX.length)}`)) continue;
      if (!(await hasRunMarker(redis, name))) continue;
      out.set(name, [...(out.get(name) ?? []), redis]);
    }
  }
  return out;
}

/** Awaits a run; a NOPERM of its confined user becomes the finding of {@link denialFinding} (exit 1). */
export async function deniedAsFinding<T>(running: Promise<T>, admin: Redis, user: RunUser | null): Promise<T> {
  try {
    return await running;
  } catch (err) {
    const finding = user ? await denialFinding(admin, user, err) : null;
    throw finding ?? err;
  }
}
