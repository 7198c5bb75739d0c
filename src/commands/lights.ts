import { isoMoment } from '../core/format.js';
import { Command, Option } from 'commander';
import { parseDuration, parseList, parseNumber } from '../bench/values.js';
import { ExitCode, UsageError } from '../core/errors.js';
import { globRegExp, lightOrders, listLights, nodeTotalsOf, parseStates, selectLights, totalsOf, type LightOrder } from '../inspect/list.js';
import type { LightStateName } from '../layouts/stoplight/state.js';
import { layoutNames, resolveLayoutName } from '../layouts/index.js';
import { grandTotal, lightsFormats, renderLights, type LightsFormat } from '../report/lights.js';
import { visible } from '../report/style.js';
import { SWC_VERSION } from '../core/version.js';
import { action, onShutdown, printError, stopCause } from './lifecycle.js';
import { primariesOf, readTargetFromFlags, withSlotRetry, type ReadTarget } from './cluster-read.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { addName, isLiteral, newNameBook, readNamesFile, type NameBook } from '../layouts/stoplight/names.js';
import { DEFAULT_SCAN_PAUSE_MS, type ScanProgress } from '../redis/scan.js';
import type { LightList } from '../layouts/inspection.js';
import { startRdbServer } from '../redis/rdb-server.js';
import { addClusterOptions, addJsonOption, addRedisOptions, parser, printJson, useColor, type ClusterFlags, type RedisFlags } from './options.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

/** Inspect reads what an application's Redis holds, so it defaults to the usual local one. */
export const DEFAULT_INSPECT_URL = 'redis://127.0.0.1:6379';
/** Keys live 7 days at most in either layout. */
export const MAX_WINDOW_SECONDS = 604_800;
/** 2100-01-01: later times are typos (milliseconds, most likely). */
const MAX_AT = 4_102_444_800;

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

/** Says once on stderr what the server would not let swc read (the figures show n/a). */
/** What --rdb bytes are not: the live server's (docs/operator.md, "Offline: an RDB snapshot"). */
export const RDB_BYTES_NOTE =
  "--rdb bytes are a freshly loaded snapshot's: a live key can be mid-rehash (carrying its old table, up to a few KB) and loading re-encodes values, so the live server's bytes differ by a few percent (seen on real data: 5.x -5%, 6.0 +1%); events, state and window counts are the same";

export function noteUnavailable(notes: readonly string[]): void {
  for (const note of new Set(notes)) printError(`swc: note: ${visible(note)}`);
}

/** `--layout` of `swc lights`: registered names or manifest files, comma-separated, or `all`. */
export const layoutListOption = (): Option =>
  new Option(
    '--layout <list>',
    `only these layouts, comma-separated: ${layoutNames.join(', ')} or manifest files; "all" for every registered layout (default: ${APPLICATION_LAYOUTS.join(', ')}, the ones an application has)`,
  ).argParser(parser((v) => (v === 'all' ? 'all' : parseList('--layout', v, (p) => resolveLayoutName(p)))));

/** What an application's Redis can hold: Stoplight's layouts (swc's own designs only come with --layout all). */
export const APPLICATION_LAYOUTS = ['stoplight-v5', 'stoplight-v6'] as const;

/** A command on the server gets no reply within this long: lights gives up (a paused or stuck server) instead of waiting 30 s. */
export const LIGHTS_COMMAND_TIMEOUT_MS = 5000;

/** Flags of `swc lights` (and of `inspect --list`, which has fewer). */
export interface ListFlags extends RedisFlags, ClusterFlags {
  json?: boolean;
  layout?: string | string[];
  format?: LightsFormat;
  top?: number;
  sort?: LightOrder;
  system?: string;
  match?: string;
  window?: number;
  at?: number;
  check?: boolean;
  wide?: boolean;
  names?: string;
  scanPause?: number;
  progress?: boolean;
  threshold?: number;
  state?: LightStateName[];
  watch?: number;
  rdb?: string;
  redisServer?: string;
}

/** The layouts a listing reads: the ones asked for, every registered one (`all`), or an application's. */
function layoutsOf(flags: ListFlags): string[] | undefined {
  if (flags.layout === 'all') return undefined;
  if (flags.layout === undefined || flags.layout === 'auto') return [...APPLICATION_LAYOUTS];
  return [flags.layout].flat();
}

/** The names a listing can show for 6.0 ids: `--names`, and a literal `--system` / `--match` (hashed by swc). */
export function nameBookOf(flags: Pick<ListFlags, 'names' | 'system' | 'match'>): NameBook {
  const book = newNameBook();
  if (flags.names !== undefined) readNamesFile(flags.names, book);
  if (flags.system !== undefined && !/^[0-9a-f]{12}$/.test(flags.system)) addName(book, null, flags.system);
  if (flags.match !== undefined && isLiteral(flags.match)) addName(book, flags.match);
  return book;
}

/** Progress of a long scan on stderr: keys walked of DBSIZE and an ETA; redrawn on a terminal, a line every few seconds otherwise. */
function scanProgress(enabled: boolean): { onProgress?: (p: ScanProgress) => void; done: () => void } {
  if (!enabled) return { done: () => undefined };
  const tty = Boolean(process.stderr.isTTY);
  let last = 0;
  let drawn = false;
  return {
    onProgress: (p) => {
      // Short scans stay silent; a terminal is redrawn 4 times a second, a log gets a line every 5 s.
      if (last > 0 && p.elapsedMs - last < (tty ? 250 : 5000)) return;
      last = p.elapsedMs;
      const eta = p.etaMs === null ? '' : `, about ${Math.ceil(p.etaMs / 1000)} s left`;
      const where =
        p.seen === null ? `${p.calls} SCAN calls` : `~${p.seen.toLocaleString('en-US')} of ${p.dbsize.toLocaleString('en-US')} keys (${p.calls} SCAN calls)`;
      const line = `swc: scanning: ${where}${eta}`;
      if (tty) {
        process.stderr.write(`\r${line}\x1b[K`);
        drawn = true;
      } else printError(line);
    },
    done: () => {
      if (drawn) process.stderr.write('\r\x1b[K');
    },
  };
}

/** One listing, printed. Returns the exit code it calls for. */
async function listOnce(
  flags: ListFlags,
  target: ReadTarget,
  control: { stopped: () => boolean },
  names: NameBook,
): Promise<{ code: number; partial: boolean }> {
  // Ctrl-C during a scan stops it; the clean-up waits for what was found so far to be printed.
  // Registered after the connection's own clean-up, so it runs first (newest first) and the connection is still open.
  let stopping = false;
  let printed = (): void => undefined;
  const done = new Promise<void>((resolve) => (printed = resolve));
  const unregister = onShutdown(async () => {
    stopping = true;
    await done;
  });
  try {
    return await listAndPrint(flags, target, { stopped: () => stopping || control.stopped() }, names);
  } finally {
    printed();
    unregister();
  }
}

async function listAndPrint(
  flags: ListFlags,
  target: ReadTarget,
  control: { stopped: () => boolean },
  names: NameBook,
): Promise<{ code: number; partial: boolean }> {
  const format: LightsFormat = flags.json ? 'json' : (flags.format ?? 'table');
  const only = layoutsOf(flags);
  const progress = scanProgress(flags.progress !== false);
  let list: LightList;
  try {
    list = await listLights(target.redis, {
      ...(only ? { only } : {}),
      ...(target.nodeOf && target.cluster ? { nodeOf: target.nodeOf, nodes: primariesOf(target.cluster).map((p) => p.node) } : {}),
      windowSeconds: flags.window ?? null,
      ...(flags.at !== undefined ? { at: flags.at } : {}),
      names,
      // A snapshot's server is swc's own: no pause is needed, and every MEMORY USAGE can be exact.
      ...(flags.rdb !== undefined ? { exactMemory: true } : {}),
      scan: {
        ...(flags.scanPause !== undefined ? { pauseMs: flags.scanPause } : flags.rdb !== undefined ? { pauseMs: 0 } : {}),
        ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
        stopped: control.stopped,
      },
    });
  } finally {
    progress.done();
  }
  const primaries = target.cluster ? primariesOf(target.cluster) : undefined;
  noteUnavailable(flags.rdb !== undefined ? [...list.unavailable, RDB_BYTES_NOTE] : list.unavailable);
  const { matched, shown } = selectLights(list, {
    ...(flags.sort ? { sort: flags.sort } : {}),
    ...(flags.top !== undefined ? { top: flags.top } : {}),
    ...(flags.system !== undefined ? { system: flags.system } : {}),
    ...(flags.match !== undefined ? { match: flags.match } : {}),
    ...(flags.threshold !== undefined ? { threshold: flags.threshold } : {}),
    ...(flags.state !== undefined ? { states: flags.state } : {}),
  });
  const totals = totalsOf(matched);
  const nodeTotals = list.nodes
    ? nodeTotalsOf(matched, list.nodes).map((t) => {
        const slots = primaries?.find((p) => p.node === t.node)?.slots;
        return slots === undefined ? t : { ...t, slots };
      })
    : undefined;
  if (format === 'json') {
    printJson({
      schemaVersion: SCHEMA_VERSION,
      swcVersion: SWC_VERSION,
      at: isoMoment(list.at),
      clock: list.clock,
      windowSeconds: list.windowSeconds,
      ...(flags.threshold !== undefined ? { threshold: flags.threshold } : {}),
      patterns: list.patterns,
      unavailable: list.unavailable,
      partial: list.partial,
      ...(list.scan ? { scan: list.scan } : {}),
      problems: list.problems,
      leftovers: list.leftovers,
      matched: matched.length,
      totals,
      total: grandTotal(totals),
      ...(nodeTotals && primaries ? { cluster: { primaries, nodeTotals } } : {}),
      lights: shown,
    });
  } else {
    const width = terminalColumns();
    process.stdout.write(
      renderLights(
        {
          list,
          matched,
          shown,
          totals,
          wide: Boolean(flags.wide),
          ...(width !== null ? { columns: width } : {}),
          ...(flags.threshold !== undefined ? { threshold: flags.threshold } : {}),
          ...(nodeTotals ? { nodeTotals } : {}),
        },
        format,
        useColor(),
      ),
    );
  }
  if (list.partial)
    printError(`swc: stopped by ${stopCause()}: the listing above is PARTIAL (the scan walked ${list.scan?.calls ?? 0} SCAN calls of the keyspace)`);
  const drifted = matched.filter((l) => l.drift === true);
  if (flags.check && drifted.length > 0) {
    printError(
      `swc: drift in ${drifted.length} light(s): ${drifted
        .slice(0, 5)
        .map((l) => visible(l.reference))
        .join(', ')}${drifted.length > 5 ? ', …' : ''} (swc inspect <light> shows where)`,
    );
    return { code: ExitCode.finding, partial: list.partial };
  }
  return { code: ExitCode.ok, partial: list.partial };
}

/** The terminal's width: COLUMNS, else the TTY's; null when neither says (a pipe: nothing is cut). */
export function terminalColumns(): number | null {
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : null;
}

/**
 * `swc lights` and `inspect --list`: every light on the server. Exit 1 with
 * --check when any light drifted; 130 after Ctrl-C, with what the scan found
 * so far printed and marked partial. `--watch` lists again every n seconds
 * until Ctrl-C.
 */
export async function runList(flags: ListFlags, given?: ReadTarget): Promise<number> {
  if (flags.match !== undefined) globRegExp(flags.match);
  if (flags.watch !== undefined && (flags.json || (flags.format !== undefined && flags.format !== 'table'))) {
    throw new UsageError('--watch: redraws a table; drop --json/--format');
  }
  // Read --names before connecting: a bad file is exit 2 with nothing sent.
  const names = nameBookOf(flags);
  let stopping = false;
  // In --watch, Ctrl-C between listings ends the loop (the signal handler then exits 130).
  const unregister = onShutdown(async () => {
    stopping = true;
  });
  try {
    const read = (): Promise<{ code: number; partial: boolean }> =>
      given
        ? listOnce(flags, given, { stopped: () => stopping }, names)
        : withSlotRetry(
            () => readTargetFromFlags(flags, DEFAULT_INSPECT_URL, 'lights', { commandTimeoutMs: LIGHTS_COMMAND_TIMEOUT_MS }),
            (target) => listOnce(flags, target, { stopped: () => stopping }, names),
            (err) => printError(`swc: note: ${err.message.replace(/; run the command again.*$/, '')}; listing again on the new slot map`),
          ).then((r) => r.result);
    if (flags.watch === undefined) {
      const { code, partial } = await read();
      return partial ? 130 : code;
    }
    const target = given ?? (await readTargetFromFlags(flags, DEFAULT_INSPECT_URL, 'lights', { commandTimeoutMs: LIGHTS_COMMAND_TIMEOUT_MS }));
    for (;;) {
      if (process.stdout.isTTY) process.stdout.write('\x1b[H\x1b[2J');
      else process.stdout.write(`--- ${new Date().toISOString()} (--watch ${flags.watch} s)\n`);
      const { partial } = await listOnce(flags, target, { stopped: () => stopping }, names);
      if (partial || stopping) return 130;
      await sleep(flags.watch * 1000);
      if (stopping) return 130;
    }
  } finally {
    unregister();
  }
}

/** `swc lights`: every light on a Redis, filtered, sorted, totalled. */
export function lightsCommand(): Command {
  const command = new Command('lights')
    .description('list the lights of every registered layout on a Redis (SCAN, read-only): size, events, stale events, idle time, drift; totals per layout')
    .addOption(layoutListOption())
    .option('--system <name or id>', 'only lights of this system: its name, or the id its keys carry (6.0: 12 hex)')
    .option('--match <glob>', 'only lights whose name or reference matches (*, ?, [abc]); a literal is also hashed, so it finds a 6.0 light by name')
    .option('--names <file>', 'names for 6.0 ids: one "light" or "system/light" per line (swc hashes them as Stoplight does)')
    .addOption(
      new Option('--sort <order>', 'order: bytes, idle, events or rate (largest first; rate: failure rate in --window), or name (A to Z)')
        .choices(lightOrders)
        .default('bytes'),
    )
    .option(
      '--top <n>',
      'print only the first n (totals still count every match)',
      parser((v) => parseNumber('--top', v, { min: 1, max: 10_000_000, integer: true })),
    )
    .option(
      '--window <time>',
      'judge stale events against this window: 60, 90s, 5m, 1h (default: none; 5.x then counts events older than a day)',
      windowSeconds,
    )
    .option('--at <time>', 'judge idle time and the window at this Unix time in seconds (default: the server clock)', unixSeconds)
    .option(
      '--threshold <fraction>',
      "mark lights whose failure rate in --window is at or over this (0..1; Stoplight's default 0.5)",
      parser((v) => parseNumber('--threshold', v, { min: 0, max: 1 })),
    )
    .option(
      '--watch <seconds>',
      'list again every n seconds until Ctrl-C (1..3600)',
      parser((v) => parseNumber('--watch', v, { min: 1, max: 3600 })),
    )
    .option(
      '--scan-pause <ms>',
      `pause between SCAN calls, 0..1000 ms (default ${DEFAULT_SCAN_PAUSE_MS}: the scan keeps well under a core of the server)`,
      parser((v) => parseNumber('--scan-pause', v, { min: 0, max: 1000 })),
    )
    .option('--state <states>', 'only lights in these states, comma-separated: red, yellow, locked red, locked green, green', parser(parseStates))
    .option('--no-progress', 'no scan progress on stderr')
    .option(
      '--rdb <file>',
      'analyse an RDB snapshot instead of a live server: loaded into a private redis-server on a unix socket only (no TCP), exact MEMORY USAGE',
    )
    .option('--redis-server <path>', 'with --rdb: the redis-server that loads it (default SWC_REDIS_SERVER, else redis-server on PATH)')
    .option('--check', 'exit 1 when any listed light has drift (running totals or index disagree with the buckets)')
    .addOption(new Option('--format <format>', 'output format').choices(lightsFormats).default('table'))
    .option('--wide', 'more columns: keys, stale buckets, first and last event (wider than 120 columns)');
  addRedisOptions(command, { privateServer: false });
  addClusterOptions(command, { privateCluster: false });
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
The light column is the reference swc inspect takes as is (6.0:
system-id/light-id).
"stale" counts events outside the window that the keys still hold; "stoplight-v6
est. KB" is, for 5.x lights, an estimate of the same traffic stored as 6.0 counters.
--json: { schemaVersion, at, windowSeconds, totals, total, matched, lights }
(docs/inspect.md, "Looking inside a light").
Read-only. Commands sent: PING, TIME, SCAN, TYPE, ECHO, ZCARD, HLEN, ZRANGE, ZCOUNT,
HGETALL, HMGET, MEMORY USAGE (a scan that runs over a second also DBSIZE, for its progress;
a Stoplight registry of light configs, where one exists: HSCAN).
One SCAN pass (COUNT 1000, --scan-pause between calls) matches every layout's keys;
Ctrl-C prints what it found so far, marked partial (exit 130; SIGTERM 143). 6.0 names: the
"default" system, a Stoplight registry, --names, a literal --system or --match.
On Redis Cluster (--cluster, or several --redis-url seeds): SCAN on every
primary, each key read where its slot lives; a node column and a total per
primary (JSON: each light's "node" and "placement", and "cluster": { primaries,
nodeTotals }). A primary that cannot be scanned stops the listing (exit 3,
naming it): never a partial list. On a cluster swc also sends INFO, CLUSTER
INFO and CLUSTER SLOTS (the slot map, once).

Exit codes: 0 ok, 1 drift found with --check, 2 bad usage, 3 Redis (or a
cluster node) unreachable.

Examples:
  swc lights --top 20 --sort idle
  swc lights --cluster --redis-url redis://10.0.0.5:7000 --top 20
  swc lights --system payments --match 'checkout*' --window 5m --check`,
  );
  return command.action(
    action(async (flags: ListFlags, cmd: Command) => {
      if (flags.json && cmd.getOptionValueSource('format') === 'cli' && flags.format !== 'json') {
        throw new UsageError(`--json/--format: --json means --format json; drop one of them (got --format ${flags.format})`);
      }
      if (flags.rdb !== undefined) return runList(flags, await rdbTarget(flags));
      return runList(flags);
    }),
  );
}

/**
 * `--rdb <file>`: the snapshot loaded into a private server on a unix socket
 * (stopped on every way out), as the target to read; refuses the flags that
 * name another server.
 */
export async function rdbTarget(flags: Pick<ListFlags, 'rdb' | 'redisUrl' | 'redisUrls' | 'cluster' | 'redisServer'>): Promise<ReadTarget> {
  if (flags.redisUrl !== undefined || (flags.redisUrls?.length ?? 0) > 0)
    throw new UsageError('--rdb/--redis-url: --rdb reads a snapshot, not a server; drop one of them');
  if (flags.cluster) throw new UsageError('--rdb/--cluster: --rdb reads one snapshot; drop --cluster');
  const server = await startRdbServer(flags.rdb as string, flags.redisServer);
  onShutdown(() => server.stop());
  return { redis: server.redis, url: server.url };
}
