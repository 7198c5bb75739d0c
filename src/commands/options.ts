import { jsonText } from '../core/format.js';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Target, TargetLimits, TargetSpec } from '../run/open.js';
import { parseRedisUrl, redactUrl } from '../redis/url.js';
import { checkServerSetting, MAX_PRIVATE_SHARDS } from '../redis/server-settings.js';
import { UsageError } from '../core/errors.js';
import { DEFAULT_TURN_TIMEOUT_MS } from '../core/thresholds.js';
import { parseDuration } from '../run/values.js';
import { onShutdown, registerUrlSecrets } from './lifecycle.js';

/** Flags every command that talks to Redis accepts. */
export interface RedisFlags {
  redisUrl?: string;
  /** Every `--redis-url` given, in order (several only as cluster seeds). */
  redisUrls?: string[];
  redisServerArg: string[];
}

/** Flags of a command that can run on Redis Cluster ({@link addClusterOptions}). */
export interface ClusterFlags {
  cluster?: boolean;
  clusterShards?: number;
}

/** Wraps a parser so that its UsageError reaches commander as an invalid argument. */
export function parser<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

/** Collects `--redis-server-arg`, refusing settings that would let the private server escape swc (see checkServerSetting). */
const collect = (value: string, previous: string[]): string[] => [...previous, parser(checkServerSetting)(value)];

/** The environment variable that lets a command that writes (bench, verify) use REDIS_URL. */
export const USE_REDIS_URL = 'SWC_USE_REDIS_URL';

/** Whether REDIS_URL may name the server of a command that writes: only when {@link USE_REDIS_URL} is 1. */
export function redisUrlOptedIn(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[USE_REDIS_URL] === '1';
}

/**
 * Adds `--redis-url` and, where swc may start its own server,
 * `--redis-server-arg`. Which Redis is used when neither the flag nor
 * REDIS_URL is set is {@link targetFromFlags}' `defaultUrl` (without one,
 * a private redis-server). A command that `writes` (bench, verify) reads
 * REDIS_URL only with SWC_USE_REDIS_URL=1: an exported URL is often a shared
 * server set for the read commands, and a benchmark there would be another
 * measurement (and another server's keys) than the one asked for.
 */
export function addRedisOptions(command: Command, { privateServer, writes = false }: { privateServer: boolean; writes?: boolean }): Command {
  const env = process.env.REDIS_URL;
  if (env) registerUrlSecrets(env);
  command.addOption(
    new Option(
      '--redis-url <url>',
      writes
        ? `Redis to use (default: a private redis-server that swc starts and stops; $REDIS_URL only with ${USE_REDIS_URL}=1)`
        : privateServer
          ? 'Redis to use (default: $REDIS_URL, else a private redis-server that swc starts and stops)'
          : 'Redis to use (default: $REDIS_URL, else redis://127.0.0.1:6379)',
    ).argParser((value: string, previous: string | string[] | undefined) => {
      parser((v: string) => {
        registerUrlSecrets(v);
        parseRedisUrl(v);
        return v;
      })(value);
      // The first value is `redisUrl` as before; repeats (cluster seeds) are gathered and split off in preAction.
      return previous === undefined ? value : [previous, value].flat();
    }),
  );
  if (privateServer) {
    command.option(
      '--redis-server-arg <name=value>',
      'setting for the private redis-server, repeatable (e.g. hash-max-listpack-entries=128)',
      collect,
      [] as string[],
    );
  }
  command.hook('preAction', (cmd) => {
    const raw = cmd.getOptionValue('redisUrl') as string | string[] | undefined;
    if (Array.isArray(raw)) {
      const clusterCapable = cmd.options.some((o) => o.long === '--cluster');
      if (!clusterCapable) cmd.error(`error: --redis-url: given ${raw.length} times; ${cmd.name()} takes one server`, { exitCode: 2 });
      cmd.setOptionValue('redisUrl', raw[0]);
      cmd.setOptionValue('redisUrls', raw);
    } else if (raw !== undefined) {
      cmd.setOptionValue('redisUrls', [raw]);
    }
    const opts = cmd.opts<Partial<RedisFlags>>();
    if (writes && opts.redisUrl === undefined && env && !redisUrlOptedIn()) {
      // Set aside for the whole run: every later reader of REDIS_URL (session, guards, estimate) sees a private server.
      process.env.REDIS_URL = '';
      process.stderr.write(
        `swc ${cmd.name()}: REDIS_URL (${redactUrl(env)}) not used: ${cmd.name()} writes, so it runs on a private redis-server; to run there, give --redis-url or set ${USE_REDIS_URL}=1\n`,
      );
      return;
    }
    if (opts.redisUrl === undefined && env) {
      try {
        parseRedisUrl(env, 'REDIS_URL');
      } catch (err) {
        // The message already has the URL redacted; the output hook scrubs it again.
        cmd.error(`error: ${(err as Error).message}`, { exitCode: 2 });
      }
    }
  });
  return command;
}

/**
 * Where the flags point: `--redis-url` (several: a cluster's seeds), else
 * REDIS_URL, else `defaultUrl`, else a private server; with `--cluster` or
 * `--cluster-shards` and no URL, a private cluster. Opens nothing.
 */
export function targetSpecOf(flags: Partial<RedisFlags & ClusterFlags>, defaultUrl?: string): TargetSpec {
  // An empty REDIS_URL counts as unset, as the preAction check treats it.
  const env = process.env.REDIS_URL || undefined;
  const flag = flags.redisUrl === undefined && env ? { flag: 'REDIS_URL' } : {};
  if (!wantsCluster(flags)) {
    const url = flags.redisUrl ?? env ?? defaultUrl;
    return url !== undefined ? { url, ...flag } : { privateServer: { settings: flags.redisServerArg ?? [] } };
  }
  const seeds = flags.redisUrls ?? (flags.redisUrl !== undefined ? [flags.redisUrl] : env !== undefined ? [env] : defaultUrl !== undefined ? [defaultUrl] : []);
  if (seeds.length > 0 && flags.clusterShards !== undefined) {
    throw new UsageError('--cluster-shards: starts a private cluster; drop it or drop --redis-url');
  }
  if (seeds.length > 0 && (flags.redisServerArg?.length ?? 0) > 0) {
    throw new UsageError('--redis-server-arg: only applies to a private cluster; drop it or drop --redis-url');
  }
  if (seeds.length > 0) return { seeds, ...flag };
  return { privateCluster: { ...(flags.clusterShards !== undefined ? { shards: flags.clusterShards } : {}), settings: flags.redisServerArg ?? [] } };
}

/**
 * Opens what the flags point at ({@link targetSpecOf}) through the one door,
 * `openTarget` (src/run/open.ts), under the run's limits, and registers its
 * closing, so a private server or cluster stops on every way out, Ctrl-C
 * included.
 */
export async function targetFromFlags(
  flags: Partial<RedisFlags & ClusterFlags>,
  defaultUrl?: string,
  limits: TargetLimits = {},
  adjust: (spec: TargetSpec) => TargetSpec = (spec) => spec,
): Promise<Target> {
  const spec = adjust(targetSpecOf(flags, defaultUrl));
  if ('url' in spec && (flags.redisServerArg?.length ?? 0) > 0) {
    throw new UsageError('--redis-server-arg: only applies to the private server; drop it or drop --redis-url');
  }
  // The client loads with the first command that connects, not at start-up.
  const { openTarget } = await import('../run/open.js');
  const target = await openTarget(spec, limits);
  onShutdown(() => target.close());
  return target;
}

/**
 * Adds `--cluster` and `--cluster-shards <n>` to a command that can run on
 * Redis Cluster. With them, `--redis-url` (repeatable) names seed nodes; with
 * no URL, swc starts a private cluster.
 */
export function addClusterOptions(command: Command, { privateCluster = true }: { privateCluster?: boolean } = {}): Command {
  // A command that reads a running cluster keeps `--cluster-shards` only to refuse it with a reason; its help does not offer it.
  const shards = new Option(
    '--cluster-shards <n>',
    `with no --redis-url: start a private cluster of n primaries (1..${MAX_PRIVATE_SHARDS}; implies --cluster; default: 3)`,
  );
  if (!privateCluster) shards.hideHelp();
  return command
    .option(
      '--cluster',
      privateCluster
        ? 'Redis Cluster: --redis-url (repeatable) names seed nodes; without one, a private cluster of --cluster-shards primaries'
        : 'Redis Cluster: --redis-url (repeatable) names seed nodes of a running cluster',
    )
    .addOption(
      shards.argParser(
        parser((value) => {
          const n = Number(value);
          if (!/^\d+$/.test(value.trim()) || n < 1 || n > MAX_PRIVATE_SHARDS) {
            throw new UsageError(`--cluster-shards: must be a whole number from 1 to ${MAX_PRIVATE_SHARDS}, got "${value}"`);
          }
          return n;
        }),
      ),
    );
}

/** Whether the flags ask for Redis Cluster: `--cluster`, `--cluster-shards`, or several `--redis-url` seeds. */
export function wantsCluster(flags: Partial<RedisFlags & ClusterFlags>): boolean {
  return Boolean(flags.cluster) || flags.clusterShards !== undefined || (flags.redisUrls?.length ?? 0) > 1;
}

/** Adds `--json`. */
export function addJsonOption(command: Command): Command {
  return command.option('--json', 'print machine-readable JSON on stdout');
}

/** Whether stdout should get colour: a TTY, and neither NO_COLOR nor TERM=dumb. */
export function useColor(): boolean {
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

/** Writes a result to stdout as JSON (whole, with a trailing newline). */
export function printJson(value: unknown): void {
  process.stdout.write(`${jsonText(value)}\n`);
}

/** `--wait-for-runs`, for commands that take turns with other swc runs on a server (bench, verify). */
export const waitForRunsOption = (): Option =>
  new Option(
    '--wait-for-runs <seconds>',
    `how long to wait for another swc run writing to the same server to end before giving up, 0 to 3600 (default: ${DEFAULT_TURN_TIMEOUT_MS / 1000} s)`,
  ).argParser(parser((v) => parseDuration('--wait-for-runs', v, { min: 0, max: 3600 })));

/** The turn wait of `--wait-for-runs` (seconds) in milliseconds. */
export const turnWaitMs = (seconds: number | undefined): number => (seconds ?? DEFAULT_TURN_TIMEOUT_MS / 1000) * 1000;

/** A flag's check run in the action (it needs modules loaded there), with commander's message: `--layout: got "x"; …`. */
export function checkFlag<T>(flag: string, value: string, check: (value: string) => T): T {
  try {
    return check(value);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new UsageError(reason.startsWith(flag) ? reason : `${flag}: got "${value}"; ${reason}`);
  }
}

/** Inspect and lights read what an application's Redis holds, so they default to the usual local one. */
export const DEFAULT_INSPECT_URL = 'redis://127.0.0.1:6379';
/** A command on the server gets no reply within this long: lights and inspect give up (a paused or stuck server) instead of waiting 30 s. */
export const LIGHTS_COMMAND_TIMEOUT_MS = 5000;
/** Keys live 7 days at most in either layout; an --at after 2100-01-01 is a typo (milliseconds, most likely). */
const [MAX_WINDOW_SECONDS, MAX_AT] = [604_800, 4_102_444_800];

/** `--at` of inspect and lights: Unix seconds. */
export const unixSeconds = parser((value) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > MAX_AT) {
    throw new UsageError(`--at: expected Unix seconds 0..${MAX_AT} (fractions allowed), got "${value}"`);
  }
  return n;
});

/** `--window` of inspect and lights. */
export const windowSeconds = parser((v) => parseDuration('--window', v, { min: 1, max: MAX_WINDOW_SECONDS, integer: true }));

/** The terminal's width: COLUMNS, else the TTY's; null when neither says (a pipe: nothing is cut). */
export function terminalColumns(): number | null {
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : null;
}
