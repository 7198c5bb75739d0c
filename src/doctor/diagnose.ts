import type { Redis } from 'ioredis';
import { layoutNames, createLayout } from '../layouts/index.js';
import { randomBytes } from 'node:crypto';
import { compareVersions, serverInfo, type ServerInfo } from '../redis/info.js';
import { preflight, type PreflightReport } from '../redis/preflight.js';
import { installScripts } from '../redis/scripts.js';
import { checkAccess, type Access } from './access.js';
import { untrustedScripts } from '../safety/probe.js';

/** One finding of {@link diagnose}. */
export interface Check {
  readonly name: string;
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
}

/** What {@link diagnose} found. */
export interface Diagnosis {
  readonly server: ServerInfo;
  readonly scripts: readonly { file: string; sha1: string; loaded: boolean }[];
  readonly checks: readonly Check[];
  /** What this user may run, per family of commands, and which swc commands that allows. */
  readonly access: Access;
  /** What a bench would find before writing: memory headroom, role, permissions. */
  readonly preflight: PreflightReport;
  /** No check failed (warnings allowed). */
  readonly ok: boolean;
}

/** Options of {@link diagnose}. */
export interface DiagnoseOptions {
  /** The memory a benchmark would need at once (the headroom check); default 0 (any headroom will do). */
  readonly peakBytes?: number;
  /** What `peakBytes` is for, in the check's text, e.g. `the default bench`. */
  readonly peakFor?: string;
  /** Send no SCRIPT LOAD and no write (a server swc did not start, without --write-check). */
  readonly readOnly?: boolean;
  /** Connections a benchmark opens at once; default {@link BENCH_CONNECTIONS}. */
  readonly connections?: number;
  /**
   * The server is swc's own (it started it): only there are a registered
   * layout's scripts swc did not write (a manifest's) loaded. Default false:
   * on any other server they are not sent, as every use case refuses them there.
   */
  readonly privateServer?: boolean;
}

/**
 * Connections the default bench holds open at once: its 4 throughput
 * connections, the script runner's and the second one that watches for a
 * runaway script.
 */
export const BENCH_CONNECTIONS = 4 + 2;

/** The compiled defaults the published figures were taken with. */
const DEFAULT_LIMITS = {
  'hash-max-listpack-entries': 512,
  'hash-max-listpack-value': 64,
  'zset-max-listpack-entries': 128,
  'zset-max-listpack-value': 64,
} as const;

/**
 * Checks that a server can run every layout and that its figures will be
 * comparable: version, scripts, MEMORY USAGE, encoding limits, eviction policy.
 */
export async function diagnose(redis: Redis, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  const server = await serverInfo(redis);
  const namespace = `swc-bench:${randomBytes(4).toString('hex')}`;
  const access = await checkAccess(redis, { readKey: 'stoplight:swc-doctor-access', writeKey: `${namespace}:{probe}` });
  const checks: Check[] = [];
  // A user that may not write cannot bench anyway: what only a bench needs is said, not failed.
  const add = (name: string, status: Check['status'], detail: string, benchOnly = false): void => {
    if (benchOnly && access.readOnly && status === 'fail')
      checks.push({ name, status: 'warn', detail: `${detail} (only bench and verify need it; this user is read-only)` });
    else checks.push({ name, status, detail });
  };
  for (const f of access.families) {
    const neededBy = f.neededBy.join(', ');
    if (f.denied.length === 0) {
      add(`access ${f.family}`, 'ok', `may run ${f.allowed.join(', ')} (${neededBy})`);
    } else {
      const denied = f.denied.map((d) => d.command).join(', ');
      const grant = f.denied.map((d) => `+${d.command.toLowerCase().replace(' ', '|')}`).join(' ');
      const reader = f.family === 'connection' || f.family === 'read';
      add(
        `access ${f.family}`,
        reader || !access.readOnly ? 'fail' : 'warn',
        `may not run ${denied}${f.allowed.length > 0 ? ` (may run ${f.allowed.join(', ')})` : ''}: ${neededBy} ${reader ? `need it: grant ${grant}` : 'are refused'}`,
      );
    }
  }
  add(
    'commands',
    access.refuses.length === 0 ? 'ok' : access.allows.length > 0 ? 'warn' : 'fail',
    `${access.allows.length > 0 ? `this user may use swc ${access.allows.join(', ')}` : 'this user may use no swc command'}${access.readOnly ? ' (read commands only)' : ''}` +
      `${access.refuses.length > 0 ? `; refused: ${access.refuses.join(', ')}` : ''}; --rdb needs no access (${access.method === 'acl-dryrun' ? 'ACL DRYRUN' : "the server's NOPERM answers"})`,
  );

  add(
    'version',
    compareVersions(server.version, '6.2.0') >= 0 ? 'ok' : 'fail',
    compareVersions(server.version, '6.2.0') >= 0
      ? `Redis ${server.version} (${server.memAllocator})`
      : `Redis ${server.version}: 6.2 or newer is needed (ZRANGE … BYSCORE LIMIT)`,
  );

  const scripts: { file: string; sha1: string; loaded: boolean }[] = [];
  for (const name of options.readOnly ? [] : layoutNames) {
    const layout = createLayout(name);
    const foreign = untrustedScripts(layout);
    if (foreign.length > 0 && options.privateServer !== true) {
      for (const s of layout.scripts) scripts.push({ file: s.file, sha1: s.sha1, loaded: false });
      add(`scripts ${name}`, 'warn', `not loaded: ${foreign.length} script(s) swc did not write, sent only to swc's private server`);
      continue;
    }
    try {
      await installScripts(redis, layout.scripts);
      for (const s of layout.scripts) scripts.push({ file: s.file, sha1: s.sha1, loaded: true });
      add(`scripts ${name}`, 'ok', `${layout.scripts.length} scripts loaded`);
    } catch (err) {
      for (const s of layout.scripts) scripts.push({ file: s.file, sha1: s.sha1, loaded: false });
      add(`scripts ${name}`, 'fail', err instanceof Error ? err.message : String(err), true);
    }
  }

  if (options.readOnly) {
    // SCRIPT LOAD writes the server's script cache: not without --write-check.
    for (const name of layoutNames) for (const s of createLayout(name).scripts) scripts.push({ file: s.file, sha1: s.sha1, loaded: false });
    add('scripts', 'warn', 'not loaded: SCRIPT LOAD changes the script cache of a server swc did not start; --write-check loads them');
  }

  try {
    await redis.call('MEMORY', 'USAGE', 'swc-bench:doctor:no-such-key', 'SAMPLES', '0');
    add('memory usage', 'ok', 'MEMORY USAGE … SAMPLES 0 is available (exact byte counts)');
  } catch (err) {
    add('memory usage', 'fail', `MEMORY USAGE is not available: ${(err as Error).message}`);
  }

  if (!server.configReadable) {
    add('encoding limits', 'warn', 'CONFIG GET is not allowed: encodings cannot be predicted, bytes may differ');
  } else {
    const differing = Object.entries(DEFAULT_LIMITS).filter(([name, value]) => server.config[name as keyof typeof DEFAULT_LIMITS] !== value);
    add(
      'encoding limits',
      differing.length === 0 ? 'ok' : 'warn',
      differing.length === 0
        ? 'listpack limits are the compiled defaults (hash 512/64, zset 128/64)'
        : `differs from the compiled defaults: ${differing
            .map(([name, value]) => `${name}=${String(server.config[name as keyof typeof DEFAULT_LIMITS])} (default ${value})`)
            .join(', ')}; figures will not match the published table`,
    );
  }

  add(
    'script clock',
    'ok',
    compareVersions(server.version, '7.2.0') >= 0
      ? 'TIME is frozen within one script run (7.2+); swc injects time in benchmarks anyway'
      : 'TIME may advance within one script run (before 7.2); swc injects time in benchmarks anyway',
  );

  // maxclients: a bench opens several connections at once; a server that cannot take them fails mid-run.
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'maxclients')) as string[];
    const maxclients = Number(reply[1]);
    const connected = Number(/^connected_clients:(\d+)/m.exec(String(await redis.info('clients')))?.[1] ?? 1);
    const needed = options.connections ?? BENCH_CONNECTIONS;
    // This doctor's own connection is among the connected ones and closes before a bench starts.
    const free = maxclients - connected + 1;
    if (Number.isFinite(maxclients) && maxclients > 0) {
      add(
        'connections',
        free >= needed ? 'ok' : 'fail',
        free >= needed
          ? `maxclients ${maxclients}, ${connected} connected: room for the ${needed} connections a bench opens`
          : `maxclients ${maxclients} with ${connected} connected leaves ${Math.max(0, free)} for swc, which opens ${needed} at once (4 --connections, its script and watch connections): raise maxclients or lower --connections`,
      );
    }
  } catch {
    // CONFIG GET refused: the encoding-limits check already says so.
  }

  if (server.mode === 'cluster') {
    add('cluster', 'warn', 'cluster mode: stoplight-v5 keys have no hash tag and can fail with CROSSSLOT');
  }

  // The checks a bench makes before writing, under a namespace of the
  // doctor's own (its probe keys are deleted again).
  const report = await preflight(redis, {
    prefix: namespace,
    peakBytes: options.peakBytes ?? 0,
    ...(options.readOnly ? { readOnly: true } : {}),
  });
  const { memory } = report;
  const headroom = report.findings.filter((f) => f.check === 'memory');
  if (headroom.length > 0) {
    for (const f of headroom) add('memory headroom', 'fail', `${options.peakFor ? `${options.peakFor}: ` : ''}${f.detail}`, true);
  } else if (memory) {
    add(
      'memory headroom',
      'ok',
      memory.maxBytes > 0
        ? `maxmemory ${memory.maxBytes} (${memory.policy}), ${memory.usedBytes} used; ${options.peakFor ?? 'a bench'} needs up to ${memory.peakBytes}`
        : 'no maxmemory limit',
    );
  }
  for (const f of report.findings) {
    if (f.check === 'memory') continue;
    const name = f.check === 'unchecked' ? 'info' : f.check;
    add(name, f.advisory && !/CONFIG GET/.test(f.detail) ? 'warn' : 'fail', f.detail, true);
  }
  // "every command" only where the families say so (a read-only user is told what it may use above).
  if (!report.findings.some((f) => f.check === 'permission') && access.refuses.length === 0) {
    add(
      'permissions',
      'ok',
      `${report.permissions.user ? `user "${report.permissions.user}"` : 'this user'} may run every command swc sends, on swc-bench:* keys ` +
        `(${report.permissions.method === 'acl-dryrun' ? 'ACL DRYRUN' : 'checked with harmless probes'})`,
    );
  }

  return { server, scripts, checks, access, preflight: report, ok: checks.every((c) => c.status !== 'fail') };
}
