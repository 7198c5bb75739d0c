import { Command, Option } from 'commander';
import { parseDuration, parseList, parseNumber } from '../bench/values.js';
import { ExitCode, NotFoundError, UsageError } from '../errors.js';
import { inspectLight, resolveTargets, type InspectRequest } from '../inspect/inspect.js';
import { listLights } from '../inspect/list.js';
import type { Inspection } from '../inspect/types.js';
import { layoutNames, resolveLayoutName } from '../layouts/index.js';
import { DEFAULT_SYSTEM } from '../layouts/types.js';
import { renderInspections, renderListing } from '../report/inspect.js';
import { visible } from '../report/style.js';
import { SWC_VERSION } from '../version.js';
import { action } from './lifecycle.js';
import { addJsonOption, addRedisOptions, parser, printJson, sessionFromFlags, useColor, type RedisFlags } from './options.js';

/** Inspect reads what an application's Redis holds, so it defaults to the usual local one. */
const DEFAULT_URL = 'redis://127.0.0.1:6379';
/** Keys live 7 days at most in either layout. */
const MAX_WINDOW_SECONDS = 604_800;
/** 2100-01-01: later times are typos (milliseconds, most likely). */
const MAX_AT = 4_102_444_800;

interface InspectFlags extends RedisFlags {
  json?: boolean;
  list?: boolean;
  layout: string;
  system: string;
  window?: number;
  at?: number;
  limit: number;
}


const unixSeconds = parser((value) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > MAX_AT) {
    throw new UsageError(`--at: expected Unix seconds 0..${MAX_AT} (fractions allowed), got "${value}"`);
  }
  return n;
});

/** Says once on stderr what the server would not let swc read (the figures show n/a). */
function noteUnavailable(notes: readonly string[]): void {
  for (const note of new Set(notes)) process.stderr.write(`swc: note: ${visible(note)}\n`);
}

/** `--layout` of `swc lights`: registered names or manifest files, comma-separated. */
export const layoutListOption = (): Option =>
  new Option('--layout <list>', `only these layouts, comma-separated: ${layoutNames.join(', ')} or manifest files (default every registered layout)`).argParser(
    parser((v) => parseList('--layout', v, (p) => resolveLayoutName(p))),
  );

/** `--list` and `swc lights`: every light on the server. */
export async function runList(flags: RedisFlags & { json?: boolean; layout?: string | string[] }): Promise<number> {
  const session = await sessionFromFlags(flags, DEFAULT_URL);
  const only = flags.layout === undefined || flags.layout === 'auto' ? undefined : [flags.layout].flat();
  const list = await listLights(session.redis, only);
  noteUnavailable(list.unavailable);
  if (flags.json) printJson({ schemaVersion: 1, swcVersion: SWC_VERSION, ...list });
  else process.stdout.write(renderListing(list, useColor()));
  return ExitCode.ok;
}

function warn(inspections: readonly Inspection[]): boolean {
  let problem = false;
  noteUnavailable(inspections.flatMap((i) => i.unavailable));
  for (const inspection of inspections) {
    for (const text of inspection.problems) {
      process.stderr.write(`swc: warning: ${visible(text)}\n`);
      problem = true;
    }
    if (!inspection.consistent) {
      process.stderr.write(
        `swc: warning: ${inspection.layout} keys of ${visible(inspection.light)} changed while being read (writes in progress); figures may mix two moments\n`,
      );
    }
  }
  return problem;
}

/** `swc inspect <light>`: a read-only look inside one light. */
export function inspectCommand(): Command {
  const command = new Command('inspect')
    .description('look inside one light (read-only): keys, encodings, buckets or events, drift, metadata')
    .argument('[light]', 'a light name, a light id (6.0: 12 hex), or a full key of any registered layout')
    .option('--list', 'list every light on the server instead (same as swc lights)')
    .addOption(
      new Option('--layout <name>', `which layout to read: ${layoutNames.join(', ')}, a manifest file (*.json), or auto (every layout that has keys)`)
        .argParser(parser((v) => (v === 'auto' ? v : resolveLayoutName(v))))
        .default('auto'),
    )
    .option('--system <name>', 'system name, for layouts that scope lights by system (6.0 hashes it into the keys)', DEFAULT_SYSTEM)
    .option(
      '--window <time>',
      'window to judge buckets against: 60, 90s, 5m, 1h (default: the layout\'s longest window if it has one, e.g. 5.x 86400 s; else none)',
      parser((v) => parseDuration('--window', v, { min: 1, max: MAX_WINDOW_SECONDS, integer: true })),
    )
    .option('--at <time>', 'judge the window at this Unix time in seconds (default: the server clock)', unixSeconds)
    .option('--limit <n>', 'most recent buckets or seconds to print (JSON has all)', parser((v) => parseNumber('--limit', v, { min: 0, max: 1_000_000, integer: true })), 30)
    .addHelpText(
      'after',
      '\nRead-only: runs no Stoplight script (a 6.0 read would evict), only SCAN, HSCAN, ZRANGE pages, TYPE, MEMORY USAGE, TTL.' +
        '\nWithout MEMORY (renamed or denied) bytes show n/a; without CONFIG the listpack limits show ?.' +
        '\nExit codes: 0 ok, 1 light not found or a key of the wrong type, 2 bad usage, 3 Redis unreachable.' +
        '\n\nExamples:\n  swc inspect checkout --window 60\n  swc inspect 5f3a0c1b2d4e --layout stoplight-v6 --json\n  swc inspect --list',
    );
  addRedisOptions(command, { privateServer: false });
  addJsonOption(command);
  return command.action(
    action(async (light: string | undefined, flags: InspectFlags) => {
      if (flags.list) {
        if (light !== undefined) throw new UsageError('--list: takes no light; drop one of them');
        return runList(flags);
      }
      if (light === undefined || light === '') throw new UsageError('inspect: give a light name, id or key (or --list)');
      const request: InspectRequest = {
        light,
        layout: flags.layout,
        system: flags.system,
        ...(flags.window !== undefined ? { windowSeconds: flags.window } : {}),
        ...(flags.at !== undefined ? { at: flags.at } : {}),
      };
      // A key of one layout with --layout naming another is bad usage: say so before connecting.
      resolveTargets(request);
      const session = await sessionFromFlags(flags, DEFAULT_URL);
      const inspections = await inspectLight(session.redis, request).catch((err: unknown) => {
        // The message repeats the typed name and its keys: keep their control characters off the terminal.
        throw err instanceof NotFoundError ? new NotFoundError(visible(err.message)) : err;
      });
      if (flags.json) printJson(inspections.length === 1 ? inspections[0] : inspections);
      else {
        const color = useColor();
        process.stdout.write(renderInspections(inspections, { color, limit: flags.limit, picture: Boolean(process.stdout.isTTY) }));
      }
      return warn(inspections) ? ExitCode.finding : ExitCode.ok;
    }),
  );
}
