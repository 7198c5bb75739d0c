import { isoMoment, jsonText } from '../core/format.js';
import { ExitCode } from '../core/errors.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';
import type { Listing } from '../inspect/listing.js';
import type { ScanProgress } from '../redis/scan.js';
import { grandTotal, lightsCsvGrid, renderLights, renderQuietLights } from './lights.js';
import { CLIENT_CSV_HEAD, clientCsvRow, renderClientKeys, ttlNotice } from './client-keys.js';
import { renderCsv } from './table.js';
import type { LightsFormat } from './lights-formats.js';
import { visible } from './style.js';

/** What --rdb bytes are not: the live server's (docs/operator.md, "Offline: an RDB snapshot"). */
export const RDB_BYTES_NOTE =
  "--rdb bytes are a freshly loaded snapshot's, settled as bench measures (no rehash under way), not the live server's: loading rebuilds every key (tables sized afresh, skiplist levels drawn anew) and drops the old table of a key caught mid-rehash; each light's bound on the difference is in the JSON (rdbBound); events, state and window counts are the same";

/** How each light's `rdbBound` is made (src/inspect/rdb-bound.ts computes it). */
const RDB_BOUND_BASIS =
  "per hash or sorted set of n elements 16 × nextPow2(n) bytes (a live table up to twice the loaded one, plus a rehash's old table), " +
  'and per sorted set 64 × √n bytes more (skiplist levels drawn anew); listpacks and strings load as they were';

/** The `snapshot` block of `lights --rdb --json`: what its bytes are and the bound each light carries. */
export const RDB_SNAPSHOT_JSON = {
  settling: 'loaded afresh: every hash and sorted set has one table sized for its elements and no rehash under way (the state swc bench settles to)',
  note: RDB_BYTES_NOTE,
  bound: RDB_BOUND_BASIS,
} as const;

/** How a listing is shown: `swc lights` flags, and where it came from. */
export interface ListingView {
  readonly format: LightsFormat;
  readonly wide: boolean;
  /** `-q`: the headline only (renderQuietLights). */
  readonly quiet?: boolean;
  readonly color: boolean;
  readonly columns?: number;
  readonly threshold?: number;
  /** `--check`: drift is a finding. */
  readonly check: boolean;
  /** Read from an RDB snapshot: its bytes get a note. */
  readonly snapshot: boolean;
  /** What stopped a partial scan ("Ctrl-C (SIGINT)"). */
  readonly stopCause: () => string;
  /** The server read, without credentials (or the snapshot file), named first. */
  readonly server?: string;
}

/** Everything a listing prints: lines for stderr before and after stdout, stdout, and the exit code it calls for. */
export interface ListingOutput {
  readonly before: readonly string[];
  readonly stdout: string;
  readonly after: readonly string[];
  readonly code: number;
  readonly partial: boolean;
}

/** The `--json` document of `swc lights` (schemas/lights.json). */
export function lightsDocument(listing: Listing, threshold?: number, server?: string): Record<string, unknown> {
  const { list, matched, shown, totals, nodeTotals, primaries, forecast } = listing;
  // A snapshot's lights carry their bound: the document says what it is.
  const snapshot = shown.some((l) => l.rdbBound !== undefined);
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    ...(server !== undefined ? { server } : {}),
    at: isoMoment(list.at),
    clock: list.clock,
    windowSeconds: list.windowSeconds,
    ...(threshold !== undefined ? { threshold } : {}),
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
    ...(forecast ? { forecast } : {}),
    ...(snapshot ? { snapshot: RDB_SNAPSHOT_JSON } : {}),
    lights: shown,
    ...(listing.clients
      ? {
          clients: {
            patterns: CLIENT_PATTERNS_NOTE,
            keys: listing.clients.keys,
            ttlFindings: listing.clients.ttlFindings,
            maxmemoryPolicy: listing.clients.maxmemoryPolicy,
            skipped: listing.clients.skipped,
          },
        }
      : {}),
  };
}

/** What the `clients` block of the JSON covers. */
const CLIENT_PATTERNS_NOTE =
  'keys under the default prefixes of rate-limiter-flexible, rate-limit-redis, @fastify/rate-limit, @upstash/ratelimit, ratelimiter and rolling-rate-limiter (docs/clients/README.md)';

/** The lights CSV with a row per package key (and the package columns) when there are any. */
function csvWithClients(listing: Listing): string {
  const grid = lightsCsvGrid(listing.shown);
  const keys = listing.clients?.keys ?? [];
  if (keys.length === 0) return `${renderCsv(grid)}\n`;
  const head = [...grid.head, ...CLIENT_CSV_HEAD];
  const findings = listing.clients?.ttlFindings ?? [];
  const rows = [...grid.rows.map((r) => [...r, ...CLIENT_CSV_HEAD.map(() => '')]), ...keys.map((k) => clientCsvRow(k, head, findings))];
  return `${renderCsv({ ...grid, head, rows })}\n`;
}

/** Notes of what the server would not let swc read (the figures show n/a), each once. */
export function unavailableNotes(notes: readonly string[]): string[] {
  return [...new Set(notes)].map((note) => `swc: note: ${visible(note)}`);
}

/** A listing as the CLI prints it (JSON whole, or a table, CSV or Markdown), with its notes and exit code. */
export function listingOutput(listing: Listing, view: ListingView): ListingOutput {
  const { list, matched } = listing;
  const before = unavailableNotes(view.snapshot ? [...list.unavailable, RDB_BYTES_NOTE] : list.unavailable);
  const clients = listing.clients;
  const stdout =
    view.format === 'json'
      ? `${jsonText(lightsDocument(listing, view.threshold, view.server))}\n`
      : view.format === 'csv'
        ? csvWithClients(listing)
        : view.quiet && view.format === 'table'
          ? `${renderQuietLights(listing)}${clients && clients.keys.length > 0 ? `rate-limiter package keys: ${clients.keys.length}, ${clients.ttlFindings.length} with a TTL finding\n` : ''}`
          : renderLights(
              {
                ...listing,
                wide: view.wide,
                ...(view.columns !== undefined ? { columns: view.columns } : {}),
                ...(view.threshold !== undefined ? { threshold: view.threshold } : {}),
                ...(view.server !== undefined ? { server: view.server } : {}),
              },
              view.format,
              view.color,
            ) + renderClientKeys(clients, view.format === 'markdown' ? 'markdown' : 'table', view.color);
  const after: string[] = [];
  if (list.partial)
    after.push(`swc: stopped by ${view.stopCause()}: the listing above is PARTIAL (the scan walked ${list.scan?.calls ?? 0} SCAN calls of the keyspace)`);
  const drifted = matched.filter((l) => l.drift === true);
  // A package key with no TTL (or one past its window) is noted always, and a finding with --check, as drift is.
  const notice = ttlNotice(clients);
  if (notice !== null) after.push(notice);
  const finding = view.check && (drifted.length > 0 || notice !== null);
  if (view.check && drifted.length > 0) {
    const some = drifted
      .slice(0, 5)
      .map((l) => visible(l.reference))
      .join(', ');
    after.push(`swc: drift in ${drifted.length} light(s): ${some}${drifted.length > 5 ? ', …' : ''} (swc inspect <light> shows where)`);
  }
  return { before, stdout, after, code: finding ? ExitCode.finding : ExitCode.ok, partial: list.partial };
}

/** The progress line of a long scan: keys walked of DBSIZE and an ETA. */
export function scanProgressLine(p: ScanProgress): string {
  const eta = p.etaMs === null ? '' : `, about ${Math.ceil(p.etaMs / 1000)} s left`;
  const where =
    p.seen === null ? `${p.calls} SCAN calls` : `~${p.seen.toLocaleString('en-US')} of ${p.dbsize.toLocaleString('en-US')} keys (${p.calls} SCAN calls)`;
  return `swc: scanning: ${where}${eta}`;
}
