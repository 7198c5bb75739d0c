import type { LayoutTotals, LightList, LightListing, NodeTotals } from '../layouts/inspection.js';
import { palette, visible } from './style.js';
import { renderBox, renderCsv, renderMarkdown, type Grid } from './table.js';

/** Output formats of `swc lights`; `--format` choices come from here. */
export const lightsFormats = ['table', 'json', 'csv', 'markdown'] as const;
export type LightsFormat = (typeof lightsFormats)[number];

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
}

const int = (n: number | null): string => (n === null ? '–' : Math.round(n).toLocaleString('en-US'));
/** KB (1024 bytes) with one decimal, grouped: one unit in the whole column. */
const kbText = (bytes: number | null, exact = true): string =>
  bytes === null ? 'n/a' : `${exact ? '' : '~'}${(bytes / 1024).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}`;
const iso = (second: number | null): string => (second === null ? '–' : new Date(second * 1000).toISOString().replace('.000Z', 'Z'));
const driftText = (drift: boolean | null): string => (drift === null ? '–' : drift ? 'DRIFT' : 'ok');

/** The layout the estimates are in, when every estimate names the same one. */
function estimateLayout(lights: readonly LightListing[]): string | null {
  const names = new Set(lights.flatMap((l) => (l.estimate ? [l.estimate.layout] : [])));
  return names.size === 1 ? ([...names][0] as string) : null;
}

/** The listing as a grid: narrow by default (fits 120 columns with names up to about 40 characters), more with `wide`. */
export function lightsGrid(view: Pick<LightsView, 'shown' | 'wide'>): Grid {
  const { shown, wide } = view;
  const estimated = estimateLayout(shown);
  const nodes = shown.some((l) => l.node !== undefined);
  const head = [
    'layout',
    'light',
    ...(nodes ? ['node'] : []),
    ...(wide ? ['keys'] : []),
    'KB',
    'events',
    'stale',
    ...(wide ? ['stale buckets'] : []),
    'idle s',
    'drift',
    ...(estimated ? [`${estimated} est. KB`] : []),
    ...(wide ? ['first event', 'last event'] : []),
  ];
  const rows = shown.map((l) => [
    l.layout,
    visible(l.reference),
    ...(nodes ? [l.node ?? '–'] : []),
    ...(wide ? [int(l.keys)] : []),
    kbText(l.bytes, l.bytesExact),
    int(l.events),
    int(l.staleEvents),
    ...(wide ? [int(l.staleBuckets)] : []),
    int(l.idleSeconds),
    driftText(l.drift),
    ...(estimated ? [l.estimate ? kbText(l.estimate.bytes) : '–'] : []),
    ...(wide ? [iso(l.firstSecond), iso(l.lastSecond)] : []),
  ]);
  const numeric = head.map((h) => !['layout', 'light', 'node', 'drift', 'first event', 'last event'].includes(h));
  return { head, rows, numeric };
}

/** Every field of every shown light, one row each, machine units (bytes, seconds). */
export function lightsCsvGrid(shown: readonly LightListing[]): Grid {
  const head = [
    'layout', 'reference', 'light', 'systemId', 'keys', 'bytes', 'bytesExact', 'events', 'staleEvents', 'staleBuckets',
    'idleSeconds', 'drift', 'firstSecond', 'lastSecond', 'spanSeconds', 'estimateLayout', 'estimateBytes', 'estimateWindowSeconds',
    ...(shown.some((l) => l.node !== undefined) ? ['node'] : []),
  ];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
  const rows = shown.map((l) =>
    [
      l.layout, l.reference, l.light, l.systemId, l.keys, l.bytes, l.bytesExact, l.events, l.staleEvents, l.staleBuckets,
      l.idleSeconds, l.drift, l.firstSecond, l.lastSecond, l.spanSeconds, l.estimate?.layout, l.estimate?.bytes, l.estimate?.windowSeconds,
      ...(head.length > 18 ? [l.node] : []),
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
    `, ${t.drifted} with drift`
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
    }),
    { lights: 0, keys: 0, bytes: 0 as number | null, events: 0 as number | null, staleEvents: 0 as number | null, drifted: 0 },
  );
}

/** Lines under the table: one total per layout, the grand total, what --top hid, the window used, and what the estimate is. */
function footerLines(view: LightsView): string[] {
  const { list, matched, shown, totals } = view;
  const lines = totals.map((t) => totalLine(t, `total ${t.layout}`));
  lines.push(totalLine(grandTotal(totals), 'total'));
  for (const n of view.nodeTotals ?? []) {
    const kb = n.bytes === null ? 'n/a' : `${kbText(n.bytes)} KB`;
    lines.push(`node ${n.node}${n.slots !== undefined ? ` (slots ${n.slots})` : ''}: ${int(n.lights)} light${n.lights === 1 ? '' : 's'}, ${int(n.keys)} key${n.keys === 1 ? '' : 's'}, ${kb}`);
  }
  if (shown.length < matched.length) lines.push(`showing ${int(shown.length)} of ${int(matched.length)} (--top); totals count all ${int(matched.length)}`);
  if (matched.length < list.lights.length) lines.push(`${int(list.lights.length - matched.length)} other light(s) filtered out (--system/--match)`);
  const at = `${iso(list.at)} (${list.clock === 'server' ? 'server clock' : '--at'})`;
  lines.push(
    list.windowSeconds === null
      ? `idle and stale at ${at}; no --window: 6.0 buckets are not judged stale (6.0 stores no window),\n  5.x events are stale when older than a day (its longest window)`
      : `idle and stale at ${at}; window ${list.windowSeconds} s`,
  );
  const estimated = estimateLayout(shown);
  if (estimated) {
    lines.push(
      `${estimated} est.: an estimate, not a measurement, of the same traffic in ${estimated}:`,
      `  the events in ${list.windowSeconds === null ? 'their own span (no --window)' : 'the window'}, spread over its seconds, at the bytes per second swc measured`,
    );
  }
  return lines;
}

/** `swc lights` for a terminal, markdown or CSV (JSON is written by the command). */
export function renderLights(view: LightsView, format: Exclude<LightsFormat, 'json'>, color: boolean): string {
  if (format === 'csv') return `${renderCsv(lightsCsvGrid(view.shown))}\n`;
  const { list } = view;
  const where = list.nodes ? `on the ${list.nodes.length} primaries of this cluster (${list.nodes.join(', ')})` : 'on this server';
  if (list.lights.length === 0) return `no light ${where} (no key matching ${list.patterns.map(visible).join(', ')})\n`;
  if (view.matched.length === 0) return `no light matched --system/--match (${int(list.lights.length)} light(s) on this server)\n`;
  const grid = lightsGrid(view);
  const footer = footerLines(view);
  if (format === 'markdown') {
    const escaped = { ...grid, rows: grid.rows.map((r) => r.map((cell) => cell.replace(/`/g, '\\`'))) };
    return `${renderMarkdown(escaped)}\n\n${footer.map((l) => `- ${l.replace(/\n +/g, ' ')}`).join('\n')}\n`;
  }
  const c = palette(color);
  const painted = { ...grid, rows: grid.rows.map((r) => r.map((cell) => (cell === 'DRIFT' ? c.red(cell) : cell))) };
  return `${renderBox(painted, color)}\n${footer.join('\n')}\n`;
}
