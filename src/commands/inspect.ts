import { Command, Option } from 'commander';
import { parseNumber } from '../run/values.js';
import { NotFoundError, UsageError } from '../core/errors.js';
import type { InspectRequest } from '../inspect/inspect.js';
import type { Inspection, LightMetadata } from '../layouts/inspection.js';
import { BUILTIN_LAYOUT_NAMES } from '../layouts/builtin-names.js';
import { SCAN_BUDGET_US, SCAN_COUNT_MAX } from '../redis/scan.js';
import { MAX_LISTED_ROWS } from '../report/inspect-limits.js';
import { action, printError } from './lifecycle.js';
import type { ListFlags } from './listing.js';
import {
  addClientPrefixOption,
  addClusterOptions,
  addJsonOption,
  addRedisOptions,
  checkFlag,
  DEFAULT_INSPECT_URL,
  LIGHTS_COMMAND_TIMEOUT_MS,
  parser,
  printJson,
  terminalColumns,
  unixSeconds,
  useColor,
  windowSeconds,
  type ClusterFlags,
} from './options.js';

interface InspectFlags extends ListFlags, ClusterFlags {
  json?: boolean;
  list?: boolean;
  layout: string;
  system?: string;
  window?: number;
  at?: number;
  limit: number;
  check?: boolean;
}

/** `swc inspect <light>`: a read-only look inside one light. */
export function inspectCommand(): Command {
  const command = new Command('inspect')
    .description('look inside one light (read-only): keys, encodings, buckets or events, drift, metadata')
    .argument(
      '[light]',
      'a light name, a light id (6.0: 12 hex), a full key of any registered layout, or a key of a rate-limiter package (rlflx:<id>, rl:<id>, …)',
    )
    .option('--list', 'list every light on the server instead (same as swc lights)')
    .addOption(
      new Option(
        '--layout <name>',
        `which layout to read: ${BUILTIN_LAYOUT_NAMES.join(', ')}, a manifest file (*.json), or auto (every layout that has keys)`,
      ).default('auto'),
    )
    .option(
      '--system <name or id>',
      'the system of a light given by name or light id: its name, or the id its keys carry (6.0: 12 hex); with it the light is always a name (or id) in that system; without it the system named default is read first, any system last (a walk)',
    )
    .option(
      '--window <time>',
      "window to judge buckets against: 60, 90s, 5m, 1h (default: 5.x its longest, a day; 6.0 the light's registered window_size, else none: no error rate)",
      windowSeconds,
    )
    .option('--at <time>', 'judge the window at this Unix time in seconds (default: the server clock)', unixSeconds)
    .option('--rdb <file>', 'read an RDB snapshot instead of a live server: loaded into a private redis-server on a unix socket only (no TCP)')
    .option('--redis-server <path>', 'with --rdb: the redis-server that loads it (default: SWC_REDIS_SERVER, else redis-server on PATH)')
    .option('--names <file>', 'names for 6.0 ids: one "light" or "system/light" per line (swc hashes them as Stoplight does)')
    .option(
      '--limit <n>',
      'most recent buckets or seconds to print (JSON has all)',
      parser((v) => parseNumber('--limit', v, { min: 0, max: MAX_LISTED_ROWS, integer: true })),
      30,
    )
    .option(
      '--scan-count <n>',
      `COUNT of every SCAN call, when one is needed, 1..${SCAN_COUNT_MAX} (default: adapted to ${SCAN_BUDGET_US} µs of server time per call)`,
      parser((v) => parseNumber('--scan-count', v, { min: 1, max: SCAN_COUNT_MAX, integer: true })),
    )
    .option('--check', 'exit 1 when the light has drift (running totals or index disagree with the buckets)')
    .option('--wide', 'key names and slots inside the keys table (wider than 120 columns)')
    .addHelpText(
      'after',
      '\nThe light: what swc lights prints (a name, or 6.0 system-id/light-id), a 6.0' +
        '\nlight id, a name, or a full key. Without --system, 6.0 tries in turn: a key,' +
        '\nsystem-id/light-id, system/light (split at the first /), the whole text as a' +
        '\nlight of the "default" system (its keys and registry entry, no SCAN), and last' +
        '\nany system (one SCAN pass; the output says it walked). With --system the text' +
        '\nis always a light name: a name holding / or a key is reached that way.' +
        '\n--json: one object { schemaVersion, swcVersion, request, drift, inspections };' +
        '\ntotals = events the keys hold (docs/inspect.md, "Looking inside a light").' +
        '\nRead-only: runs no Stoplight script (a 6.0 read would evict). Commands sent:' +
        '\nPING, ECHO, TIME, CONFIG GET, SCAN, TYPE, OBJECT ENCODING, TTL, HLEN, ZCARD,' +
        '\nHMGET, HGET, ZRANGE, HSCAN, MEMORY USAGE (ZRANGE and HSCAN in pages of 1000).' +
        "\nHGET reads the light's entry in its system's Stoplight registry (window," +
        '\nthreshold, strategy, cool-off); a recovery lock adds STRLEN, and a walk that' +
        '\nmeets registries HEXISTS.' +
        '\n6.0 names: the "default" system, the name given, --system, --names, a' +
        '\nregistry; a name found only by the walk in several systems is exit 2.' +
        '\nWithout MEMORY (renamed or denied) bytes show n/a; without CONFIG the listpack' +
        '\nlimits show ?.' +
        '\nOn Redis Cluster (--cluster, or several --redis-url seeds): each key is read on' +
        '\nthe primary that owns its slot, and the output names that node (JSON: each' +
        '\nkey\'s "node", and "cluster.primaries"); swc also sends INFO, CLUSTER INFO and' +
        '\nCLUSTER SLOTS (the slot map, once).' +
        '\n\nA key of a rate-limiter package (rlflx:<id>, rl:<id>, limit:<id>, …;' +
        '\ndocs/clients/) is shown as the package writes it: the client,' +
        "\nits count, TTL and bytes, and the server's maxmemory-policy (adds PTTL," +
        '\nGETRANGE, CONFIG GET); one with no TTL is exit 1.' +
        '\n\nExit codes: 0 ok, 1 light not found, a key of the wrong type, or drift with' +
        '\n--check, 2 bad usage, 3 Redis unreachable (on a cluster: also a primary that' +
        '\ndoes not answer, or a slot that moved while reading).' +
        '\n\nExamples:\n  swc inspect checkout --window 60\n  swc inspect 37a8eec1ce19/5f3a0c1b2d4e --json --check\n  swc inspect checkout --cluster --redis-url redis://10.0.0.5:7000',
    );
  addClientPrefixOption(command);
  addRedisOptions(command, { privateServer: false });
  addClusterOptions(command, { privateCluster: false });
  addJsonOption(command);
  return command.action(
    action(async (light: string | undefined, flags: InspectFlags) => {
      const { resolveLayoutName } = await import('../layouts/index.js');
      const layout = checkFlag('--layout', flags.layout, (v) => (v === 'auto' ? v : resolveLayoutName(v)));
      if (flags.list) {
        if (light !== undefined) throw new UsageError('--list: takes no light; drop one of them');
        const { runList } = await import('./listing.js');
        return runList(
          flags,
          layout === 'auto' ? undefined : [layout],
          flags.rdb !== undefined ? await (await import('./rdb-target.js')).rdbTarget(flags) : undefined,
        );
      }
      if (light === undefined || light === '') throw new UsageError('inspect: give a light name, id or key (or --list)');
      // A key of a rate-limiter package (by its default prefix): read as the package writes it.
      const claim = (await import('../inspect/client-key.js')).clientKeyOf(light, flags.clientPrefix);
      if (claim !== null && layout === 'auto') {
        const code = await (await import('./inspect/client-key.js')).inspectClientKeyCommand(claim, flags);
        if (code !== null) return code;
      }
      return inspectOne(light, { ...flags, layout });
    }),
  );
}

/** Reads one light and prints it; returns the exit code. */
async function inspectOne(light: string, flags: InspectFlags): Promise<number> {
  const [
    { inspectLight, inspectionDocument, resolveTargets },
    { nameBookOf },
    { renderInspections, inspectionWarnings, inspectNotMeasured },
    { primariesOf, readTargetFromFlags, withSlotRetry },
    { visible },
    { cutOnly, shownDeep },
    { serverRead },
  ] = await Promise.all([
    import('../inspect/inspect.js'),
    import('../inspect/listing.js'),
    import('../report/inspect.js'),
    import('./cluster-read.js'),
    import('../report/style.js'),
    import('../safety/text.js'),
    import('./server-read.js'),
  ]);
  const request: InspectRequest = {
    light,
    layout: flags.layout,
    ...(flags.system !== undefined ? { system: flags.system } : {}),
    ...(flags.window !== undefined ? { windowSeconds: flags.window } : {}),
    ...(flags.at !== undefined ? { at: flags.at } : {}),
  };
  // Names for 6.0 ids: --names, a literal --system, and the light asked for.
  const names = nameBookOf({
    ...(flags.names !== undefined ? { names: flags.names } : {}),
    ...(flags.system !== undefined ? { system: flags.system } : {}),
  });
  // A key of one layout with --layout naming another is bad usage: say so before connecting.
  resolveTargets(request, names);
  // Read-only: a slot that moves during the read is read again once on the new slot map.
  const { target, result: inspections } =
    flags.rdb !== undefined
      ? await (async () => {
          const snapshot = await (await import('./rdb-target.js')).rdbTarget(flags);
          return {
            target: snapshot,
            result: await inspectLight(snapshot, request, undefined, names, flags.scanCount !== undefined ? { count: flags.scanCount } : {}),
          };
        })()
      : await withSlotRetry(
          () => readTargetFromFlags(flags, DEFAULT_INSPECT_URL, 'inspect', { commandTimeoutMs: LIGHTS_COMMAND_TIMEOUT_MS }),
          (target) =>
            inspectLight(target, request, undefined, names, flags.scanCount !== undefined ? { count: flags.scanCount } : {}).catch((err: unknown) => {
              if (!(err instanceof NotFoundError)) throw err;
              // The message repeats the typed name and its keys: keep their control characters off the terminal.
              const notFound = visible(err.message);
              // --json readers get a document too: no inspection, and why (the stderr line and exit 1 are the same).
              if (flags.json) printJson({ ...inspectionDocument(request, [], undefined, { where: serverRead(flags, target), notMeasured: [] }), notFound });
              throw new NotFoundError(notFound);
            }),
          (err) => printError(`swc: note: ${err.message.replace(/; run the command again.*$/, '')}; reading again on the new slot map`),
        );
  // The server read (or the snapshot), without credentials, and what was not measured there: named first.
  const server = { where: serverRead(flags, target), notMeasured: inspectNotMeasured(inspections, flags.rdb !== undefined) };
  // Values from Redis over a sane length (an 8 MB last_error_json) are cut, their size in bytes said (src/safety/text.ts).
  if (flags.json) {
    const primaries = primariesOf(target);
    const cluster = primaries ? { primaries } : undefined;
    printJson(shownDeep(inspectionDocument(request, inspections, cluster, server), MAX_JSON_CHARS, cutOnly));
  } else {
    const columns = terminalColumns();
    const cut = (inspection: Inspection): Inspection => {
      if (!('metadata' in inspection)) return inspection;
      const metadata: LightMetadata = inspection.metadata;
      return { ...inspection, metadata: { ...metadata, fields: shownDeep(metadata.fields), lastError: shownDeep(metadata.lastError) } };
    };
    const picture = Boolean(process.stdout.isTTY);
    process.stdout.write(
      renderInspections(inspections.map(cut), {
        color: useColor(),
        limit: flags.limit,
        picture,
        wide: Boolean(flags.wide),
        ...(columns !== null ? { columns } : {}),
        server,
      }),
    );
  }
  const warnings = inspectionWarnings(inspections, Boolean(flags.check));
  for (const line of warnings.lines) printError(line);
  if (flags.rdb !== undefined) printError(`swc: note: ${(await import('../report/listing.js')).RDB_BYTES_NOTE}`);
  return warnings.code;
}

/** Longest string kept whole in inspect's JSON (longer ones are cut with their size; a Stoplight error's JSON is far shorter). */
const MAX_JSON_CHARS = 4096;
