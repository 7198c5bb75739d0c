/**
 * Checks made before writing to a server swc did not start: would the run
 * make Redis evict (or refuse) anybody's writes, can this server take writes
 * at all, and may this user run what swc runs on the keys it would write.
 */
import type { Redis } from 'ioredis';
import { readScript } from '../lua/source.js';
import { parseInfo } from './info.js';

/** One reason not to write. */
export interface PreflightFinding {
  readonly check: 'memory' | 'replica' | 'min-replicas' | 'permission' | 'write' | 'unchecked';
  readonly detail: string;
  /**
   * `--allow-eviction` lifts it (memory headroom, or a check that could not
   * be made); otherwise the run cannot write and nothing overrides it.
   */
  readonly overridable: boolean;
  /** Worth saying, but no reason to refuse (e.g. EVAL denied: only a SCRIPT FLUSH needs it). */
  readonly advisory?: boolean;
}

/** The memory figures the headroom check used. */
export interface MemoryHeadroom {
  readonly usedBytes: number;
  /** 0 = no limit. */
  readonly maxBytes: number;
  readonly policy: string;
  readonly peakBytes: number;
}

/** What {@link preflight} found. */
export interface PreflightReport {
  readonly findings: readonly PreflightFinding[];
  /** The server runs in cluster mode: a script's keys must share one hash slot. */
  readonly cluster: boolean;
  readonly memory: MemoryHeadroom | null;
  readonly permissions: {
    /** ACL WHOAMI, or null when not allowed. */
    readonly user: string | null;
    /** How permissions were checked: ACL DRYRUN (exact), harmless probes, or not at all. */
    readonly method: 'acl-dryrun' | 'probe';
    /** Each command (or key access) this user may not run, with the server's reason. */
    readonly missing: readonly string[];
  };
}

/** Options of {@link preflight}. */
export interface PreflightOptions {
  /** The run's namespace prefix (`swc-bench:<id>`): probes write only below it. */
  readonly prefix: string;
  /** Upper bound of the memory the run's keys take at once. */
  readonly peakBytes: number;
  /** The hash tag of the probe keys (default `probe`); on a cluster, one whose slot this node serves. */
  readonly probeTag?: string;
  /**
   * Send no write at all (`swc doctor` without --write-check): permissions
   * only through ACL DRYRUN, and no write probe; what that leaves unchecked
   * is one advisory finding.
   */
  readonly readOnly?: boolean;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const isDenied = (message: string): boolean => /^NOPERM|^ERR unknown command|^ERR unknown subcommand|can't run this command|can't access/i.test(message);
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** A command swc sends, in a form that is harmless on the probe keys. */
interface Probe {
  readonly name: string;
  readonly args: (keys: ProbeKeys) => (string | number)[];
  /** Not on the normal path: reported, never a reason to refuse. */
  readonly advisory?: string;
}

interface ProbeKeys {
  readonly plain: string;
  readonly hash: string;
  readonly zset: string;
  readonly sha: string;
}

/** What swc sends outside scripts while benchmarking (the fill, the measurements, the clean-up). */
const PROBES: readonly Probe[] = [
  { name: 'INFO', args: () => ['INFO', 'server'] },
  { name: 'SCAN', args: (k) => ['SCAN', '0', 'MATCH', k.plain, 'COUNT', '10'] },
  { name: 'SET', args: (k) => ['SET', k.plain, '1', 'PX', '60000'] },
  { name: 'TYPE', args: (k) => ['TYPE', k.plain] },
  { name: 'OBJECT ENCODING', args: (k) => ['OBJECT', 'ENCODING', k.plain] },
  { name: 'EXISTS', args: (k) => ['EXISTS', k.plain] },
  { name: 'HLEN', args: (k) => ['HLEN', k.hash] },
  { name: 'ZCARD', args: (k) => ['ZCARD', k.zset] },
  { name: 'HEXISTS', args: (k) => ['HEXISTS', k.hash, 'f'] },
  { name: 'ZSCORE', args: (k) => ['ZSCORE', k.zset, 'm'] },
  { name: 'HSET', args: (k) => ['HSET', k.plain + ':marker', 'f', '1'] },
  { name: 'EXPIRE', args: (k) => ['EXPIRE', k.plain, '60'] },
  { name: 'MEMORY USAGE', args: (k) => ['MEMORY', 'USAGE', k.plain, 'SAMPLES', '0'] },
  { name: 'SCRIPT LOAD', args: () => ['SCRIPT', 'LOAD', 'return 1'] },
  { name: 'EVALSHA', args: (k) => ['EVALSHA', k.sha, '2', k.hash, k.zset] },
  { name: 'DEL', args: (k) => ['DEL', k.plain, k.plain + ':marker'] },
  { name: 'EVAL', args: (k) => ['EVAL', 'return 1', '2', k.hash, k.zset], advisory: 'only needed to reload a script after a SCRIPT FLUSH' },
  { name: 'MULTI', args: () => ['MULTI'], advisory: 'only needed to reload scripts after a SCRIPT FLUSH' },
  { name: 'CONFIG GET', args: () => ['CONFIG', 'GET', 'maxmemory'], advisory: 'encoding limits and min-replicas-to-write cannot be read' },
  { name: 'CLIENT ID', args: () => ['CLIENT', 'ID'], advisory: "used_memory deltas may include a closed connection's buffers" },
];

/** The commands the layouts' scripts call (ACLs apply inside scripts too). */
const SCRIPT_COMMANDS: readonly (readonly (string | number)[])[] = [
  ['ZADD', 'z', 0, 'm'],
  ['ZCOUNT', 'z', 0, 1],
  ['ZRANGE', 'z', 0, -1],
  ['ZREM', 'z', 'm'],
  ['HSET', 'h', 'f', 1],
  ['HINCRBY', 'h', 'f', 1],
  ['HGET', 'h', 'f'],
  ['HMGET', 'h', 'f'],
  ['HGETALL', 'h'],
  ['HDEL', 'h', 'f'],
  ['EXPIRE', 'h', 60],
  ['TIME'],
];

async function tryCall(redis: Redis, args: readonly (string | number)[]): Promise<{ ok: boolean; reply?: unknown; error?: string }> {
  try {
    return { ok: true, reply: await redis.call(String(args[0]), ...args.slice(1)) };
  } catch (err) {
    return { ok: false, error: messageOf(err) };
  }
}

/** ACL DRYRUN for every command (exact, needs a user allowed to run it); null when it is not available. */
async function dryRun(redis: Redis, user: string, keys: ProbeKeys): Promise<string[] | null> {
  const first = await tryCall(redis, ['ACL', 'DRYRUN', user, 'PING']);
  if (!first.ok) return null;
  const missing: string[] = [];
  for (const probe of PROBES) {
    if (probe.name === 'MULTI') continue;
    const result = await tryCall(redis, ['ACL', 'DRYRUN', user, ...probe.args(keys)]);
    // An error (not a denial) means the command does not exist here: renamed or disabled.
    const reason = result.ok ? (result.reply === 'OK' ? null : String(result.reply)) : (result.error ?? 'refused');
    if (reason !== null) missing.push(`${probe.name}${probe.advisory ? ` (${probe.advisory})` : ''}: ${reason}`);
  }
  for (const [command, ...args] of SCRIPT_COMMANDS) {
    const resolved = args.map((a) => (a === 'h' ? keys.hash : a === 'z' ? keys.zset : a));
    const result = await tryCall(redis, ['ACL', 'DRYRUN', user, String(command), ...resolved]);
    const reason = result.ok ? (result.reply === 'OK' ? null : String(result.reply)) : (result.error ?? 'refused');
    if (reason !== null) missing.push(`${String(command)} in scripts: ${reason}`);
  }
  return missing;
}

/**
 * Sends each command in a harmless form on keys of the run's namespace: a
 * NOPERM or unknown-command reply means missing; any other reply (WRONGTYPE,
 * NOSCRIPT, nil) means allowed. Then runs lua/lib/acl_probe.lua to try the
 * commands scripts call. Every probe key is deleted.
 */
async function probe(redis: Redis, keys: ProbeKeys): Promise<{ missing: string[]; write: string | null }> {
  const missing: string[] = [];
  let write: string | null = null;
  for (const p of PROBES) {
    const result = p.name === 'MULTI' ? await tryMulti(redis, keys) : await tryCall(redis, p.args(keys));
    if (result.ok || !result.error) continue;
    if (isDenied(result.error)) missing.push(`${p.name}${p.advisory ? ` (${p.advisory})` : ''}: ${result.error}`);
    else if (p.name === 'SET') write = result.error;
  }
  const script = readScript('lib/acl_probe');
  let reply = await tryCall(redis, ['EVALSHA', script.sha1, '2', keys.hash, keys.zset]);
  if (!reply.ok && /^NOSCRIPT/.test(reply.error ?? '')) reply = await tryCall(redis, ['EVAL', script.source, '2', keys.hash, keys.zset]);
  if (reply.ok && Array.isArray(reply.reply)) {
    for (const line of reply.reply as string[]) missing.push(`${line.split(':')[0]} in scripts: ${line.slice(line.indexOf(':') + 2)}`);
  } else if (!reply.ok && !missing.some((m) => m.startsWith('EVALSHA'))) {
    missing.push(`scripts: could not run the permission probe script: ${reply.error ?? 'no reply'}`);
  }
  await tryCall(redis, ['DEL', keys.plain, `${keys.plain}:marker`, keys.hash, keys.zset]);
  return { missing, write };
}

async function tryMulti(redis: Redis, keys: ProbeKeys): Promise<{ ok: boolean; error?: string }> {
  try {
    const replies = (await redis.multi().exists(keys.plain).exec()) ?? [];
    const failed = replies.find(([err]) => err);
    return failed?.[0] ? { ok: false, error: failed[0].message } : { ok: true };
  } catch (err) {
    return { ok: false, error: messageOf(err) };
  }
}

/** Writes one key under the namespace and deletes it: what the server says to a write. */
async function writeProbe(redis: Redis, key: string): Promise<string | null> {
  const result = await tryCall(redis, ['SET', key, '1', 'PX', '60000']);
  await tryCall(redis, ['DEL', key]);
  return result.ok ? null : (result.error ?? 'refused');
}

function explainWrite(error: string): PreflightFinding {
  if (/^READONLY/.test(error)) return { check: 'replica', detail: `the server refuses writes (${error})`, overridable: false };
  if (/^NOREPLICAS/.test(error)) {
    return { check: 'min-replicas', detail: `the server refuses writes: too few replicas connected for min-replicas-to-write (${error})`, overridable: false };
  }
  if (/^OOM/.test(error)) return { check: 'memory', detail: `the server is already out of memory (${error})`, overridable: false };
  if (/^MISCONF/.test(error)) return { check: 'write', detail: `the server refuses writes after a failed save (${error})`, overridable: false };
  return { check: 'write', detail: `a test write under the run's namespace failed: ${error}`, overridable: false };
}

/** The headroom finding, or null when the run fits. */
function memoryFinding(m: MemoryHeadroom): PreflightFinding | null {
  if (m.maxBytes <= 0 || m.usedBytes + m.peakBytes < m.maxBytes) return null;
  const figures = `maxmemory ${mb(m.maxBytes)}, ${mb(m.usedBytes)} used, this run needs up to ${mb(m.peakBytes)}`;
  let consequence: string;
  if (m.policy === 'noeviction') {
    consequence = 'Redis would refuse writes (OOM) from every client, your application included, until the run ends; the run would fail anyway';
  } else if (m.policy.startsWith('volatile')) {
    consequence = `Redis would evict keys that have a TTL (${m.policy}), other clients' included`;
  } else {
    consequence = `Redis would evict other clients' keys (${m.policy})`;
  }
  return { check: 'memory', detail: `${figures}: ${consequence}`, overridable: true };
}

/**
 * Reads memory, replication and ACL facts and probes a write, all under
 * `options.prefix` (probe keys are deleted). Never throws for a denied
 * command: what could not be checked is a finding of its own.
 */
export async function preflight(redis: Redis, options: PreflightOptions): Promise<PreflightReport> {
  const findings: PreflightFinding[] = [];
  // One hash tag for every probe key: a cluster node takes multi-key probes without CROSSSLOT.
  const tag = options.probeTag ?? 'probe';
  const keys: ProbeKeys = {
    plain: `${options.prefix}:{${tag}}`,
    hash: `${options.prefix}:{${tag}}:h`,
    zset: `${options.prefix}:{${tag}}:z`,
    sha: '0'.repeat(40),
  };

  let info: Record<string, string> | null = null;
  try {
    info = parseInfo(String(await redis.call('INFO')));
  } catch (err) {
    findings.push({
      check: 'unchecked',
      detail:
        `INFO is not allowed (${messageOf(err)}): maxmemory, the eviction policy and evictions during the run cannot be checked, ` +
        'and swc bench reads used_memory from it',
      overridable: false,
    });
  }

  let memory: MemoryHeadroom | null = null;
  if (info) {
    memory = {
      usedBytes: Number(info.used_memory ?? 0),
      maxBytes: Number(info.maxmemory ?? 0),
      policy: info.maxmemory_policy ?? 'unknown',
      peakBytes: options.peakBytes,
    };
    const finding = memoryFinding(memory);
    if (finding) findings.push(finding);
    if (info.role === 'slave') {
      const readOnly = await tryCall(redis, ['CONFIG', 'GET', 'replica-read-only']);
      const writable = readOnly.ok && Array.isArray(readOnly.reply) && readOnly.reply[1] === 'no';
      findings.push({
        check: 'replica',
        detail:
          `this server is a replica of ${info.master_host ?? '?'}:${info.master_port ?? '?'}` +
          (writable ? ' (replica-read-only no: writes here are lost on the next resync)' : ' (read-only)') +
          '; point --redis-url at the primary',
        overridable: false,
      });
    }
    const config = await tryCall(redis, ['CONFIG', 'GET', 'min-replicas-to-write']);
    const needed = config.ok && Array.isArray(config.reply) ? Number(config.reply[1] ?? 0) : 0;
    const good = info.min_slaves_good_slaves === undefined ? Number(info.connected_slaves ?? 0) : Number(info.min_slaves_good_slaves);
    if (needed > 0 && good < needed) {
      findings.push({
        check: 'min-replicas',
        detail: `min-replicas-to-write ${needed} with ${good} good replica(s) connected: the server refuses every write`,
        overridable: false,
      });
    }
  }

  let user: string | null = null;
  const whoami = await tryCall(redis, ['ACL', 'WHOAMI']);
  if (whoami.ok) user = String(whoami.reply);
  const exact = user !== null ? await dryRun(redis, user, keys) : null;
  let missing: string[];
  let writeError: string | null;
  if (options.readOnly) {
    missing = exact ?? [];
    writeError = null;
    findings.push({
      check: 'unchecked',
      detail: `no write was sent (${exact ? 'permissions checked with ACL DRYRUN' : 'permissions not probed: ACL DRYRUN is not available'}; whether the server takes writes is not checked); --write-check probes with writes under swc-bench:*`,
      overridable: false,
      advisory: true,
    });
  } else if (exact) {
    missing = exact;
    writeError = missing.some((m) => m.startsWith('SET')) ? null : await writeProbe(redis, keys.plain);
  } else {
    ({ missing, write: writeError } = await probe(redis, keys));
  }
  const who = user ? `user "${user}"` : 'this user';
  // A key pattern that leaves out swc-bench:* denies every command on a key: one finding, not twenty.
  const keyDenied = missing.filter((m) => /permissions to access|can't access/i.test(m));
  if (keyDenied.length > 0) {
    const commands = [...new Set(keyDenied.map((m) => m.slice(0, m.indexOf(':')).replace(/ \(.*$/, '')))];
    findings.push({
      check: 'permission',
      detail: `${who} may not access keys under ${options.prefix.replace(/:[^:]*$/, ':')}* (ACL key patterns; needed by ${commands.join(', ')})`,
      overridable: false,
    });
  }
  for (const m of missing) {
    if (keyDenied.includes(m)) continue;
    const advisory = PROBES.some((p) => p.advisory && m.startsWith(`${p.name} (`));
    findings.push({ check: 'permission', detail: `${who} may not run ${m}`, overridable: false, ...(advisory ? { advisory } : {}) });
  }
  if (writeError && !findings.some((f) => f.check === 'replica' || f.check === 'min-replicas')) findings.push(explainWrite(writeError));

  return { findings, cluster: info?.cluster_enabled === '1', memory, permissions: { user, method: exact ? 'acl-dryrun' : 'probe', missing } };
}

/**
 * The one line a run refuses with, or null when it may go ahead. Findings
 * that only `--allow-eviction` lifts say so; advisory ones never refuse.
 */
export function refusalOf(
  report: PreflightReport,
  allowEviction: boolean,
  overrideHint = ' (--allow-eviction runs anyway, and fails any cell during which Redis evicted a key)',
): string | null {
  const blocking = report.findings.filter((f) => !f.advisory && !(allowEviction && f.overridable));
  if (blocking.length === 0) return null;
  const overridable = blocking.every((f) => f.overridable);
  return blocking.map((f) => f.detail).join('; ') + (overridable ? overrideHint : '');
}
