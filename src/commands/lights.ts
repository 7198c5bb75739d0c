import { Command, Option } from 'commander';
import { parseNumber } from '../run/values.js';
import { UsageError } from '../core/errors.js';
import { APPLICATION_LAYOUTS, lightOrders, parseStates } from '../inspect/list-options.js';
import { BUILTIN_LAYOUT_NAMES } from '../layouts/builtin-names.js';
import { DEFAULT_SCAN_PAUSE_MS, SCAN_BUDGET_US, SCAN_COUNT_MAX } from '../redis/scan.js';
import { lightsFormats } from '../report/lights-formats.js';
import { action } from './lifecycle.js';
import type { ListFlags } from './listing.js';
import { addClientPrefixOption, addClusterOptions, addJsonOption, addRedisOptions, checkFlag, parser, unixSeconds, windowSeconds } from './options.js';

/** `--layout` of `swc lights`: registered names or manifest files, comma-separated, or `all` (resolved by the action). */
const layoutListOption = (): Option =>
  new Option(
    '--layout <list>',
    `only these layouts, comma-separated: ${BUILTIN_LAYOUT_NAMES.join(', ')} or manifest files; "all" for every registered layout (default: ${APPLICATION_LAYOUTS.join(', ')}, the ones an application has)`,
  );

/** `--forecast`'s layout, resolved; a bad one is exit 2 naming --forecast and the names accepted. */
function checkForecast(value: string, resolve: (spec: string) => string): string {
  try {
    return resolve(value);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new UsageError(reason.replace(/^--layout:/, '--forecast:'));
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
      "judge stale events against this window: 60, 90s, 5m, 1h (default: a 6.0 light's registered window_size, else none; 5.x then counts events older than a day)",
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
      `pause between SCAN calls, 0..1000 ms (default: ${DEFAULT_SCAN_PAUSE_MS}: the scan keeps well under a core of the server)`,
      parser((v) => parseNumber('--scan-pause', v, { min: 0, max: 1000 })),
    )
    .option(
      '--scan-count <n>',
      `COUNT of every SCAN call, 1..${SCAN_COUNT_MAX} (default: adapted so each call stays within ${SCAN_BUDGET_US} µs of server time)`,
      parser((v) => parseNumber('--scan-count', v, { min: 1, max: SCAN_COUNT_MAX, integer: true })),
    )
    .option(
      '--state <states>',
      'only lights in these states, comma-separated: red, yellow, locked red, locked green, green (red matches every red light, locked or not, as Stoplight colours a light locked red; "locked red" only the locked ones; the same for green)',
      parser(parseStates),
    )
    .option(
      '--forecast <layout>',
      `replay each light's recorded events into this layout (${BUILTIN_LAYOUT_NAMES.join(', ')}, or a manifest file) on a private redis-server and measure its bytes there, as swc bench does`,
    )
    .option(
      '--forecast-sample <n>',
      'with --forecast: replay at most n lights (1..100000, default: 50), spread over the fleet by size; the fleet total is extrapolated from them',
      parser((v) => parseNumber('--forecast-sample', v, { min: 1, max: 100_000, integer: true })),
    )
    .option(
      '--forecast-events <n>',
      "with --forecast: replay at most a light's newest n events (1..100000000, default: 1000000); a light with more is marked capped",
      parser((v) => parseNumber('--forecast-events', v, { min: 1, max: 100_000_000, integer: true })),
    )
    .option(
      '--windows <file>',
      'with --forecast: each light\'s window by name or glob, one "<name or glob> <window>" a line (e.g. "payments-* 5m"); first match wins, before the 6.0 registry\'s',
    )
    .option(
      '--forecast-even',
      "with --forecast: also measure one window of even traffic at each light's mean rate (what swc bench would hold), beside its replay",
    )
    .option('--no-progress', 'no scan or forecast progress on stderr')
    .option(
      '--rdb <file>',
      'analyse an RDB snapshot instead of a live server: loaded into a private redis-server on a unix socket only (no TCP), exact MEMORY USAGE',
    )
    .option('--redis-server <path>', 'with --rdb or --forecast: the redis-server swc starts (default: SWC_REDIS_SERVER, else redis-server on PATH)')
    .option(
      '--check',
      'exit 1 when any listed light has drift (running totals or index disagree with the buckets), or a rate-limiter package key has no TTL (or, with --window, one past its window)',
    )
    .addOption(new Option('--format <format>', 'output format').choices(lightsFormats).default('table'))
    .option('--wide', 'more columns: keys, stale buckets, first and last event (wider than 120 columns)')
    .option('-q, --quiet', 'only the headline: the total, lights per state, the largest light and any with drift');
  addClientPrefixOption(command);
  addRedisOptions(command, { privateServer: false });
  addClusterOptions(command, { privateCluster: false });
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
The light column is the reference swc inspect takes as is (6.0:
system-id/light-id).
"stale" counts events outside the window that the keys still hold.

--forecast stoplight-v6 replays each light's recorded events (5.x members, 6.0
buckets) into stoplight-v6 on a private redis-server and measures its keys, as
swc bench does: at most --forecast-sample lights, the fleet extrapolated from
them; JSON: each light's "forecast" (method measured, capped, sampled-out, …)
and the fleet's "forecast". Nothing is written to the server listed. Each light
is replayed with --window, else its --windows rule, else its 6.0 registry
window; with none, its row says "window unknown: span used".

--json: { schemaVersion, at, windowSeconds, totals, total, matched, lights }
(docs/inspect.md, "Looking inside a light").

Read-only. Commands sent: PING, TIME, SCAN, TYPE, ECHO, ZCARD, HLEN, ZRANGE, ZCOUNT,
HGETALL, MEMORY USAGE (a scan that runs over a second also DBSIZE, for its progress;
a Stoplight registry of light configs, where one exists: HSCAN).
One SCAN pass (COUNT adapted to 250 µs per call, or --scan-count; --scan-pause between
calls) matches every layout's keys;
Ctrl-C prints what it found so far, marked partial (exit 130; SIGTERM 143). 6.0 names: the
"default" system, a Stoplight registry, --names, a literal --system or --match.

On Redis Cluster (--cluster, or several --redis-url seeds): SCAN on every
primary, each key read where its slot lives; a node column and a total per
primary (JSON: each light's "node" and "placement", and "cluster": { primaries,
nodeTotals }). A primary that cannot be scanned stops the listing (exit 3,
naming it): never a partial list. On a cluster swc also sends INFO, CLUSTER
INFO and CLUSTER SLOTS (the slot map, once).

Keys of rate-limiter packages under their default prefixes (rlflx:,
rl:, fastify-rate-limit-, @upstash/ratelimit:, limit:; docs/clients/)
are listed after the lights, with the client, count, TTL and bytes (JSON:
"clients"; not with a --layout that names layouts); reading them adds PTTL,
GETRANGE and, when a key has no TTL, CONFIG GET maxmemory-policy.

Exit codes: 0 ok, 1 drift or a package key with no TTL found with --check,
2 bad usage, 3 Redis (or a cluster node) unreachable.

Examples:
  swc lights --top 20 --sort idle
  swc lights --cluster --redis-url redis://10.0.0.5:7000 --top 20
  swc lights --system payments --match 'checkout*' --window 5m --check`,
  );
  return command.action(
    action(async (flags: ListFlags, cmd: Command) => {
      const { resolveLayoutName } = await import('../layouts/index.js');
      const { parseList } = await import('../run/values.js');
      const layout =
        flags.layout === undefined
          ? undefined
          : checkFlag('--layout', flags.layout, (v) => (v === 'all' ? ('all' as const) : parseList('--layout', v, (p) => resolveLayoutName(p))));
      if (flags.json && cmd.getOptionValueSource('format') === 'cli' && flags.format !== 'json') {
        throw new UsageError(`--json/--format: --json means --format json; drop one of them (got --format ${flags.format})`);
      }
      if (flags.forecast !== undefined) flags.forecast = checkForecast(flags.forecast, resolveLayoutName);
      if (flags.forecast === undefined && (flags.forecastSample !== undefined || flags.forecastEvents !== undefined)) {
        throw new UsageError('--forecast-sample/--forecast-events: only with --forecast <layout>');
      }
      if (flags.forecast === undefined && (flags.windows !== undefined || flags.forecastEven === true)) {
        throw new UsageError('--windows/--forecast-even: only with --forecast <layout>');
      }
      // A bad windows file is exit 2 before any server is touched.
      if (flags.windows !== undefined) (await import('../inspect/forecast-windows.js')).readWindowsFile(flags.windows);
      if (flags.forecast !== undefined && flags.watch !== undefined) throw new UsageError('--forecast: replays once; drop --watch');
      const { runList } = await import('./listing.js');
      return runList(flags, layout, flags.rdb !== undefined ? await (await import('./rdb-target.js')).rdbTarget(flags) : undefined);
    }),
  );
}
