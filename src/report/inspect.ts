import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import type { BucketInspection, EventInspection, Inspection, KeyInspection, KeysInspection, LightMetadata } from '../layouts/inspection.js';
import { palette, serverLine, visible } from './style.js';
import { ExitCode } from '../core/errors.js';
import { unavailableNotes } from './listing.js';
import { MAX_LISTED_ROWS, MAX_METADATA_FIELDS } from './inspect-limits.js';
import { maxOf } from '../core/arrays.js';
import { drawRows, ROWS_PER_DRAW } from './table.js';

/** How to render an inspection. */
export interface InspectRenderOptions {
  readonly color: boolean;
  /** Most recent buckets or seconds with events to list. */
  readonly limit: number;
  /** Draw the traffic sparkline (a terminal that shows block characters). */
  readonly picture: boolean;
  /** Key names and slots inside the keys table (wider than 120 columns). */
  readonly wide?: boolean;
  /** The terminal's width (80 at the least): tables drop columns and long text is cut so no row wraps; `wide` ignores it. */
  readonly columns?: number;
  /** The server read (without credentials, or the snapshot) and what was not measured there: the first line. */
  readonly server?: InspectServer;
}

/** Where an inspection read, and what it could not measure there. */
export interface InspectServer {
  readonly where: string;
  readonly notMeasured: readonly string[];
}

/**
 * What an inspection could not measure where it read: each figure the
 * server refused (MEMORY, CONFIG), and with `--rdb` the live server's bytes.
 */
export function inspectNotMeasured(inspections: readonly Inspection[], snapshot: boolean): string[] {
  return [
    ...new Set([
      ...inspections.flatMap((i) => i.unavailable),
      ...(snapshot ? ["the live server's bytes (--rdb: a freshly loaded snapshot's; see the note on stderr)"] : []),
    ]),
  ];
}

export { MAX_LISTED_ROWS } from './inspect-limits.js';

/** Narrower terminals still get 80 columns. */
const MIN_COLUMNS = 80;

/** The width a rendered table takes: its longest line, colours left out. */
function renderedWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map((l) => [...l.replace(/\x1b\[[0-9;]*m/g, '')].length));
}

/** A line of prose broken between words to fit `limit`; later lines indented 9 (under the text after a label). */
function wrapProse(line: string, limit: number): string {
  const plain = (t: string): number => [...t.replace(/\x1b\[[0-9;]*m/g, '')].length;
  if (plain(line) <= limit) return line;
  const out: string[] = [];
  let rest = line;
  while (plain(rest) > limit) {
    const window = rest.slice(0, limit + 1);
    const at = window.lastIndexOf(' ', limit);
    if (at <= 10) break;
    out.push(rest.slice(0, at).trimEnd());
    rest = `         ${rest.slice(at + 1).trimStart()}`;
  }
  out.push(rest);
  return out.join('\n');
}

/** Cuts text to `max` characters, the cut marked with `…`. */
function cutText(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

/**
 * A table that fits `limit` columns: it is drawn with every column, then
 * without the first of `dropOrder` still in it, and so on until it fits (or
 * nothing is left to drop). Rows are never wrapped.
 */
function fittedTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  draw: (head: string[], rows: string[][]) => string,
  limit: number | undefined,
  dropOrder: readonly string[],
): string {
  let keep = head.map((_, i) => i);
  const render = (): string =>
    draw(
      keep.map((i) => head[i] as string),
      rows.map((r) => keep.map((i) => r[i] as string)),
    );
  let text = render();
  for (const name of dropOrder) {
    if (limit === undefined || renderedWidth(text) <= limit) break;
    const index = head.indexOf(name);
    if (index < 0 || !keep.includes(index)) continue;
    keep = keep.filter((i) => i !== index);
    text = render();
  }
  return text;
}

const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/** Columns of the sparkline at most; wider windows are summed into columns. */
const SPARK_WIDTH = 60;

/** A Unix second as `2025-11-29T21:00:00Z`; `?` for a second no date can hold. */
export function isoSecond(second: number): string {
  const date = new Date(second * 1000);
  return Number.isNaN(date.getTime()) ? `? (${second})` : date.toISOString().replace('.000Z', 'Z');
}

/** Unix seconds with a fraction as ISO with milliseconds (`2026-11-30T12:34:38.940Z`); whole seconds without them. */
export function isoStamp(seconds: number): string {
  if (Number.isInteger(seconds)) return isoSecond(seconds);
  const date = new Date(Math.round(seconds * 1000));
  return Number.isNaN(date.getTime()) ? `? (${seconds})` : date.toISOString();
}

function table(head: string[], c: ChalkInstance, color: boolean, right: readonly string[] = []): Table.Table {
  return new Table({
    head: head.map((h) => c.bold(h)),
    style: { head: [], border: color ? ['grey'] : [], compact: true },
    colAligns: head.map((h) => (right.includes(h) ? 'right' : 'left')),
  });
}

/** The table {@link table} draws of `rows` under `head`, drawn in parts of `per` rows (see {@link drawRows}). */
export function rowsTable(
  head: string[],
  rows: readonly (readonly Table.Cell[])[],
  c: ChalkInstance,
  color: boolean,
  right: readonly string[] = [],
  per = ROWS_PER_DRAW,
): string {
  return drawRows(() => table(head, c, color, right), rows, per);
}

/**
 * Events per second from `from` to `to` as a line of block characters, each
 * column the sum of `ceil(seconds / 60)` seconds; a blank column saw nothing.
 */
export function sparkline(points: ReadonlyArray<{ second: number; events: number }>, from: number, to: number): string {
  const seconds = to - from + 1;
  if (seconds <= 0) return '';
  const per = Math.ceil(seconds / SPARK_WIDTH);
  const columns = new Array<number>(Math.ceil(seconds / per)).fill(0);
  for (const point of points) {
    if (point.second < from || point.second > to) continue;
    const column = Math.floor((point.second - from) / per);
    columns[column] = (columns[column] ?? 0) + point.events;
  }
  const max = Math.max(...columns);
  return columns.map((v) => (v === 0 ? ' ' : (SPARKS[Math.min(SPARKS.length - 1, Math.floor((v / max) * SPARKS.length))] as string))).join('');
}

/** Sums of successes and failures per column over `from..to`, as {@link sparkline} groups seconds. */
function columnsOf(points: ReadonlyArray<OutcomePoint>, from: number, to: number, width = SPARK_WIDTH): { successes: number; failures: number }[] {
  const seconds = to - from + 1;
  const per = Math.ceil(seconds / width);
  const columns = Array.from({ length: Math.ceil(seconds / per) }, () => ({ successes: 0, failures: 0 }));
  for (const p of points) {
    if (p.second < from || p.second > to) continue;
    const column = columns[Math.floor((p.second - from) / per)];
    if (!column) continue;
    column.successes += p.successes;
    column.failures += p.failures;
  }
  return columns;
}

/** One block per column for values scaled to `max`; a blank column is zero (or nothing to rate). */
function blocks(values: readonly (number | null)[], max: number): string {
  return values
    .map((v) => (v === null || v <= 0 || max <= 0 ? ' ' : (SPARKS[Math.min(SPARKS.length - 1, Math.floor((v / max) * SPARKS.length))] as string)))
    .join('');
}

/** A second's successes and failures, for the pictures of a light over time. */
export interface OutcomePoint {
  readonly second: number;
  readonly successes: number;
  readonly failures: number;
}

/**
 * Failures apart from successes over time: a line of successes and one of
 * failures (each on its own scale, so a few failures still show), and the
 * failure rate per column on a fixed 0–100% scale, where a burst of
 * failures stands out whatever the traffic.
 */
export function outcomeLines(points: ReadonlyArray<OutcomePoint>, from: number, to: number, width = SPARK_WIDTH): string[] {
  if (to < from) return [];
  const columns = columnsOf(points, from, to, width);
  const per = Math.ceil((to - from + 1) / width);
  const maxS = Math.max(0, ...columns.map((c) => c.successes));
  const maxF = Math.max(0, ...columns.map((c) => c.failures));
  const rates = columns.map((c) => (c.successes + c.failures === 0 ? null : c.failures / (c.successes + c.failures)));
  const unit = per === 1 ? 'per second' : `per ${per} s`;
  const peak = Math.max(0, ...rates.map((r) => r ?? 0));
  return [
    `successes │${blocks(
      columns.map((c) => c.successes),
      maxS,
    )}│ max ${maxS} ${unit}`,
    `failures  │${blocks(
      columns.map((c) => c.failures),
      maxF,
    )}│ max ${maxF} ${unit}`,
    `fail rate │${blocks(
      rates.map((r) => (r === null ? null : Math.max(r, 0.0001))),
      1,
    )}│ 0–100%, peak ${(peak * 100).toFixed(0)}%`,
    `           ${isoSecond(from)} .. ${isoSecond(to)}`,
  ];
}

/** Bytes for people in running text; `n/a` when the server refused MEMORY. */
function bytesText(bytes: number | null, exact = true): string {
  if (bytes === null) return 'n/a';
  const text = bytes >= 10 * 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 10_240 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} B`;
  return exact ? text : `~${text}`;
}

/** Bytes in a column of bytes: a bare grouped number (`~` when sampled), `n/a` when refused. */
function bytesCell(bytes: number | null, exact = true): string {
  if (bytes === null) return 'n/a';
  return `${exact ? '' : '~'}${bytes.toLocaleString('en-US')}`;
}

function limitText(value: number, limit: number | null, c: ChalkInstance): string {
  const text = `${value}/${limit ?? '?'}`;
  if (limit === null) return text;
  if (value > limit) return c.red(text);
  return value >= 0.8 * limit ? c.yellow(text) : text;
}

/**
 * The keys: by default numbered, their names and slots listed above a
 * table of roles, so it fits 120 columns whatever the names; `wide` puts
 * the names and slots in the table.
 */
function keysTable(keys: readonly KeyInspection[], c: ChalkInstance, color: boolean, wide: boolean, columns?: number): string {
  const nodes = keys.some((key) => key.node !== undefined);
  const head = [
    ...(wide ? ['key'] : ['#', 'role']),
    'type',
    'encoding',
    'elements',
    'bytes',
    'ttl s',
    ...(wide ? ['slot'] : []),
    ...(wide && nodes ? ['node'] : []),
    'entries/limit',
    'longest B/limit',
  ];
  const right = ['#', 'elements', 'bytes', 'ttl s', 'slot', 'entries/limit'];
  const limit = wide || columns === undefined ? undefined : Math.max(MIN_COLUMNS, columns);
  // The label of the longest element (a field or member name) is cut first when the table does not fit.
  const labelMax = limit === undefined ? Number.POSITIVE_INFINITY : 24;
  const rows = keys.map((key, i) => {
    const type = key.wrongType ? c.red(`${key.type} (expected ${key.expectedType})`) : key.type;
    const limits = key.limits;
    return [
      ...(wide ? [visible(key.key)] : [String(i + 1), visible(key.role)]),
      type,
      key.encoding ?? '–',
      key.elements === null ? '–' : key.elements.toLocaleString('en-US'),
      bytesCell(key.bytes, key.bytesExact),
      key.ttlSeconds === null ? 'none' : key.ttlSeconds.toLocaleString('en-US'),
      ...(wide ? [String(key.slot)] : []),
      ...(wide && nodes ? [key.node ?? '–'] : []),
      limits ? limitText(key.elements ?? 0, limits.entriesLimit, c) : '–',
      limits ? limitText(limits.longestBytes, limits.valueLimit, c) + (limits.longest ? ` ${cutText(visible(limits.longest), labelMax)}` : '') : '–',
    ];
  });
  const draw = (h: string[], r: string[][]): string => {
    const t = table(h, c, color, right);
    for (const row of r) t.push(row);
    return t.toString();
  };
  let drawn = fittedTable(head, rows, draw, limit, ['ttl s', 'encoding', '#']);
  if (limit !== undefined && renderedWidth(drawn) > limit) {
    // Still too wide: the labels give up what is left over, down to none.
    const budget = Math.max(0, labelMax - (renderedWidth(drawn) - limit));
    const cutRows = rows.map((row, i) => {
      const limits = keys[i]?.limits;
      if (!limits?.longest) return row;
      const label = budget > 1 ? ` ${cutText(visible(limits.longest), budget - 1)}` : '';
      return [...row.slice(0, -1), limitText(limits.longestBytes, limits.valueLimit, c) + label];
    });
    drawn = fittedTable(head, cutRows, draw, limit, ['ttl s', 'encoding', '#']);
  }
  if (wide) return drawn;
  const names = keys.map((key, i) => `  ${i + 1}  ${visible(key.key)}  (slot ${key.slot}${key.node !== undefined ? ` on ${key.node}` : ''})`);
  return [c.bold('keys'), ...names, drawn].join('\n');
}

function metadataLines(metadata: LightMetadata, c: ChalkInstance, columns?: number): string[] {
  const entries = Object.entries(metadata.fields);
  if (entries.length === 0) return [`${c.bold('metadata')}  none`];
  // A hash's fields are the server's to count (150,000 junk fields overflowed a spread): listed up to a bound, the rest counted.
  const listed = entries.slice(0, MAX_METADATA_FIELDS);
  const width = maxOf(listed.map(([name]) => visible(name).length));
  const lines = [c.bold('metadata')];
  for (const [name, value] of listed) {
    const stamp = /_at$/.test(name) && /^\d+(\.\d+)?$/.test(value) && Number(value) < 1e11 ? Number(value) : null;
    // 6.0 stores float seconds (1796140478.9400001): shown to the millisecond, with the ISO time.
    const shownValue = stamp === null ? visible(value) : Number.isInteger(stamp) ? value : stamp.toFixed(3);
    const when = stamp === null ? '' : `  (${isoStamp(stamp)})`;
    const line = `  ${visible(name).padEnd(width)}  ${shownValue}${when}`;
    // A long value (an error's JSON) is cut at the terminal's edge, its length said; --json has it whole.
    lines.push(columns === undefined || [...line].length <= columns ? line : `${cutText(line, Math.max(MIN_COLUMNS, columns) - 14)} (${value.length} B)`);
  }
  if (entries.length > listed.length)
    lines.push(`  ${c.yellow(`… and ${(entries.length - listed.length).toLocaleString('en-US')} more fields (--json lists them all)`)}`);
  if (metadata.lastErrorInvalid) lines.push(`  ${c.yellow('last_error_json is not valid JSON')}`);
  else if (metadata.lastError !== null) lines.push(`  ${'last error'.padEnd(width)}  ${describeError(metadata.lastError)}`);
  return lines;
}

/** Stoplight stores `{"error":{"class":…,"message":…},"time":…}`; anything else is shown as JSON. */
function describeError(error: unknown): string {
  const inner = (error as { error?: { class?: unknown; message?: unknown } } | null)?.error;
  if (inner && typeof inner.class === 'string') {
    return visible(typeof inner.message === 'string' ? `${inner.class}: ${inner.message}` : inner.class);
  }
  return visible(JSON.stringify(error));
}

/** The time of day of a moment, `07:23:45` (UTC), for "red since …". */
function clockTime(second: number): string {
  return new Date(second * 1000).toISOString().slice(11, 19);
}

/** `state: red since 07:23:45 (breached by consecutive errors (3 now): Timeout)`, as Stoplight decides it; nothing for layouts without state. */
function stateLines(inspection: Inspection, c: ChalkInstance): string[] {
  const state = inspection.state;
  if (!state) return [];
  const paint = state.state.endsWith('red') ? c.red : state.state === 'yellow' ? c.yellow : c.green;
  const since = state.since === null ? '' : ` since ${clockTime(state.since)}`;
  return [`${c.bold('state')}  ${paint(state.state)}${since} (${visible(state.reason)})`];
}

/** What moved the window (the hour-key rule; recovered_at is said beside it where the layout keeps it), or what the light lacks. */
function windowNoteText(inspection: Inspection): string {
  const notes = (inspection.windowNotes ?? []).filter((n) => !n.startsWith('starts at recovered_at'));
  return notes.length === 0 ? '' : `; ${notes.join('; ')}`;
}

function windowLine(inspection: Inspection): string {
  return windowBase(inspection) + windowNoteText(inspection);
}

function windowBase(inspection: Inspection): string {
  const { window } = inspection;
  const clock = window.clock === 'server' ? 'server clock' : '--at';
  if (window.lengthSeconds === null) {
    // Undecoded keys have no buckets to call stale.
    if (inspection.kind === 'keys') return `now ${isoSecond(window.at)} (${clock})`;
    return `no window given (--window): no bucket judged stale, no error rate; now ${isoSecond(window.at)} (${clock})`;
  }
  const from = window.fromSecond ?? window.at;
  const source =
    window.source === 'layout'
      ? ' (no --window: the longest this layout honours)'
      : window.source === 'registry'
        ? " (no --window: the light's registered window_size)"
        : '';
  return `window ${window.lengthSeconds} s${source}: ${isoSecond(from)} .. ${isoSecond(window.at)} (${clock})`;
}

/** 6.0: the config the light is judged by with each value's source, how close it is to tripping, and how it was found. */
function configLines(inspection: BucketInspection, c: ChalkInstance): string[] {
  const config = inspection.config;
  if (!config) return [];
  const part = (label: string, v: { value: unknown; from: string | null }, unit = ''): string =>
    v.value === null ? `${label} not known` : `${label} ${String(v.value)}${unit} (${v.from ?? 'source not known'})`;
  const lines = [
    `${c.bold('config')}  ${[
      part('strategy', config.trafficControl),
      part('threshold', config.threshold),
      part('window', config.windowSeconds, ' s'),
      part('cool-off', config.coolOffSeconds, ' s'),
    ].join(' · ')}`,
    `${c.bold('tripping')}  ${trippingText(inspection)}`,
  ];
  if (inspection.keyKinds) lines.push(`${c.bold('kept')}  ${inspection.keyKinds.join(', ') || 'nothing'}`);
  if (inspection.lookup) lines.push(`${c.bold('found')}  ${visible(inspection.lookup)}`);
  return lines;
}

/** `2/3 consecutive errors (3 stored, 2 failures in the window)` or `66.7% of 50%, 3 of 10 requests`, or why it is unknown. */
function trippingText(inspection: BucketInspection): string {
  const t = inspection.tripping;
  if (!t) return inspection.trippingUnknown ?? 'unknown';
  const trips = t.ratio >= 1 ? ': trips' : '';
  if (t.trafficControl === 'consecutive_errors') {
    const clamp = t.windowFailures === undefined ? '' : ` (${t.consecutiveErrors ?? t.value} stored, ${t.windowFailures} failures in the window)`;
    return `${t.value}/${t.threshold} consecutive errors${clamp}${trips}`;
  }
  return `error rate ${(t.value * 100).toFixed(1)}% of ${(t.threshold * 100).toFixed(0)}%, ${t.requests ?? 0} of at least ${t.minRequests ?? 0} requests${trips}`;
}

function percentText(rate: number | null): string {
  return rate === null ? 'n/a (no events)' : `${(rate * 100).toFixed(1)}%`;
}

function summaryLine(inspection: Inspection, c: ChalkInstance): string {
  const { summary } = inspection;
  const perSecond =
    summary.bytes === null
      ? 'bytes unavailable'
      : summary.bytesPerEvent !== null
        ? `${bytesText(Math.round(summary.bytesPerEvent))} per event held`
        : summary.bytesPerWindowSecond !== null
          ? `${bytesText(Math.round(summary.bytesPerWindowSecond))} per second of window`
          : // Not "no window": the light may well have one (a registry's, its config); this read was given none.
            'per second of window: give --window';
  // A layout read from its key templates is not decoded, so it has no counts to rate.
  const n = inspection.keys.length;
  const rate =
    inspection.kind === 'keys'
      ? `${n} key${n === 1 ? '' : 's'}`
      : inspection.windowTotals === null
        ? 'error rate: no window given (--window)'
        : `error rate ${percentText(summary.errorRate)} in the window`;
  return `${c.bold('summary')}  ${rate} · ${bytesText(
    summary.bytes,
    inspection.keys.every((k) => k.bytesExact),
  )} · ${perSecond}`;
}

function pictureLine(inspection: Inspection, points: OutcomePoint[], columns?: number): string | null {
  const { window } = inspection;
  const from = window.fromSecond ?? points[0]?.second;
  const to = window.fromSecond === null ? points[points.length - 1]?.second : window.at;
  if (from === undefined || to === undefined) return null;
  // The labels and scale take about 36 columns; the blocks get the rest, up to 60.
  const width = columns === undefined ? SPARK_WIDTH : Math.max(20, Math.min(SPARK_WIDTH, Math.max(MIN_COLUMNS, columns) - 36));
  return outcomeLines(points, from, to, width).join('\n');
}

function renderBuckets(inspection: BucketInspection, options: InspectRenderOptions, c: ChalkInstance): string[] {
  const { buckets, totals } = inspection;
  const lines: string[] = [
    `${c.bold(inspection.layout)}  ${visible(`${inspection.systemName ?? inspection.systemId}/${inspection.lightName ?? inspection.lightId}`)}  (system id ${inspection.systemId}, light id ${inspection.lightId})`,
    ...stateLines(inspection, c),
    ...configLines(inspection, c),
    windowLine(inspection),
    keysTable(inspection.keys, c, options.color, options.wide === true, options.columns),
  ];
  if (options.picture) {
    const line = pictureLine(inspection, buckets, options.wide === true ? undefined : options.columns);
    if (line) lines.push(line);
  }
  const shown = buckets.slice(Math.max(0, buckets.length - Math.min(options.limit, MAX_LISTED_ROWS)));
  const stale = buckets.filter((b) => b.stale).length;
  const future = buckets.filter((b) => b.future).length;
  const notes = [
    ...(stale > 0 ? [`${stale} stale: outside the window, not evicted yet`] : []),
    ...(future > 0 ? [`${future} after the time judged at, not counted`] : []),
  ];
  lines.push(
    `${c.bold('buckets')}  ${buckets.length}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}` +
      (shown.length < buckets.length ? `, the last ${shown.length} shown (--limit)` : ''),
  );
  if (shown.length > 0) {
    // Without --window no bucket is in or out of a window: the state column then only marks buckets after --at.
    const windowed = inspection.window.lengthSeconds !== null;
    const stateColumn = windowed || future > 0;
    const rows = shown.map((b) => {
      const state = b.stale ? c.yellow('stale') : b.future ? c.yellow('after --at') : windowed ? 'in window' : '';
      return [isoSecond(b.second), b.ageSeconds, b.successes, b.failures, ...(stateColumn ? [state] : [])];
    });
    lines.push(
      rowsTable(['time', 'age s', 'successes', 'failures', ...(stateColumn ? ['state'] : [])], rows, c, options.color, ['age s', 'successes', 'failures']),
    );
  }
  const inWindow =
    inspection.windowTotals === null ? 'no window given (--window)' : `${inspection.windowTotals.successes} / ${inspection.windowTotals.failures}`;
  lines.push(
    `${c.bold('totals')}   successes ${totals.successes}  failures ${totals.failures}  (held in the buckets; in the window: ${inWindow}; ` +
      `stored running totals ${inspection.storedTotals.successes} / ${inspection.storedTotals.failures})`,
  );
  lines.push(...driftLines(inspection, c));
  lines.push(...metadataLines(inspection.metadata, c, options.wide === true ? undefined : options.columns));
  lines.push(summaryLine(inspection, c));
  return lines;
}

function listSeconds(seconds: readonly number[]): string {
  const shown = seconds.slice(0, 10).map(isoSecond).join(', ');
  return seconds.length > 10 ? `${shown}, … (${seconds.length} in all)` : shown;
}

function driftLines(inspection: BucketInspection, c: ChalkInstance): string[] {
  const { drift } = inspection;
  const stored = inspection.storedTotals;
  if (drift.ok) {
    return [`${c.bold('drift')}    ${c.green('ok')}: totals equal the sum of the buckets, index and buckets agree`];
  }
  const lines = [`${c.bold('drift')}    ${c.red('found')}`];
  if (!drift.totalsOk) {
    lines.push(
      `  stored totals ${stored.successes} / ${stored.failures} (total_successes / total_failures) but the buckets sum to ${drift.bucketSum.successes} / ${drift.bucketSum.failures}` +
        ` (successes ${signed(stored.successes - drift.bucketSum.successes)}, failures ${signed(stored.failures - drift.bucketSum.failures)})`,
    );
  }
  if (drift.indexWithoutBucket.length > 0) lines.push(`  indexed, no counters: ${listSeconds(drift.indexWithoutBucket)}`);
  if (drift.bucketWithoutIndex.length > 0) lines.push(`  counters, not indexed: ${listSeconds(drift.bucketWithoutIndex)}`);
  if (drift.badIndexMembers.length > 0) lines.push(`  malformed index members: ${drift.badIndexMembers.slice(0, 10).map(visible).join(', ')}`);
  if (drift.unknownFields.length > 0) lines.push(`  unknown hash fields: ${drift.unknownFields.slice(0, 10).map(visible).join(', ')}`);
  return lines;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

function renderEvents(inspection: EventInspection, options: InspectRenderOptions, c: ChalkInstance): string[] {
  const lines: string[] = [
    `${c.bold(inspection.layout)}  ${visible(inspection.light)}`,
    ...stateLines(inspection, c),
    windowLine(inspection) + (inspection.recoveredAt === null ? '' : ` (starts at recovered_at ${isoSecond(inspection.recoveredAt)})`),
    keysTable(inspection.keys, c, options.color, options.wide === true, options.columns),
  ];
  if (inspection.hours.length > 0) {
    const rows = inspection.hours.map((h) => [
      isoSecond(h.hour),
      visible(h.outcome),
      h.events.toLocaleString('en-US'),
      h.firstSecond === null ? '–' : isoSecond(h.firstSecond),
      h.lastSecond === null ? '–' : isoSecond(h.lastSecond),
    ]);
    const draw = (head: string[], r: string[][]): string => {
      const t = table(head, c, options.color, ['events']);
      for (const row of r) t.push(row);
      return t.toString();
    };
    const limit = options.wide === true || options.columns === undefined ? undefined : Math.max(MIN_COLUMNS, options.columns);
    lines.push(c.bold('hour keys'), fittedTable(['hour', 'outcome', 'events', 'first', 'last'], rows, draw, limit, ['first']));
  }
  if (options.picture) {
    const line = pictureLine(inspection, inspection.seconds, options.wide === true ? undefined : options.columns);
    if (line) lines.push(line);
  }
  const live = inspection.seconds.filter((s) => !s.stale);
  const shown = live.slice(Math.max(0, live.length - Math.min(options.limit, MAX_LISTED_ROWS)));
  lines.push(
    `${c.bold('seconds')}  ${live.length} with events in the window, ${inspection.seconds.length - live.length} outside it (still held)` +
      (shown.length < live.length ? `, the last ${shown.length} shown (--limit)` : ''),
  );
  if (shown.length > 0) {
    const rows = shown.map((s) => [isoSecond(s.second), s.ageSeconds, s.successes, s.failures]);
    lines.push(rowsTable(['time', 'age s', 'successes', 'failures'], rows, c, options.color, ['age s', 'successes', 'failures']));
  }
  lines.push(
    `${c.bold('totals')}   successes ${inspection.totals.successes}  failures ${inspection.totals.failures}  (held in the hour keys; in the window: ` +
      `${inspection.windowTotals.successes} / ${inspection.windowTotals.failures})`,
  );
  lines.push(...metadataLines(inspection.metadata, c, options.wide === true ? undefined : options.columns));
  lines.push(summaryLine(inspection, c));
  return lines;
}

function renderKeys(inspection: KeysInspection, options: InspectRenderOptions, c: ChalkInstance): string[] {
  return [
    `${c.bold(inspection.layout)}  ${visible(inspection.light)}`,
    windowLine(inspection),
    keysTable(inspection.keys, c, options.color, options.wide === true, options.columns),
    summaryLine(inspection, c),
  ];
}

/** Renders one inspection by the shape of what was decoded. */
function renderOne(inspection: Inspection, options: InspectRenderOptions, c: ChalkInstance): string[] {
  switch (inspection.kind) {
    case 'buckets':
      return renderBuckets(inspection, options, c);
    case 'events':
      return renderEvents(inspection, options, c);
    case 'keys':
      return renderKeys(inspection, options, c);
  }
}

/**
 * On Redis Cluster: which primary holds the light, and in which slot(s);
 * null on a single server.
 */
export function clusterLine(inspection: Inspection): string | null {
  const placed = inspection.keys.filter((key) => key.node !== undefined);
  if (placed.length === 0) return null;
  const byNode = new Map<string, Set<number>>();
  for (const key of placed) byNode.set(key.node as string, (byNode.get(key.node as string) ?? new Set()).add(key.slot));
  const parts = [...byNode].map(([node, slots]) => `${node} (slot${slots.size === 1 ? '' : 's'} ${[...slots].sort((a, b) => a - b).join(', ')})`);
  return byNode.size === 1 ? `cluster node: ${parts[0]}` : `cluster nodes: the keys span ${byNode.size} primaries: ${parts.join(', ')}`;
}

/** Renders the inspections of one light (one per layout found) for a terminal. */
export function renderInspections(inspections: readonly Inspection[], options: InspectRenderOptions): string {
  const c = palette(options.color);
  const blocks = inspections.map((inspection) => {
    const lines = renderOne(inspection, options, c);
    const where = clusterLine(inspection);
    if (where !== null) lines.splice(1, 0, where);
    const text = lines.join('\n');
    if (options.wide === true || options.columns === undefined) return text;
    const limit = Math.max(MIN_COLUMNS, options.columns);
    return text
      .split('\n')
      .map((line) => (/^[┌│├└]/.test(line) || /^\S+ +│/.test(line) ? line : wrapProse(line, limit)))
      .join('\n');
  });
  const { server } = options;
  if (server === undefined) return `${blocks.join('\n\n')}\n`;
  const line = serverLine(visible(server.where), server.notMeasured.map(visible));
  const first = options.wide === true || options.columns === undefined ? line : wrapProse(line, Math.max(MIN_COLUMNS, options.columns));
  return `${c.dim(first)}\n${blocks.join('\n\n')}\n`;
}

/**
 * What inspect says on stderr after the inspection: each unreadable figure's
 * note, each problem and each key changed while being read, and the drift
 * `--check` asks about; with the exit code they call for (1 for a problem,
 * or drift with `check`).
 */
export function inspectionWarnings(inspections: readonly Inspection[], check: boolean): { lines: string[]; code: number } {
  const lines = unavailableNotes(inspections.flatMap((i) => i.unavailable));
  let problem = false;
  for (const inspection of inspections) {
    for (const text of inspection.problems) {
      lines.push(`swc: warning: ${visible(text)}`);
      problem = true;
    }
    if (!inspection.consistent) {
      lines.push(
        `swc: warning: ${inspection.layout} keys of ${visible(inspection.light)} changed while being read (writes in progress); figures may mix two moments`,
      );
    }
  }
  const drifted = inspections.filter((i) => i.kind === 'buckets' && !i.drift.ok);
  if (check && drifted.length > 0) {
    lines.push(`swc: drift in ${drifted.map((i) => `${i.layout} ${visible(i.light)}`).join(', ')} (--check)`);
    return { lines, code: ExitCode.finding };
  }
  return { lines, code: problem ? ExitCode.finding : ExitCode.ok };
}
