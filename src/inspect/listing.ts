import { readView, type ReadWhere } from '../run/read.js';
import type { LayoutTotals, LightList, LightListing, NodeTotals } from '../layouts/inspection.js';
import { addName, isLiteral, newNameBook, readNamesFile, type NameBook } from '../layouts/stoplight/names.js';
import type { ScanProgress } from '../redis/scan.js';
import type { FleetForecast } from './forecast.js';
import { listLights, nodeTotalsOf, selectLights, totalsOf, type LightSelection } from './list.js';

import { APPLICATION_LAYOUTS } from './list-options.js';

/** A primary of a cluster being listed: its `host:port` and the slots it serves. */
export interface ListedPrimary {
  readonly node: string;
  readonly slots: string;
}

/** What to list and how: `swc lights` and `swc inspect --list`. */
export interface ListingRequest extends LightSelection {
  /** Layouts to read: registered names, `all` (every registered one) or, when absent, an application's. */
  readonly layout?: string | readonly string[];
  readonly windowSeconds: number | null;
  readonly at?: number;
  readonly names: NameBook;
  /** A snapshot on swc's own server: no pause between SCAN calls is needed, and every MEMORY USAGE can be exact. */
  readonly snapshot?: boolean;
  /** Pause between SCAN calls in ms (default: the scan's own; 0 for a snapshot). */
  readonly scanPauseMs?: number;
  /** A fixed COUNT per SCAN call (default: adapted to the scan's per-call budget). */
  readonly scanCount?: number;
  readonly onProgress?: (progress: ScanProgress) => void;
  /** True once the scan should stop (Ctrl-C): the listing is then partial. */
  readonly stopped: () => boolean;
  /** On a cluster: which primary holds a key, and every primary. */
  readonly cluster?: { readonly nodeOf: (key: string) => string; readonly primaries: readonly ListedPrimary[] };
}

/** A listing: the lights found, the ones the filters matched and the ones to show, with their totals. */
export interface Listing {
  readonly list: LightList;
  readonly matched: readonly LightListing[];
  readonly shown: readonly LightListing[];
  readonly totals: readonly LayoutTotals[];
  /** On a cluster: totals per primary, with the slots it serves. */
  readonly nodeTotals?: readonly (NodeTotals & { slots?: string })[];
  readonly primaries?: readonly ListedPrimary[];
  /** With `--forecast`: the fleet's forecast (each matched light carries its own). */
  readonly forecast?: FleetForecast;
  /** The filters given, as typed (`--state red`, `--match 'check*'`): what a line about lights left out names. */
  readonly filters?: readonly string[];
}

/** The layouts a listing reads: the ones asked for, every registered one (`all`: undefined), or an application's. */
function layoutsOf(layout: ListingRequest['layout']): string[] | undefined {
  if (layout === 'all') return undefined;
  if (layout === undefined || layout === 'auto') return [...APPLICATION_LAYOUTS];
  return [layout].flat();
}

/** Scans the server once and returns the lights, filtered, sorted and totalled. */
export async function readListing(where: ReadWhere, request: ListingRequest): Promise<Listing> {
  // A cluster's shape comes from the Target when the request does not give one.
  const view = readView(where);
  if (request.cluster === undefined && view.nodeOf && view.primaries) request = { ...request, cluster: { nodeOf: view.nodeOf, primaries: view.primaries } };
  const only = layoutsOf(request.layout);
  const pauseMs = request.scanPauseMs ?? (request.snapshot ? 0 : undefined);
  const list = await listLights(view.redis, {
    ...(only ? { only } : {}),
    ...(request.cluster ? { nodeOf: request.cluster.nodeOf, nodes: request.cluster.primaries.map((p) => p.node) } : {}),
    windowSeconds: request.windowSeconds,
    ...(request.at !== undefined ? { at: request.at } : {}),
    names: request.names,
    ...(request.snapshot ? { exactMemory: true, snapshot: true } : {}),
    scan: {
      ...(pauseMs !== undefined ? { pauseMs } : {}),
      ...(request.scanCount !== undefined ? { count: request.scanCount } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      stopped: request.stopped,
    },
  });
  const { matched, shown } = selectLights(list, {
    ...(request.sort ? { sort: request.sort } : {}),
    ...(request.top !== undefined ? { top: request.top } : {}),
    ...(request.system !== undefined ? { system: request.system } : {}),
    ...(request.match !== undefined ? { match: request.match } : {}),
    ...(request.threshold !== undefined ? { threshold: request.threshold } : {}),
    ...(request.states !== undefined ? { states: request.states } : {}),
  });
  const primaries = request.cluster?.primaries;
  const nodeTotals = list.nodes
    ? nodeTotalsOf(matched, list.nodes).map((t) => {
        const slots = primaries?.find((p) => p.node === t.node)?.slots;
        return slots === undefined ? t : { ...t, slots };
      })
    : undefined;
  const filters = [
    ...(request.system !== undefined ? [`--system ${request.system}`] : []),
    ...(request.match !== undefined ? [`--match ${request.match}`] : []),
    ...(request.states !== undefined ? [`--state ${request.states.join(',')}`] : []),
  ];
  return {
    list,
    matched,
    shown,
    totals: totalsOf(matched),
    ...(nodeTotals ? { nodeTotals } : {}),
    ...(primaries ? { primaries } : {}),
    ...(filters.length > 0 ? { filters } : {}),
  };
}

/** The names a listing or an inspection can show for 6.0 ids: `--names`, and a literal `--system` / `--match` (hashed by swc). */
export function nameBookOf(flags: { readonly names?: string; readonly system?: string; readonly match?: string }): NameBook {
  const book = newNameBook();
  if (flags.names !== undefined) readNamesFile(flags.names, book);
  if (flags.system !== undefined && !/^[0-9a-f]{12}$/.test(flags.system)) addName(book, null, flags.system);
  if (flags.match !== undefined && isLiteral(flags.match)) addName(book, flags.match);
  return book;
}
