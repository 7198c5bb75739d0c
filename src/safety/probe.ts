/**
 * Scripts swc did not write (a manifest's, a `--scripts` folder's) are run
 * first on a private redis-server seeded with sentinel keys, before they may
 * reach a server swc did not start. A script that touches a sentinel, writes
 * outside the run's namespace, runs a forbidden command (FLUSHALL, SELECT,
 * CONFIG, …), answers more than the reply bound or does not finish in time
 * is refused (exit 2), naming its file, the line where it can be told, and
 * what it did. Nothing is sent to the user's server meanwhile.
 */
import type { Redis } from 'ioredis';
import { createNamespace } from './namespace.js';
import { CommandRefusedError, ScriptError, UsageError } from '../core/errors.js';
import { createLayout, namespacedLayout, type LayoutName } from '../layouts/index.js';
import type { Layout, LayoutOptions, Light } from '../layouts/types.js';
import { guardSource } from '../lua/guard.js';
import { isOwnScript, type LuaScript, type ScriptCall } from '../lua/source.js';
import { connect } from '../redis/connect.js';
import { limitCalls, wireScript, type LiveLimits } from '../redis/call-limits.js';
import { confineScriptsOf, installScripts, ioredisChannel, OversizeReplyError, runScript, watchRunawayScripts } from '../redis/scripts.js';
import { startPrivateServer } from '../redis/server.js';
import { confineRun, type RunUser } from './acl.js';
import type { TrustLevel } from './trust.js';

/** Commands a counter script has no business running: each is a refusal when a probe sees it. */
export const FORBIDDEN_COMMANDS = [
  'flushall',
  'flushdb',
  'select',
  'swapdb',
  'move',
  // COPY … DB n writes into another database; the run's confined user may not run COPY at all.
  'copy',
  'keys',
  'scan',
  'config',
  'acl',
  'shutdown',
  'debug',
  'migrate',
  'client',
  'replicaof',
  'slaveof',
  'save',
  'bgsave',
  'bgrewriteaof',
  'failover',
  'function',
  'module',
  'monitor',
  'sync',
  'psync',
] as const;

/** How long one probe call may run before it is stopped. */
export const PROBE_CALL_LIMIT_MS = 2000;
/** How long the probe waits for MONITOR to pass on what a call ran (it always does, in order; a busy machine delays it). */
const SETTLE_LIMIT_MS = 30_000;
/** Databases seeded with sentinels (0 holds the namespace too). */
const PROBE_DBS = [0, 1, 2, 3];
const PROBE_LIGHTS: readonly Light[] = [{ name: 'swc-probe-a' }, { name: 'swc-probe-b', system: 'swc-probe-system' }];

/** Whether a script is byte-identical to one of the installed swc's own `lua/` (those are swc's, proven by its suite): by content, never by path. */
export const isSwcScript = (script: LuaScript): boolean => isOwnScript(script);

/** The scripts of `layout` swc did not write, each once. */
export function untrustedScripts(layout: Layout): LuaScript[] {
  return [...new Set(layout.scripts.filter((s) => !isSwcScript(s)))];
}

/** What a probe saw a script do wrong. */
export interface ProbeFinding {
  readonly script: LuaScript;
  /** `file:line` when the line can be told, else the file. */
  readonly where: string;
  readonly what: string;
}

/** A probe's refusal: exit 2, naming the script file and what it did. */
export class ProbeRefusal extends UsageError {
  constructor(
    readonly finding: ProbeFinding,
    target: string,
  ) {
    super(
      `${finding.where}: refused: this script ${finding.what} on swc's probe server (a private redis-server seeded with sentinel keys); ` +
        `nothing was sent to ${target}`,
    );
  }
}

/** The first line of `script` that names `command` in a string, as `file:line`. */
function lineOf(script: LuaScript, pattern: RegExp): string {
  const lines = script.source.split('\n');
  const index = lines.findIndex((line) => pattern.test(line));
  const origin = index === -1 ? undefined : script.lineMap[index];
  return origin ? `${origin.file}:${origin.line}` : script.file;
}

/**
 * `cmdstat_<name>` → attempts, top-level command names only (`config|set`
 * counts as config): calls, and the calls Redis rejected or that failed
 * (a `pcall` of SELECT 99 tried another database too).
 */
function commandCalls(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([a-z_-]+)(?:\|[a-z_-]+)?:(.*)$/gm)) {
    const name = match[1] as string;
    const fields = match[2] as string;
    const count = (field: string): number => Number(new RegExp(`(?:^|,)${field}=(\\d+)`).exec(fields)?.[1] ?? 0);
    calls.set(name, (calls.get(name) ?? 0) + count('calls') + count('rejected_calls') + count('failed_calls'));
  }
  return calls;
}

/** Every key of database `db` with its DUMP (hex). */
async function dumpAll(redis: Redis, db: number): Promise<Map<string, string>> {
  await redis.select(db);
  const out = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) out.set(key, ((await redis.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('hex'));
  } while (cursor !== '0');
  await redis.select(0);
  return out;
}

/** The calls a probe makes: each operation for two lights, within an hour and across an hour boundary, two window sizes. */
function probeCalls(layout: Layout): ScriptCall[] {
  const hour = 1_764_450_000 - (1_764_450_000 % 3600);
  const calls: ScriptCall[] = [];
  let n = 0;
  const eventId = (): string => (n += 1).toString(16).padStart(24, '0');
  for (const light of PROBE_LIGHTS) {
    for (const at of [hour + 100, hour + 3599, hour + 3601]) {
      for (const windowSeconds of [60, 600]) {
        calls.push(layout.recordSuccess(light, { at, windowSeconds, eventId: eventId() }));
        calls.push(
          layout.recordFailure(light, { at: at + 0.5, windowSeconds, eventId: eventId(), errorJson: '{"error":{"class":"Probe","message":"x"},"time":1}' }),
        );
        calls.push(layout.getMetrics(light, { at: at + 1, windowSeconds }));
      }
    }
  }
  return calls;
}

/**
 * Seeds the sentinels: in every probe database, keys outside the namespace
 * (an application's, another swc run's), and the keys the layout's
 * templates give without swc's namespace (where a script that drops its
 * KEYS and builds names of its own would land).
 */
async function seed(redis: Redis, plain: Layout): Promise<void> {
  const hour = 1_764_450_000 - (1_764_450_000 % 3600);
  const templated = PROBE_LIGHTS.flatMap((light) => plain.keysOf(light, hour, hour + 7200).map((k) => k.key));
  for (const db of PROBE_DBS) {
    await redis.select(db);
    await redis.set(`app:user:${db}`, `sentinel ${db}`);
    await redis.hset(`app:session:${db}`, { user: 'sentinel', db: String(db) });
    await redis.zadd(`app:rank:${db}`, 1, 'sentinel');
    await redis.set('swc-bench:00000000:other-run', 'sentinel');
    for (const key of templated) await redis.set(key, `sentinel ${db}`);
  }
  await redis.select(0);
}

/** What {@link probeCall} returns for a script that raised an error of its own. */
const SCRIPT_FAILED = 'script failed';

/** What went wrong in a call that ended (null: nothing), as {@link probeCall} returns it. */
function probeOutcome(outcome: unknown): string | null {
  if (outcome === null) return null;
  if (outcome instanceof OversizeReplyError)
    return `replied more than 1 MB (${outcome.message.replace(/^.*\(at least ([\d,]+) bytes\).*$/, '$1')} bytes or more)`;
  if (outcome instanceof Error && /not allowed from script|NOPERM/i.test(outcome.message)) {
    const at = /called at (\S+:\d+)/.exec(outcome.message)?.[1];
    return `called a command Redis refuses inside scripts${at ? ` (at ${at})` : ''}: ${outcome.message.replace(/ \(called at .*$/, '').replace(/^.*?: ERR /, 'ERR ')}`;
  }
  // A script error of its own (a Lua error) stops the probe of this layout: the real run meets
  // the same error at the same call and reports it as it always did (bench --suggest names it failed).
  if (outcome instanceof ScriptError) return SCRIPT_FAILED;
  if (outcome instanceof Error) throw outcome;
  throw new CommandRefusedError(String(outcome));
}

/** Runs one call, stopping it after {@link PROBE_CALL_LIMIT_MS}; returns what went wrong, or null. */
async function probeCall(killer: Redis, runner: Redis, call: ScriptCall): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), PROBE_CALL_LIMIT_MS)));
  const ran = runScript(runner, call, { busyWaitMs: 0 }).then(
    () => null,
    (err: unknown) => err,
  );
  const outcome = await Promise.race([ran, late]);
  clearTimeout(timer);
  if (outcome !== 'late') return probeOutcome(outcome);
  // Still running: SCRIPT KILL, as swc would on a user's server; a script that wrote cannot be killed.
  // (Its connection was opened before: a new one would get BUSY in its handshake.)
  let state = `did not finish within ${PROBE_CALL_LIMIT_MS / 1000} s (it was stopped with SCRIPT KILL)`;
  try {
    await killer.call('SCRIPT', 'KILL');
  } catch (err) {
    const message = (err as Error).message;
    if (/UNKILLABLE/.test(message)) {
      state = `did not finish within ${PROBE_CALL_LIMIT_MS / 1000} s and wrote before, so SCRIPT KILL could not stop it (UNKILLABLE: only SHUTDOWN NOSAVE would)`;
    } else if (/NOTBUSY/.test(message)) {
      // No script runs: the call ended on its own and only its reply was late (a busy machine), so it is judged by its
      // outcome. (The server answers SCRIPT KILL only once a script has run past lua-time-limit, or has ended.)
      return probeOutcome(await ran);
    }
  }
  return state;
}

/**
 * Probes the scripts of `layout` swc did not write; throws a
 * {@link ProbeRefusal} on the first thing one does wrong. `target` names the
 * user's server in the message.
 */
export async function probeLayout(name: LayoutName, options: LayoutOptions, target: string, binary?: string): Promise<void> {
  const plain = createLayout(name, options);
  if (untrustedScripts(plain).length === 0) return;
  const namespace = createNamespace();
  const layout = namespacedLayout(name, namespace.prefix, options);
  // A short busy threshold: a runaway script answers BUSY to others quickly, and SCRIPT KILL may stop it.
  const server = await startPrivateServer({ settings: ['lua-time-limit=500'], ...(binary !== undefined ? { binary } : {}) });
  const checker = await connect(server.url);
  const runner = await connect(server.url);
  const killer = await connect(server.url);
  // MONITOR shows every command a script runs (source "lua"), with its arguments: the keys each touches are asked of the server.
  const watcher = await connect(server.url);
  const monitor = await watcher.monitor();
  const seen: { args: string[]; lua: boolean; db: number }[] = [];
  const marks = new Set<string>();
  monitor.on('monitor', (_time: string, args: string[], source: string, database: string) => {
    if (args[0]?.toLowerCase() === 'echo' && args[1]?.startsWith('swc-probe-mark-')) marks.add(args[1]);
    else seen.push({ args, lua: source === 'lua', db: Number(database) });
  });
  /** Waits until MONITOR has passed on everything the runner's call made (it shows commands in order). */
  const settle = async (n: number): Promise<void> => {
    const mark = `swc-probe-mark-${n}`;
    await runner.call('ECHO', mark);
    // MONITOR passes commands on in order, so the mark comes; on a busy machine it may take seconds. Going on
    // without it would judge the call by a part of what it ran.
    const until = Date.now() + SETTLE_LIMIT_MS;
    while (!marks.has(mark)) {
      if (Date.now() > until) throw new Error(`the probe's MONITOR passed nothing on within ${SETTLE_LIMIT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    await seed(checker, plain);
    const sentinels = new Map<number, Map<string, string>>();
    for (const db of PROBE_DBS) sentinels.set(db, await dumpAll(checker, db));
    await installScripts(runner, layout.scripts);
    let n = 0;
    for (const call of probeCalls(layout)) {
      if (isSwcScript(call.script)) continue;
      const fail = (where: string, what: string): never => {
        throw new ProbeRefusal({ script: call.script, where, what }, target);
      };
      // Counts before and after the call: the checker's own SELECT and SCAN fall outside the difference.
      const before = commandCalls(String(await checker.info('commandstats')));
      const stopped = await probeCall(killer, runner, call);
      // After an error of its own, what the script did before it is still checked, then the probe ends.
      const failed = stopped === SCRIPT_FAILED;
      if (stopped && !failed) fail(call.script.file, stopped);
      const calls = commandCalls(String(await checker.info('commandstats')));
      const ran = FORBIDDEN_COMMANDS.find((c) => (calls.get(c) ?? 0) > (before.get(c) ?? 0));
      if (ran) fail(lineOf(call.script, new RegExp(`['"]${ran}['"]`, 'i')), `ran ${ran.toUpperCase()}, which swc never lets a script run`);
      await settle((n += 1));
      const fromScript = seen.splice(0).filter((c) => c.lua);
      for (const command of fromScript) {
        const name = (command.args[0] ?? '').toLowerCase();
        let keys: string[] = [];
        try {
          keys = ((await checker.call('COMMAND', 'GETKEYS', ...command.args)) as string[]) ?? [];
        } catch {
          keys = []; // a command without keys (TIME, …)
        }
        const outside = keys.find((k) => !k.startsWith(`${namespace.prefix}:`));
        if (outside !== undefined || command.db !== 0) {
          const shown = outside !== undefined ? `"${outside}"` : `db ${command.db}`;
          fail(
            lineOf(call.script, new RegExp(`['"]${name}['"]`, 'i')),
            `ran ${name.toUpperCase()} on ${shown}, outside the run's namespace (${namespace.prefix}:*): a key it was not given`,
          );
        }
      }
      for (const db of PROBE_DBS) {
        const now = await dumpAll(checker, db);
        const before = sentinels.get(db) as Map<string, string>;
        for (const [key, dump] of before) {
          if (!now.has(key)) fail(call.script.file, `deleted the sentinel key "${key}" in db ${db}, a key it was not given`);
          if (now.get(key) !== dump) fail(call.script.file, `changed the sentinel key "${key}" in db ${db}, a key it was not given`);
        }
        for (const key of now.keys()) {
          if (before.has(key)) continue;
          if (db === 0 && key.startsWith(`${namespace.prefix}:`)) continue;
          fail(call.script.file, `wrote "${key}" in db ${db}, outside the run's namespace (${namespace.prefix}:*)`);
        }
      }
      if (failed) break;
    }
  } finally {
    for (const c of [checker, runner, killer, monitor, watcher]) c.disconnect();
    // A script SCRIPT KILL could not stop keeps the server BUSY: stop() ends with SIGKILL after 2 s.
    await server.stop();
  }
}

/** What {@link guardUntrustedScripts} needs to know. */
export interface GuardOptions {
  readonly layouts: readonly LayoutName[];
  readonly layoutOptions: LayoutOptions;
  /** Whether the scripts will run on a server swc started (no probe needed then). */
  readonly privateServer: boolean;
  /** How far scripts swc did not write are trusted on a server swc did not start (`--trust-scripts`, `--unconfined-scripts`). */
  readonly trust: TrustLevel;
  /** The user's server, as shown in messages (redacted). */
  readonly target: string;
  /** The command, for the one-line notices (`swc bench`). */
  readonly command: string;
  readonly binary?: string;
}

/** Layouts with scripts swc did not write, probed and bound for a server swc did not start. */
export interface Untrusted {
  readonly layouts: readonly LayoutName[];
  /** Their script files, for messages. */
  readonly files: string;
  readonly options: GuardOptions;
}

/** Scripts swc did not write, bound for a server swc did not start without `--trust-scripts`: exit 2, nothing sent there. */
export class UntrustedRefusal extends UsageError {
  constructor(layouts: readonly string[], files: string, target: string) {
    super(
      `--trust-scripts: refused: ${layouts.join(', ')} run${layouts.length === 1 ? 's' : ''} scripts swc did not write (${files}: not byte-identical to the installed swc's lua/), ` +
        `and those run only on swc's private server; nothing was sent to ${target}. Drop --redis-url (and REDIS_URL) to run them on a private server, or pass --trust-scripts to run them there anyway (probed and rehearsed first, then confined)`,
    );
  }
}

/** What {@link decideTrust} weighs: layouts with scripts swc did not write, bound for a server swc did not start. */
export interface TrustRequest {
  readonly layouts: readonly string[];
  /** Their script files (each named once in the message). */
  readonly files: readonly string[];
  /** What the caller gave (`--trust-scripts`/`--unconfined-scripts`, the library's `ScriptTrust`). */
  readonly trust: TrustLevel;
  /** The user's server, as shown in messages (redacted). */
  readonly target: string;
}

/**
 * The one decision on a user's own scripts bound for a server swc did not
 * start, for the CLI and the library alike: refused ({@link UntrustedRefusal},
 * exit 2) unless trusted, before anything is sent there. Returns the files as
 * messages show them.
 */
export function decideTrust(request: TrustRequest): string {
  const files = [...new Set(request.files)];
  const shown = files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');
  // The design decision: a user's scripts run on swc's private server only, unless the user says otherwise. Refused before the probe and before anything reaches the user's server.
  if (request.trust === 'none') throw new UntrustedRefusal(request.layouts, shown, request.target);
  return shown;
}

/**
 * Before scripts swc did not write reach a server swc did not start: probes
 * each such layout on a private server (refused, exit 2, on the first
 * misdeed). Returns what then has to be confined on the user's server
 * ({@link confineOrRefuse}), or null: only built-in layouts, or a private server.
 */
export async function guardUntrustedScripts(options: GuardOptions): Promise<Untrusted | null> {
  if (options.privateServer) return null;
  const untrusted = options.layouts
    .map((name) => ({ name, scripts: untrustedScripts(createLayout(name, options.layoutOptions)) }))
    .filter((l) => l.scripts.length > 0);
  if (untrusted.length === 0) return null;
  const shown = decideTrust({
    layouts: untrusted.map((l) => l.name),
    files: untrusted.flatMap((l) => l.scripts.map((s) => s.file)),
    trust: options.trust,
    target: options.target,
  });
  // A script the time guard cannot read as Lua 5.1 (src/lua/guard.ts) could not run guarded there: refused now, before the probe.
  for (const { scripts } of untrusted) for (const script of scripts) guardSource(script.source, 1, script);
  for (const { name } of untrusted) await probeLayout(name, options.layoutOptions, options.target, options.binary);
  return {
    layouts: untrusted.map((l) => l.name),
    files: shown,
    options,
  };
}

/** Where swc cannot create the run's ACL user and `--unconfined-scripts` was not given: exit 2, nothing of the run sent. */
export class UnconfinableRefusal extends UsageError {}

/**
 * On the user's server, after the probe and the preflight: makes the run's
 * temporary ACL user ({@link confineRun}; on a cluster, on every primary),
 * removed on every way out. Where swc may not create users (on any
 * primary), `--trust-scripts` is refused ({@link UnconfinableRefusal}, naming
 * `--unconfined-scripts`) before anything of the run is sent; only
 * `--unconfined-scripts` runs them with the connection's own rights, with
 * one line saying so. Returns the user, or null for such an unconfined run.
 */
export async function confineOrRefuse(
  untrusted: Untrusted,
  admin: Redis | readonly Redis[] | undefined,
  namespace: { readonly prefix: string; readonly pattern: string },
  register: (cleanup: () => Promise<void>) => void,
): Promise<RunUser | null> {
  const { options } = untrusted;
  const files = scriptFiles(untrusted);
  // A cluster: ACL users are per node, so the run's user is made on every primary (each confines its own scripts and sockets).
  const admins = adminsOf(admin);
  const user = admins.length > 0 ? await confineEvery(admins, namespace, files) : null;
  if (user) {
    register(() => user.remove());
    process.stderr.write(
      `${options.command}: scripts swc did not write (${untrusted.files}) run as the temporary ACL user ${user.name}: keys ${namespace.pattern} only, no ${DENIED_SHOWN}; removed at the end\n`,
    );
    return user;
  }
  const why =
    admins.length > 0
      ? `${options.target} does not let swc create the temporary ACL user that confines them to the run's keys (ACL SETUSER refused${admins.length > 1 ? ' on a primary' : ''})`
      : 'swc cannot confine them there';
  if (options.trust !== 'unconfined') {
    throw new UnconfinableRefusal(
      `--trust-scripts: refused: ${untrusted.layouts.join(', ')} run${untrusted.layouts.length === 1 ? 's' : ''} scripts swc did not write (${untrusted.files}); ` +
        `${why}, so --trust-scripts cannot run them confined; nothing of the run was sent. Run without --redis-url (a private server), ` +
        "or pass --unconfined-scripts to run them with your connection's own rights (dangerous: a script that misbehaves after the probe reaches every key your user may)",
    );
  }
  process.stderr.write(
    `${options.command}: --unconfined-scripts: running ${untrusted.files} UNCONFINED, with your connection's own rights, on ${options.target}: ` +
      `swc may not create the temporary ACL user there${admins.length > 0 ? ` (ACL SETUSER refused${admins.length > 1 ? ' on a primary' : ''})` : ''}; they passed swc's probe, and run after its rehearsal on a private server\n`,
  );
  return null;
}

/** SHA1 → script of every script the untrusted layouts run (swc's own among them), to name the one a denial names. */
function scriptFiles(untrusted: Untrusted): Map<string, LuaScript> {
  const { options } = untrusted;
  return new Map(untrusted.layouts.flatMap((name) => createLayout(name, options.layoutOptions).scripts.map((s) => [s.sha1, s] as const)));
}

const adminsOf = (admin: Redis | readonly Redis[] | undefined): readonly Redis[] =>
  admin === undefined ? [] : Array.isArray(admin) ? (admin as readonly Redis[]) : [admin as Redis];

/**
 * On the user's server, once the run is confined and rehearsed: every
 * primary's runaway watch, each call checked for time, memory and Lua heap
 * against `limits[i]` (src/redis/call-limits.ts, from the preflight and the
 * rehearsal), the time guard in every script sent, and, unconfined, a
 * script connection of its own. Each undone on every way out.
 */
export async function limitUntrusted(
  untrusted: Untrusted,
  admin: Redis | readonly Redis[] | undefined,
  user: RunUser | null,
  register: (cleanup: () => Promise<void>) => void,
  limits: readonly LiveLimits[] = [],
): Promise<void> {
  const { options } = untrusted;
  const admins = adminsOf(admin);
  // A script that loops past the server's busy threshold is stopped with SCRIPT KILL, and the run says in what state it left the server.
  const scripts = [...new Set(untrusted.layouts.flatMap((name) => untrustedScripts(createLayout(name, options.layoutOptions))))];
  const files = (user?.files ?? new Map()) as Map<string, LuaScript>;
  for (const [i, node] of admins.entries()) {
    const shown = admins.length > 1 ? `${options.target} (node ${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379})` : options.target;
    const unwatch = await watchRunawayScripts(node, shown, scripts);
    register(() => Promise.resolve(unwatch()));
    // Each call checked for time and memory, one at a time per connection (src/redis/call-limits.ts).
    const server = ioredisChannel(node).server;
    const unlimit = await limitCalls(node, server, shown, limits[i] ?? { budgetBytes: Number.POSITIVE_INFINITY });
    register(() => Promise.resolve(unlimit()));
    // There each script is sent with the time guard in (src/lua/guard.ts): a denial names the guarded copy's SHA1, which is the same file.
    for (const script of [...files.values()]) files.set(wireScript(script, server).sha1, script);
    if (!user) {
      // Unconfined, the scripts still get a connection of their own: stopping a runaway closes it, and the clean-up keeps admin's.
      const own = node.duplicate();
      own.on('error', () => undefined);
      if (own.status === 'wait') await own.connect();
      confineScriptsOf(node, own);
      register(() => Promise.resolve(own.disconnect()));
    }
  }
}

/** The run's user on every node of `admins`, as one; null (and none left behind) when any node refuses. */
async function confineEvery(
  admins: readonly Redis[],
  namespace: { readonly prefix: string; readonly pattern: string },
  files: ReadonlyMap<string, LuaScript>,
): Promise<RunUser | null> {
  const users: RunUser[] = [];
  for (const node of admins) {
    const user = await confineRun(node, namespace, files).catch(async (err: unknown) => {
      for (const made of users) await made.remove();
      throw err;
    });
    if (!user) {
      for (const made of users) await made.remove();
      return null;
    }
    users.push(user);
  }
  const first = users[0] as RunUser;
  if (users.length === 1) return first;
  return { ...first, remove: async () => void (await Promise.all(users.map((u) => u.remove()))) };
}

const DENIED_SHOWN =
  '@admin or @dangerous command (CONFIG, SLOWLOG, CLIENT, DEBUG, MONITOR, FLUSHALL, …), KEYS or SCAN, no other database (SELECT, MOVE, SWAPDB, COPY)';

export { TRUST_SCRIPTS_HELP, UNCONFINED_SCRIPTS_HELP, usersServer } from './trust.js';
