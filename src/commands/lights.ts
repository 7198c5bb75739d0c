import { Command, Option } from 'commander';
import { parseDuration, parseList, parseNumber } from '../bench/values.js';
import { ExitCode, UsageError } from '../errors.js';
import { globRegExp, lightOrders, listLights, nodeTotalsOf, selectLights, totalsOf, type LightOrder } from '../inspect/list.js';
import { layoutNames, resolveLayoutName } from '../layouts/index.js';
import { grandTotal, lightsFormats, renderLights, type LightsFormat } from '../report/lights.js';
import { visible } from '../report/style.js';
import { SWC_VERSION } from '../version.js';
import { action, printError } from './lifecycle.js';
import { primariesOf, readTargetFromFlags, withSlotRetry } from './cluster-read.js';
import { addClusterOptions, addJsonOption, addRedisOptions, parser, printJson, useColor, type ClusterFlags, type RedisFlags } from './options.js';

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
export function noteUnavailable(notes: readonly string[]): void {
  for (const note of new Set(notes)) printError(`swc: note: ${visible(note)}`);
}

/** `--layout` of `swc lights`: registered names or manifest files, comma-separated. */
export const layoutListOption = (): Option =>
  new Option('--layout <list>', `only these layouts, comma-separated: ${layoutNames.join(', ')} or manifest files (default every registered layout)`).argParser(
    parser((v) => parseList('--layout', v, (p) => resolveLayoutName(p))),
  );

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
}

/** `swc lights` and `inspect --list`: every light on the server. Exit 1 with --check when any light drifted. */
export async function runList(flags: ListFlags): Promise<number> {
  const format: LightsFormat = flags.json ? 'json' : (flags.format ?? 'table');
  if (flags.match !== undefined) globRegExp(flags.match);
  const only = flags.layout === undefined || flags.layout === 'auto' ? undefined : [flags.layout].flat();
  // Read-only: a slot that moves during the listing is read again once on the new slot map.
  const { target, result: list } = await withSlotRetry(
    () => readTargetFromFlags(flags, DEFAULT_INSPECT_URL, 'lights'),
    (target) =>
      listLights(target.redis, {
        ...(only ? { only } : {}),
        ...(target.nodeOf && target.cluster ? { nodeOf: target.nodeOf, nodes: primariesOf(target.cluster).map((p) => p.node) } : {}),
        windowSeconds: flags.window ?? null,
        ...(flags.at !== undefined ? { at: flags.at } : {}),
      }),
    (err) => printError(`swc: note: ${err.message.replace(/; run the command again.*$/, '')}; listing again on the new slot map`),
  );
  const primaries = target.cluster ? primariesOf(target.cluster) : undefined;
  noteUnavailable(list.unavailable);
  const { matched, shown } = selectLights(list, {
    ...(flags.sort ? { sort: flags.sort } : {}),
    ...(flags.top !== undefined ? { top: flags.top } : {}),
    ...(flags.system !== undefined ? { system: flags.system } : {}),
    ...(flags.match !== undefined ? { match: flags.match } : {}),
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
      schemaVersion: 2,
      swcVersion: SWC_VERSION,
      at: list.at,
      clock: list.clock,
      windowSeconds: list.windowSeconds,
      patterns: list.patterns,
      unavailable: list.unavailable,
      matched: matched.length,
      totals,
      total: grandTotal(totals),
      ...(nodeTotals && primaries ? { cluster: { primaries, nodeTotals } } : {}),
      lights: shown,
    });
  } else {
    process.stdout.write(renderLights({ list, matched, shown, totals, wide: Boolean(flags.wide), ...(nodeTotals ? { nodeTotals } : {}) }, format, useColor()));
  }
  const drifted = matched.filter((l) => l.drift === true);
  if (flags.check && drifted.length > 0) {
    printError(`swc: drift in ${drifted.length} light(s): ${drifted.slice(0, 5).map((l) => visible(l.reference)).join(', ')}${drifted.length > 5 ? ', …' : ''} (swc inspect <light> shows where)`);
    return ExitCode.finding;
  }
  return ExitCode.ok;
}

/** `swc lights`: every light on a Redis, filtered, sorted, totalled. */
export function lightsCommand(): Command {
  const command = new Command('lights')
    .description(
      'list the lights of every registered layout on a Redis (SCAN, read-only): size, events, stale events, idle time, drift; totals per layout',
    )
    .addOption(layoutListOption())
    .option('--system <name or id>', 'only lights of this system: its name, or the id its keys carry (6.0: 12 hex)')
    .option('--match <glob>', 'only lights whose name or reference matches (*, ?, [abc])')
    .addOption(new Option('--sort <order>', 'order: bytes, idle or events (largest first), or name (A to Z)').choices(lightOrders).default('bytes'))
    .option('--top <n>', 'print only the first n (totals still count every match)', parser((v) => parseNumber('--top', v, { min: 1, max: 10_000_000, integer: true })))
    .option('--window <time>', 'judge stale events against this window: 60, 90s, 5m, 1h (default: none; 5.x then counts events older than a day)', windowSeconds)
    .option('--at <time>', 'judge idle time and the window at this Unix time in seconds (default: the server clock)', unixSeconds)
    .option('--check', 'exit 1 when any listed light has drift (running totals or index disagree with the buckets)')
    .addOption(new Option('--format <format>', 'output format').choices(lightsFormats).default('table'))
    .option('--wide', 'more columns: keys, stale buckets, first and last event (wider than 120 columns)');
  addRedisOptions(command, { privateServer: false });
  addClusterOptions(command, { privateCluster: false });
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
The light column is the reference swc inspect takes as is (6.0: system-id/light-id).
"stale" counts events outside the window that the keys still hold; "stoplight-v6
est. KB" is, for 5.x lights, an estimate of the same traffic stored as 6.0 counters.
--json: { schemaVersion, at, windowSeconds, totals, total, matched, lights } (README).
Read-only. Commands sent: PING, TIME, SCAN, TYPE, ECHO, ZCARD, HLEN, ZRANGE, ZCOUNT,
HGETALL, MEMORY USAGE.
On Redis Cluster (--cluster, or several --redis-url seeds): SCAN on every primary, each
key read where its slot lives; a node column and a total per primary (JSON: each
light's "node" and "placement", and "cluster": { primaries, nodeTotals }). A primary
that cannot be scanned stops the listing (exit 3, naming it): never a partial list.
On a cluster swc also sends INFO, CLUSTER INFO and CLUSTER SLOTS (the slot map, once).

Exit codes: 0 ok, 1 drift found with --check, 2 bad usage, 3 Redis (or a cluster node) unreachable.

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
      return runList(flags);
    }),
  );
}
