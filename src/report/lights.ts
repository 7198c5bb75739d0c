import type { FleetForecast } from '../inspect/forecast.js';
import type { LayoutTotals, LightForecast, LightList, LightListing, NodeTotals } from '../layouts/inspection.js';
import { palette, visible } from './style.js';
import { renderBox, renderCsv, renderMarkdown, wrapHead, type Grid } from './table.js';
import { wrapText } from './width.js';

import type { LightsFormat } from './lights-formats.js';
import { formatWindow } from '../core/format.js';

export { lightsFormats, type LightsFormat } from './lights-formats.js';

/** What `swc lights` shows. */
export interface LightsView {
  readonly list: LightList;
  /** Every light that passed the filters (totals are over these). */
  readonly matched: readonly LightListing[];
  /** The lights printed (after --top). */
  readonly shown: readonly LightListing[];
  readonly totals: readonly LayoutTotals[];
  /** More columns: keys, stale buckets, first and last event. */
  readonly wide: boolean;
  /** On Redis Cluster: totals per primary over the matched lights. */
  readonly nodeTotals?: readonly NodeTotals[];
  /** The terminal's width ({@link MIN_COLUMNS} at the least): columns are dropped, then names stacked, to fit it; absent = no limit. `wide` ignores it. */
  readonly columns?: number;
  /** `--threshold`: lights at or over it are marked. */
  readonly threshold?: number;
  /** `--forecast`: the fleet's figures (each light carries its own). */
  readonly forecast?: FleetForecast;
  /** The server read (a URL without credentials, or a snapshot), named on the first line. */
  readonly server?: string;
  /** The filters given as typed (`--state red`), named where lights were left out. */
  readonly filters?: readonly string[];
}

/** The filters that left lights out, as typed; the flags' names when the listing does not carry them. */
const filtersText = (view: LightsView): string => visible(view.filters && view.filters.length > 0 ? view.filters.join(' ') : '--system/--match/--state');

/**
 * The narrowest listing drawn: a narrower terminal gets this width's layout.
 * Below 80 columns a light's name goes on a line of its own above its row
 * rather than being cut: it is the handle `swc inspect` takes.
 */
export const MIN_COLUMNS = 40;

const int = (n: number | null): string => (n === null ? '–' : Math.round(n).toLocaleString('en-US'));
/** KB (1024 bytes) with one decimal, grouped: one unit in the whole column. */
const kbText = (bytes: number | null, exact = true): string =>
  bytes === null ? 'n/a' : `${exact ? '' : '~'}${(bytes / 1024).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}`;
const iso = (second: number | null): string => (second === null ? '–' : new Date(second * 1000).toISOString().replace('.000Z', 'Z'));
/** A light the scan did not finish is not judged: `partial`, never ok or DRIFT. */
const driftText = (l: LightListing): string => (l.partial ? 'partial' : l.drift === null ? '–' : l.drift ? 'DRIFT' : 'ok');

/** The layout the forecasts are in, when every forecast names the same one. */
function forecastLayout(lights: readonly LightListing[]): string | null {
  const names = new Set(lights.flatMap((l) => (l.forecast ? [l.forecast.layout] : [])));
  return names.size === 1 ? ([...names][0] as string) : null;
}

/** A light's forecast cell: KB measured (`≥` when only its newest events were replayed), or why there is none. */
function forecastText(f: LightForecast | undefined): string {
  if (!f) return '–';
  if (f.method === 'measured') return kbText(f.bytes);
  if (f.method === 'capped') return `≥${kbText(f.bytes)}`;
  return f.method === 'sampled-out' ? 'not sampled' : f.method === 'no-events' ? '–' : 'n/a';
}

/** The window a light's forecast replayed with and where it came from; a window not known says so in the table, not only under it. */
function forecastWindowText(f: LightForecast | undefined): string {
  if (!f || f.windowSeconds === null || f.windowFrom === null) return '–';
  const window = formatWindow(f.windowSeconds);
  if (f.windowFrom === 'span') return `window unknown: span used (${window})`;
  // --window is said under the table; a file's rule or the registry here.
  return f.windowFrom === 'window' ? window : `${window} (${f.windowFrom === 'windows' ? 'file' : 'registry'})`;
}

/** `--forecast-even`: bench's even traffic at the light's rate and window, KB. */
const evenText = (f: LightForecast | undefined): string => (f?.even ? kbText(f.even.bytes) : '–');

const rateText = (l: LightListing, threshold: number | undefined): string => {
  // A light whose own config trips on consecutive errors shows them against its own threshold.
  if (l.tripping?.trafficControl === 'consecutive_errors') {
    const text = `${l.tripping.value}/${l.tripping.threshold} errs`;
    return threshold !== undefined && l.overThreshold === true ? `${text} ≥` : text;
  }
  if (l.failureRate === null) return '–';
  // Under its minimum of requests an error-rate light cannot trip: the requests are said.
  const few = l.tripping?.requests !== undefined && l.tripping.minRequests !== undefined && l.tripping.requests < l.tripping.minRequests;
  const own = l.tripping ? ` /${(l.tripping.threshold * 100).toFixed(0)}%${few ? ` ${l.tripping.requests}<${l.tripping.minRequests}req` : ''}` : '';
  const text = `${(l.failureRate * 100).toFixed(1)}%${own}`;
  return threshold !== undefined && l.overThreshold === true ? `${text} ≥` : text;
};

/** A column of the listing: its head, its cells, and how readily it is dropped to fit a terminal (higher goes first). */
interface Column {
  readonly head: string;
  readonly cells: readonly string[];
  readonly numeric: boolean;
  /** 0: never dropped. */
  readonly drop: number;
}

/** The width cli-table3 draws a column at: its widest line plus one space each side and a border. */
function columnWidth(column: Column): number {
  const head = column.numeric ? wrapHead(column.head) : column.head;
  const lines = [...head.split('\n'), ...column.cells.flatMap((c) => c.split('\n'))];
  return Math.max(...lines.map((l) => [...l].length)) + 3;
}

/**
 * The listing as a grid: names with ids where no name is known, failures
 * in the window with --window; `wide` adds keys, stale buckets, first and
 * last event and the ids. Given a terminal's width (`columns`), columns are
 * dropped (a note names them), then each name goes on its own line above
 * its row: a name is never cut (see fitColumns).
 */
export function lightsGrid(view: Pick<LightsView, 'shown' | 'wide' | 'columns' | 'threshold'> & { readonly windowed?: boolean }): Grid {
  const { shown, wide } = view;
  const forecasted = forecastLayout(shown);
  const nodes = shown.some((l) => l.node !== undefined);
  const named = shown.some((l) => l.name !== l.reference);
  const windowed = view.windowed ?? shown.some((l) => l.windowSuccesses !== null);
  const col = (head: string, cells: string[], numeric: boolean, drop: number): Column => ({ head, cells, numeric, drop });
  const stated = shown.some((l) => l.state !== null && l.state !== undefined);
  const columns: Column[] = [
    ...(stated
      ? [
          col(
            'state',
            shown.map((l) => l.state ?? '–'),
            false,
            0,
          ),
        ]
      : []),
    col(
      'layout',
      shown.map((l) => l.layout),
      false,
      3,
    ),
    col(
      'light',
      shown.map((l) => visible(l.name)),
      false,
      0,
    ),
    ...(wide && named
      ? [
          col(
            'id',
            shown.map((l) => (l.name === l.reference ? '' : l.reference)),
            false,
            0,
          ),
        ]
      : []),
    ...(nodes
      ? [
          col(
            'node',
            shown.map((l) => l.node ?? '–'),
            false,
            0,
          ),
        ]
      : []),
    ...(wide
      ? [
          col(
            'keys',
            shown.map((l) => int(l.keys)),
            true,
            0,
          ),
        ]
      : []),
    col(
      'KB',
      shown.map((l) => kbText(l.bytes, l.bytesExact)),
      true,
      0,
    ),
    // With a window, the heads say which columns count every event the keys hold and which only the window's.
    col(
      windowed ? 'events held' : 'events',
      shown.map((l) => int(l.events)),
      true,
      2,
    ),
    ...(windowed
      ? [
          col(
            'in window',
            shown.map((l) => (l.windowSuccesses === null ? '–' : int((l.windowSuccesses ?? 0) + (l.windowFailures ?? 0)))),
            true,
            4,
          ),
          col(
            'failures in window',
            shown.map((l) => int(l.windowFailures)),
            true,
            0,
          ),
          col(
            'fail rate in window',
            shown.map((l) => rateText(l, view.threshold)),
            true,
            0,
          ),
        ]
      : []),
    col(
      'stale',
      shown.map((l) => int(l.staleEvents)),
      true,
      5,
    ),
    ...(wide
      ? [
          col(
            'stale buckets',
            shown.map((l) => int(l.staleBuckets)),
            true,
            0,
          ),
        ]
      : []),
    col(
      'idle s',
      shown.map((l) => int(l.idleSeconds)),
      true,
      1,
    ),
    col(
      'drift',
      shown.map((l) => driftText(l)),
      false,
      0,
    ),
    ...(forecasted
      ? [
          col(
            `forecast ${forecasted} KB`,
            shown.map((l) => forecastText(l.forecast)),
            true,
            0,
          ),
          col(
            'forecast window',
            shown.map((l) => forecastWindowText(l.forecast)),
            false,
            0,
          ),
          ...(shown.some((l) => l.forecast?.even !== undefined)
            ? [
                col(
                  'even traffic KB',
                  shown.map((l) => evenText(l.forecast)),
                  true,
                  0,
                ),
              ]
            : []),
        ]
      : []),
    ...(wide
      ? [
          col(
            'first event',
            shown.map((l) => iso(l.firstSecond)),
            false,
            0,
          ),
          col(
            'last event',
            shown.map((l) => iso(l.lastSecond)),
            false,
            0,
          ),
        ]
      : []),
  ];
  const fitted = wide || view.columns === undefined ? { kept: columns, dropped: [], stacked: false } : fitColumns(columns, view.columns);
  const { kept } = fitted;
  const stack = kept.findIndex((c) => c.head === 'light');
  return {
    head: kept.map((c) => c.head),
    rows: shown.map((_, r) => kept.map((c) => c.cells[r] as string)),
    numeric: kept.map((c) => c.numeric),
    ...(fitted.stacked && stack >= 0 ? { stack } : {}),
    ...(fitted.dropped.length > 0
      ? { notes: [`not shown at ${Math.max(MIN_COLUMNS, view.columns ?? 0)} columns: ${fitted.dropped.join(', ')} (--wide shows every column)`] }
      : {}),
  };
}

/** The width a box of these columns takes: each column's width and the closing border. */
const boxWidth = (cols: readonly Column[]): number => cols.reduce((sum, c) => sum + columnWidth(c), 1);

/**
 * The columns that fit `columns` (at least {@link MIN_COLUMNS}), a light's
 * name always whole: columns are dropped, most dispensable first; then text
 * columns break between words (`locked green` on two lines) where that makes
 * the row fit; else the name goes on a line of its own above its row
 * (`stacked`) and the dropped columns that then fit come back.
 */
function fitColumns(columns: readonly Column[], width: number): { kept: Column[]; dropped: string[]; stacked: boolean } {
  const limit = Math.max(MIN_COLUMNS, width);
  const dropped = new Set<Column>();
  const left = (): Column[] => columns.filter((c) => !dropped.has(c));
  const names = (): string[] => columns.filter((c) => dropped.has(c)).map((c) => c.head);
  for (const level of [6, 5, 4, 3, 2, 1]) {
    if (boxWidth(left()) <= limit) break;
    for (const c of columns) if (c.drop === level) dropped.add(c);
  }
  if (boxWidth(left()) <= limit) return { kept: left(), dropped: names(), stacked: false };
  const shrink = (cols: readonly Column[]): Column[] =>
    cols.map((c) => (c.numeric || c.head === 'light' ? c : { ...c, cells: c.cells.map((t) => t.replace(/ /g, '\n')) }));
  if (boxWidth(shrink(left())) <= limit) return { kept: shrink(left()), dropped: names(), stacked: false };
  // The name no longer takes a column's width: what was dropped last comes back first, while the rest still fits.
  const rest = (cols: readonly Column[]): Column[] => cols.filter((c) => c.head !== 'light');
  for (const column of [...dropped].reverse()) {
    dropped.delete(column);
    if (boxWidth(rest(left())) > limit) {
      dropped.add(column);
      break;
    }
  }
  return { kept: boxWidth(rest(left())) <= limit ? left() : shrink(left()), dropped: names(), stacked: true };
}

/** Every field of every shown light, one row each, machine units (bytes, seconds). */
export function lightsCsvGrid(shown: readonly LightListing[]): Grid {
  const nodes = shown.some((l) => l.node !== undefined);
  const head = [
    'layout',
    'reference',
    'light',
    'systemId',
    'keys',
    'bytes',
    'bytesExact',
    'events',
    'staleEvents',
    'staleBuckets',
    'idleSeconds',
    'drift',
    'firstSecond',
    'lastSecond',
    'spanSeconds',
    'forecastLayout',
    'forecastMethod',
    'forecastBytes',
    'forecastEvents',
    'forecastWindowSeconds',
    'forecastWindowFrom',
    'forecastEvenBytes',
    ...(nodes ? ['node'] : []),
    'name',
    'systemName',
    'lightName',
    'windowSuccesses',
    'windowFailures',
    'failureRate',
    'overThreshold',
    'state',
    'stateSinceSecond',
    'partial',
    'keyKinds',
    'windowFrom',
  ];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
  const rows = shown.map((l) =>
    [
      l.layout,
      l.reference,
      l.light,
      l.systemId,
      l.keys,
      l.bytes,
      l.bytesExact,
      l.events,
      l.staleEvents,
      l.staleBuckets,
      l.idleSeconds,
      l.drift,
      l.firstSecond,
      l.lastSecond,
      l.spanSeconds,
      l.forecast?.layout,
      l.forecast?.method,
      l.forecast?.bytes,
      l.forecast?.events,
      l.forecast?.windowSeconds,
      l.forecast?.windowFrom,
      l.forecast?.even?.bytes,
      ...(nodes ? [l.node] : []),
      l.name,
      l.systemName,
      l.lightName,
      l.windowSuccesses,
      l.windowFailures,
      l.failureRate,
      l.overThreshold,
      l.state,
      l.stateSinceSecond,
      l.partial,
      // The kinds of keys the light keeps, space-separated (6.0: state, window_metrics, …, registry).
      l.keyKinds?.join(' '),
      l.config?.windowSeconds.from,
    ].map(cell),
  );
  return { head, rows };
}

function totalLine(t: Omit<LayoutTotals, 'layout'>, label: string): string {
  const kb = t.bytes === null ? 'n/a' : `${kbText(t.bytes)} KB`;
  const stale = t.staleEvents === null ? '' : ` (${int(t.staleEvents)} stale)`;
  return (
    `${label}: ${int(t.lights)} light${t.lights === 1 ? '' : 's'}, ${int(t.keys)} key${t.keys === 1 ? '' : 's'}, ${kb}` +
    (t.events === null ? '' : `, ${int(t.events)} events${stale}`) +
    // Lights the scan did not finish are neither drifted nor fine: counted apart, never as drift.
    (t.unfinished > 0
      ? `${t.drifted > 0 ? `, ${t.drifted} with drift` : ''}, ${int(t.unfinished)} not finished (scan interrupted): drift not judged`
      : `, ${t.drifted} with drift`)
  );
}

/** The sum of every layout's totals. */
export function grandTotal(totals: readonly LayoutTotals[]): Omit<LayoutTotals, 'layout'> {
  const add = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);
  return totals.reduce(
    (sum, t) => ({
      lights: sum.lights + t.lights,
      keys: sum.keys + t.keys,
      bytes: add(sum.bytes, t.bytes),
      events: add(sum.events, t.events),
      staleEvents: add(sum.staleEvents, t.staleEvents),
      drifted: sum.drifted + t.drifted,
      unfinished: sum.unfinished + t.unfinished,
    }),
    { lights: 0, keys: 0, bytes: 0 as number | null, events: 0 as number | null, staleEvents: 0 as number | null, drifted: 0, unfinished: 0 },
  );
}

/** Where the replayed lights' windows came from, counted; the span, where used, with the flags that give a window. */
function windowSourcesText(f: FleetForecast): string {
  const w = f.windowSources;
  const parts = [
    ...(w.windows > 0 ? [`${int(w.windows)} from --windows`] : []),
    ...(w.registry > 0 ? [`${int(w.registry)} from the registry`] : []),
    ...(w.span > 0 ? [`${int(w.span)} UNKNOWN, the span of their events used (give --window, or --windows <file> of "name-or-glob window" lines)`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : "each light's own (none replayed)";
}

/** The forecast under the table: the fleet's total (measured or extrapolated), what was replayed, and how. */
export function forecastLines(f: FleetForecast, windowSeconds: number | null): string[] {
  const lights = (n: number): string => `${int(n)} light${n === 1 ? '' : 's'}`;
  const now = f.currentBytes === null ? '' : ` (now ${kbText(f.currentBytes)} KB in their own layouts)`;
  const total =
    f.totalBytes === null
      ? 'nothing measured'
      : f.extrapolated
        ? `fleet ≈ ${kbText(f.totalBytes)} KB, EXTRAPOLATED from ${int(f.measured)} of ${lights(f.lights)}${now}`
        : `fleet ${kbText(f.totalBytes)} KB, measured${now}`;
  const lines = [
    `forecast in ${f.layout}: ${total}`,
    `  ${lights(f.measured)} replayed (${int(f.events)} events) on a private redis-server ${f.server.version} (${f.server.allocator})`,
    "  with bench's writer and injected clock, then MEMORY USAGE of their keys;",
    windowSeconds === null ? `  window: ${windowSourcesText(f)}` : `  window: ${windowSeconds} s (--window)`,
    `  what it is: ${f.comparison}`,
  ];
  if (f.extrapolated) lines.push(`  not sampled: ${lights(f.sampledOut)} (--forecast-sample ${f.sample}), counted at the measured lights' mean`);
  if (f.notReplayed > 0) lines.push(`  not replayed: ${lights(f.notReplayed)} (no events held, or a layout whose events swc does not read)`);
  if (f.partial) lines.push('  PARTIAL: stopped before every sampled light was replayed');
  return lines;
}

/** Lines under the table: one total per layout, the grand total, what --top hid, the window used, and the forecast. */
function footerLines(view: LightsView): string[] {
  const { list, matched, shown, totals } = view;
  const lines = totals.map((t) => totalLine(t, `total ${t.layout}`));
  lines.push(totalLine(grandTotal(totals), 'total'));
  for (const n of view.nodeTotals ?? []) {
    const kb = n.bytes === null ? 'n/a' : `${kbText(n.bytes)} KB`;
    lines.push(
      `node ${n.node}${n.slots !== undefined ? ` (slots ${n.slots})` : ''}: ${int(n.lights)} light${n.lights === 1 ? '' : 's'}, ${int(n.keys)} key${n.keys === 1 ? '' : 's'}, ${kb}`,
    );
  }
  if (shown.length < matched.length) lines.push(`showing ${int(shown.length)} of ${int(matched.length)} (--top); totals count all ${int(matched.length)}`);
  if (matched.length < list.lights.length) lines.push(`${int(list.lights.length - matched.length)} other light(s) filtered out (${filtersText(view)})`);
  const at = `${iso(list.at)} (${list.clock === 'server' ? 'server clock' : '--at'})`;
  lines.push(
    list.windowSeconds === null
      ? `idle and stale at ${at}; no --window:\n  6.0 buckets judged by each light's registered window_size, else never stale;\n  5.x events are stale when older than a day (its longest window)`
      : `idle and stale at ${at}; window ${list.windowSeconds} s`,
  );
  if (view.threshold !== undefined) {
    const over = matched.filter((l) => l.overThreshold === true).length;
    lines.push(`fail rate ≥: ${int(over)} light${over === 1 ? '' : 's'} at or over --threshold ${view.threshold} in the window`);
  }
  const unrated = shown.filter((l) => l.windowSuccesses === null).length;
  if (list.windowSeconds === null && unrated > 0) {
    lines.push(
      unrated === shown.length
        ? 'no failure rate without --window (e.g. --window 5m)'
        : `${int(unrated)} light${unrated === 1 ? '' : 's'} without a registered window: no failure rate without --window (e.g. --window 5m)`,
    );
  }
  if (view.threshold !== undefined && shown.some((l) => l.state === 'locked green')) {
    lines.push('locked green lights are never marked: Stoplight keeps them green whatever they fail');
  }
  // Each note once, with how many shown lights it applies to (recovered_at, the hour-key rule, no window configured).
  const notes = new Map<string, number>();
  for (const l of shown) {
    for (const raw of l.notes ?? []) {
      const note = raw.startsWith('starts at recovered_at') ? 'the window starts at recovered_at, not at now - window' : raw;
      notes.set(note, (notes.get(note) ?? 0) + 1);
    }
  }
  for (const [note, n] of notes) lines.push(`${int(n)} light${n === 1 ? '' : 's'}: ${note}`);
  const unnamed = shown.filter((l) => l.systemId !== null && (l.lightName === null || l.systemName === null)).length;
  if (unnamed > 0) lines.push(`${int(unnamed)} 6.0 light(s) shown with ids where no name is known: give --names <file> ("light" or "system/light" per line)`);
  for (const problem of list.problems.slice(0, 20)) lines.push(`problem: ${visible(problem)}`);
  if (list.problems.length > 20) lines.push(`… ${list.problems.length - 20} more problem(s) (--json lists all)`);
  if (list.leftovers.length > 0) {
    const keys = list.leftovers.reduce((sum, l) => sum + l.keys, 0);
    const named = list.leftovers
      .slice(0, 3)
      .map((l) => l.namespace)
      .join(', ');
    lines.push(
      `leftovers: ${list.leftovers.length} swc-bench namespace(s) with ${int(keys)} key(s) (${named}${list.leftovers.length > 3 ? ', …' : ''}): not lights; swc clean lists and removes them`,
    );
  }
  if (list.partial) {
    lines.push(
      'PARTIAL: stopped before the scan walked every key; lights and totals above are what it found so far, and no light is judged for drift (drift column: partial)',
    );
  }
  if (view.forecast) lines.push(...forecastLines(view.forecast, list.windowSeconds));
  return lines;
}

/** `swc lights` for a terminal, markdown or CSV (JSON is written by the command). */
export function renderLights(view: LightsView, format: Exclude<LightsFormat, 'json'>, color: boolean): string {
  if (format === 'csv') return `${renderCsv(lightsCsvGrid(view.shown))}\n`;
  const { list } = view;
  const where = list.nodes
    ? `on the ${list.nodes.length} primaries of this cluster (${list.nodes.join(', ')})`
    : view.server !== undefined
      ? `on ${visible(view.server)}`
      : 'on this server';
  if (list.lights.length === 0) {
    const extra = footerLines(view).filter((l) => /^(problem|leftovers|PARTIAL|…)/.test(l));
    return [`no light ${where} (no key matching ${list.patterns.map(visible).join(', ')})`, ...extra].join('\n') + '\n';
  }
  if (view.matched.length === 0) {
    const unnamed = list.lights.filter((l) => l.systemId !== null && l.lightName === null).length;
    // A glob can only match the names swc knows: say so when 6.0 lights without names were there to match.
    const hint = unnamed > 0 ? `; ${int(unnamed)} 6.0 light(s) have no known name for a pattern to match: give --names <file>, or a literal name (hashed)` : '';
    return `no light matched ${filtersText(view)} (${int(list.lights.length)} light(s) ${where})${hint}\n`;
  }
  // Markdown is read where it is rendered, not in this terminal: it keeps every column.
  const { columns, ...unbounded } = view;
  const grid = lightsGrid(format === 'markdown' || columns === undefined ? unbounded : { ...unbounded, columns });
  const footer = footerLines(view);
  if (format === 'markdown') {
    const escaped = { ...grid, rows: grid.rows.map((r) => r.map((cell) => cell.replace(/`/g, '\\`'))) };
    return `${view.server !== undefined ? `_Server: ${visible(view.server)}_\n\n` : ''}${renderMarkdown(escaped)}\n\n${footer.map((l) => `- ${l.replace(/\n +/g, ' ')}`).join('\n')}\n`;
  }
  const c = palette(color);
  const painted = { ...grid, rows: grid.rows.map((r) => r.map((cell) => (cell === 'DRIFT' || cell.endsWith(' ≥') ? c.red(cell) : cell))) };
  // The lines under the table break between words at the terminal's width, like the table itself.
  const width = columns === undefined || view.wide ? Number.POSITIVE_INFINITY : Math.max(MIN_COLUMNS, columns);
  const lines = [...(grid.notes ?? []), ...footer].map((l) => wrapText(l, width));
  const server = view.server !== undefined ? `${c.dim(`Server: ${visible(view.server)}`)}\n` : '';
  return `${server}${renderBox(painted, color)}\n${lines.join('\n')}\n`;
}

/** The order states are counted in by `lights -q`: the ones an operator acts on first. */
const STATE_ORDER = ['red', 'locked red', 'yellow', 'locked green', 'green'];

/**
 * `swc lights -q`: the headline in a few lines: the fleet's total, the
 * lights per state, the largest light (whole name), and any light with drift.
 */
export function renderQuietLights(view: Pick<LightsView, 'list' | 'matched' | 'totals'>): string {
  const { list, matched } = view;
  if (list.lights.length === 0) return `no light on this server (no key matching ${list.patterns.map(visible).join(', ')})\n`;
  if (matched.length === 0) return `no light matched the filters (${int(list.lights.length)} light(s) on this server)\n`;
  const lines = [totalLine(grandTotal(view.totals), 'total')];
  const states = new Map<string, number>();
  for (const l of matched) if (l.state !== null && l.state !== undefined) states.set(l.state, (states.get(l.state) ?? 0) + 1);
  if (states.size > 0) {
    const named = [...states].sort(([a], [b]) => (STATE_ORDER.indexOf(a) + 1 || 99) - (STATE_ORDER.indexOf(b) + 1 || 99));
    lines.push(`states: ${named.map(([state, n]) => `${int(n)} ${state}`).join(', ')}`);
  }
  const largest = matched.reduce<LightListing | undefined>((a, b) => (a === undefined || (b.bytes ?? -1) > (a.bytes ?? -1) ? b : a), undefined);
  if (largest) lines.push(`largest: ${visible(largest.name)} ${kbText(largest.bytes, largest.bytesExact)} KB`);
  const drifted = matched.filter((l) => l.drift === true);
  if (drifted.length > 0)
    lines.push(
      `drift: ${drifted
        .slice(0, 3)
        .map((l) => visible(l.name))
        .join(', ')}${drifted.length > 3 ? ` and ${int(drifted.length - 3)} more (without -q: all)` : ''}`,
    );
  if (list.partial) lines.push('PARTIAL: the scan stopped before it walked every key');
  return `${lines.join('\n')}\n`;
}
