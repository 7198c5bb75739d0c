import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../core/errors.js';
import type { LightOrder } from '../inspect/list-options.js';
import type { Listing } from '../inspect/listing.js';
import type { ListingOutput } from '../report/listing.js';
import type { LightStateName } from '../layouts/stoplight/state.js';
import type { NameBook } from '../layouts/stoplight/names.js';
import type { LightsFormat } from '../report/lights-formats.js';
import type { Target } from '../run/open.js';
import { visible } from '../report/style.js';
import { serverRead } from './server-read.js';
import { onShutdown, printError, stderrProgress, stopCause, untilStopped } from './lifecycle.js';
import { DEFAULT_INSPECT_URL, LIGHTS_COMMAND_TIMEOUT_MS, terminalColumns, useColor, type ClusterFlags, type RedisFlags } from './options.js';

// The listing flow of `swc lights` and `swc inspect --list` (a CLI helper,
// not a command): read the flags' target, list, print, and --watch.

/** Flags of `swc lights` (and of `inspect --list`, which has fewer). */
export interface ListFlags extends RedisFlags, ClusterFlags {
  json?: boolean;
  layout?: string;
  format?: LightsFormat;
  top?: number;
  sort?: LightOrder;
  system?: string;
  match?: string;
  window?: number;
  at?: number;
  check?: boolean;
  wide?: boolean;
  quiet?: boolean;
  names?: string;
  scanPause?: number;
  scanCount?: number;
  progress?: boolean;
  threshold?: number;
  state?: LightStateName[];
  watch?: number;
  rdb?: string;
  redisServer?: string;
  forecast?: string;
  forecastSample?: number;
  forecastEvents?: number;
  /** `--windows <file>`: forecast windows by light name or glob. */
  windows?: string;
  forecastEven?: boolean;
}

/** What a listing of `flags` reads and shows, for {@link listOnce}. */
export interface ListPlan {
  readonly flags: ListFlags;
  readonly layout?: 'all' | string[];
  readonly names: NameBook;
}

/** What one listing prints: stderr lines before and after, stdout, the exit code and whether it is partial. */
type Listed = Pick<ListingOutput, 'before' | 'stdout' | 'after' | 'code' | 'partial'>;

/** Prints a listing as it is: notes on stderr around the result on stdout. */
function print(out: Listed): void {
  for (const line of out.before) printError(line);
  process.stdout.write(out.stdout);
  for (const line of out.after) printError(line);
}

/** One listing, read and rendered; Ctrl-C stops the scan and what it found is still rendered, marked partial. */
function listOnce({ flags, layout, names }: ListPlan, target: Target, control: { stopped: () => boolean }): Promise<Listed> {
  return untilStopped(async (stopped) => {
    const [{ readListing }, { listingOutput, scanProgressLine }] = await Promise.all([import('../inspect/listing.js'), import('../report/listing.js')]);
    // --watch draws its frames over each other: a progress line between them (wrapped, on a narrow terminal) would shift them.
    const progress = stderrProgress(flags.progress !== false && flags.watch === undefined, scanProgressLine);
    let listing: Listing;
    try {
      listing = await readListing(target, {
        ...(layout !== undefined ? { layout } : {}),
        windowSeconds: flags.window ?? null,
        ...(flags.at !== undefined ? { at: flags.at } : {}),
        names,
        snapshot: flags.rdb !== undefined,
        ...(flags.scanPause !== undefined ? { scanPauseMs: flags.scanPause } : {}),
        ...(flags.scanCount !== undefined ? { scanCount: flags.scanCount } : {}),
        ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
        stopped: () => stopped() || control.stopped(),
        ...(flags.sort ? { sort: flags.sort } : {}),
        ...(flags.top !== undefined ? { top: flags.top } : {}),
        ...(flags.system !== undefined ? { system: flags.system } : {}),
        ...(flags.match !== undefined ? { match: flags.match } : {}),
        ...(flags.threshold !== undefined ? { threshold: flags.threshold } : {}),
        ...(flags.state !== undefined ? { states: flags.state } : {}),
      });
    } finally {
      progress.done();
    }
    if (flags.forecast !== undefined && !listing.list.partial)
      listing = await forecastOf(flags, flags.forecast, listing, target, () => stopped() || control.stopped());
    const columns = terminalColumns();
    const out = listingOutput(listing, {
      format: flags.json ? 'json' : (flags.format ?? 'table'),
      wide: Boolean(flags.wide),
      quiet: Boolean(flags.quiet),
      color: useColor(),
      ...(columns !== null ? { columns } : {}),
      ...(flags.threshold !== undefined ? { threshold: flags.threshold } : {}),
      check: Boolean(flags.check),
      snapshot: flags.rdb !== undefined,
      stopCause: () => stopCause(),
      server: serverRead(flags, target),
    });
    return out;
  });
}

/** The listing with its forecast (`--forecast`): a bar on stderr while the lights replay, on a terminal. */
async function forecastOf(flags: ListFlags, layout: string, listing: Listing, target: Target, stopped: () => boolean): Promise<Listing> {
  const { forecastLights, withForecast } = await import('../inspect/forecast.js');
  const bar = flags.progress !== false && process.stderr.isTTY ? await forecastBar() : undefined;
  try {
    const forecast = await forecastLights(target.redis, listing.matched, {
      layout,
      windowSeconds: listing.list.windowSeconds,
      at: listing.list.at,
      ...(flags.windows !== undefined ? { windows: (await import('../inspect/forecast-windows.js')).readWindowsFile(flags.windows) } : {}),
      ...(flags.forecastEven === true ? { even: true } : {}),
      ...(flags.forecastSample !== undefined ? { sample: flags.forecastSample } : {}),
      ...(flags.forecastEvents !== undefined ? { maxEvents: flags.forecastEvents } : {}),
      ...(flags.redisServer !== undefined ? { binary: flags.redisServer } : {}),
      ...(bar ? { onProgress: bar.update } : {}),
      stopped,
    });
    return withForecast(listing, forecast);
  } finally {
    bar?.stop();
  }
}

/** A bar of lights replayed on stderr's live line, cleared when done. */
async function forecastBar(): Promise<{ update: (p: { done: number; total: number; light: string }) => void; stop: () => void }> {
  const { barText, clearStatus, showStatus } = await import('./status-line.js');
  return {
    update: ({ done, total, light }) =>
      showStatus(`swc lights --forecast ${barText(total > 0 ? done / total : 1)} ${done}/${total} lights | ${visible(light).slice(0, 40)}`),
    stop: clearStatus,
  };
}

/**
 * `--watch` on a terminal: each listing drawn over the last one, in place
 * (the scrollback does not grow), cut to the screen's height. The notes of
 * stderr are part of the frame when stderr is the same terminal.
 */
async function inPlace(): Promise<(out: Listed) => void> {
  const { fitFrame, redraw, rowsTaken } = await import('../report/watch.js');
  let rows = 0;
  return (out) => {
    const columns = process.stdout.columns || 80;
    const notes = process.stderr.isTTY;
    const lines = [...(notes ? out.before : []), ...out.stdout.replace(/\n$/, '').split('\n'), ...(notes ? out.after : [])];
    const frame = fitFrame(lines, columns, process.stdout.rows || 24);
    if (!notes) for (const line of out.before) printError(line);
    process.stdout.write(redraw(frame, rows));
    if (!notes) for (const line of out.after) printError(line);
    rows = rowsTaken(frame, columns);
  };
}

/**
 * `--watch` into a pipe or a file: the first listing whole, then at each
 * tick one line with the time and how many rows changed, and those rows.
 */
async function piped(seconds: number): Promise<(out: Listed) => void> {
  const { changedRows } = await import('../report/watch.js');
  let last: string | undefined;
  return (out) => {
    const at = `--- ${new Date().toISOString()} (--watch ${seconds} s)`;
    if (last === undefined) {
      process.stdout.write(`${at}\n`);
      print(out);
    } else {
      const changed = changedRows(last, out.stdout);
      process.stdout.write(`${at}: ${changed.length === 0 ? 'no row changed' : `${changed.length} row(s) changed`}\n`);
      if (changed.length > 0) process.stdout.write(`${changed.join('\n')}\n`);
      for (const line of out.after) printError(line);
    }
    last = out.stdout;
  };
}

/**
 * Every light on the server, printed. Exit 1 with --check when any light
 * drifted; 130 after Ctrl-C, with what the scan found so far printed and
 * marked partial. `--watch` lists again every n seconds until Ctrl-C.
 */
export async function runList(flags: ListFlags, layout: ListPlan['layout'], given?: Target): Promise<number> {
  const [{ globRegExp }, { nameBookOf }, { readTargetFromFlags, withSlotRetry }] = await Promise.all([
    import('../inspect/list.js'),
    import('../inspect/listing.js'),
    import('./cluster-read.js'),
  ]);
  if (flags.match !== undefined) globRegExp(flags.match);
  if (flags.watch !== undefined && (flags.json || (flags.format !== undefined && flags.format !== 'table'))) {
    throw new UsageError('--watch: redraws a table; drop --json/--format');
  }
  // Read --names before connecting: a bad file is exit 2 with nothing sent.
  const plan: ListPlan = { flags, ...(layout !== undefined ? { layout } : {}), names: nameBookOf(flags) };
  const open = (): Promise<Target> => readTargetFromFlags(flags, DEFAULT_INSPECT_URL, 'lights', { commandTimeoutMs: LIGHTS_COMMAND_TIMEOUT_MS });
  let stopping = false;
  // In --watch, Ctrl-C between listings ends the loop (the signal handler then exits 130).
  const unregister = onShutdown(async () => {
    stopping = true;
  });
  const control = { stopped: () => stopping };
  try {
    if (flags.watch === undefined) {
      const out = given
        ? await listOnce(plan, given, control)
        : (
            await withSlotRetry(
              open,
              (target) => listOnce(plan, target, control),
              (err) => printError(`swc: note: ${err.message.replace(/; run the command again.*$/, '')}; listing again on the new slot map`),
            )
          ).result;
      print(out);
      return out.partial ? 130 : out.code;
    }
    const target = given ?? (await open());
    const show = process.stdout.isTTY ? await inPlace() : await piped(flags.watch);
    for (;;) {
      const out = await listOnce(plan, target, control);
      show(out);
      if (out.partial || stopping) return 130;
      await sleep(flags.watch * 1000);
      if (stopping) return 130;
    }
  } finally {
    unregister();
  }
}
