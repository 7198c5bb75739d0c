import type { ClientKeyListing, ClientKeysRead } from '../clients/read-keys.js';
import type { TtlFinding } from '../clients/ttl.js';
import { palette, visible } from './style.js';
import { renderBox, renderMarkdown, type Grid } from './table.js';

// How lights and inspect show the keys of the rate-limiter packages (src/clients/read-keys.ts reads them).

/** `12.3 s`, `850 ms`; `no TTL` for null. */
function ttlText(ms: number | null): string {
  if (ms === null) return 'no TTL';
  return ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

/** What else the key's name says: a route, a window's number. */
function whatText(k: ClientKeyListing): string {
  const parts = [k.kind === 'counter' ? 'counter' : 'log'];
  if (k.scope !== undefined) parts.push(`route ${k.scope}`);
  if (k.window !== undefined) parts.push(`window #${k.window}`);
  return parts.join(', ');
}

/** The finding of a key, if any: `NO TTL` or `TTL > window`. */
function findingOf(k: ClientKeyListing, findings: readonly TtlFinding[]): string {
  const f = findings.find((x) => x.key === k.key);
  if (!f) return '';
  return f.ttlMs === null ? 'NO TTL' : 'TTL > window';
}

/** The table of package keys: package, client, key, count, TTL (a counter's window left), bytes, and a finding. */
export function clientKeysGrid(read: ClientKeysRead): Grid {
  const rows = read.keys.map((k) => [
    k.package,
    visible(k.client),
    visible(k.key),
    whatText(k),
    String(k.count),
    ttlText(k.ttlMs),
    k.bytes === null ? 'n/a' : String(k.bytes),
    findingOf(k, read.ttlFindings),
  ]);
  return {
    head: ['package', 'client', 'key', 'holds', 'count', 'expires in', 'bytes', 'finding'],
    rows,
    numeric: [false, false, false, false, true, true, true, false],
  };
}

/** One line per finding, with the server's maxmemory-policy. */
export function ttlFindingLines(read: { readonly ttlFindings: readonly TtlFinding[] }): string[] {
  return read.ttlFindings.slice(0, 20).map((f) => {
    const policy = `maxmemory-policy ${f.policy ?? 'not known'}`;
    const what =
      f.ttlMs === null
        ? 'no TTL: it never expires'
        : `TTL ${ttlText(f.ttlMs)}, past the ${ttlText(f.longestMs ?? null)} the package sets for a ${ttlText(f.windowMs)} window`;
    return `${visible(f.key)} (${f.package ?? 'package'}): ${what} (${policy})`;
  });
}

/** The lines under the table: findings, keys skipped, and how many more findings the JSON lists. */
function footer(read: ClientKeysRead): string[] {
  const lines = ttlFindingLines(read).map((l) => `finding: ${l}`);
  if (read.ttlFindings.length > 20) lines.push(`… ${read.ttlFindings.length - 20} more finding(s) (--json lists all)`);
  for (const s of read.skipped.slice(0, 10)) lines.push(`skipped: ${visible(s)}`);
  if (read.skipped.length > 10) lines.push(`… ${read.skipped.length - 10} more key(s) skipped (--json lists all)`);
  return lines;
}

/** The package keys under a listing (table or Markdown); empty when there are none. */
export function renderClientKeys(read: ClientKeysRead | undefined, format: 'table' | 'markdown', color: boolean): string {
  if (!read || (read.keys.length === 0 && read.skipped.length === 0)) return '';
  const title = `rate-limiter package keys (default prefixes): ${read.keys.length}`;
  const grid = clientKeysGrid(read);
  const lines = footer(read);
  if (format === 'markdown') {
    const escaped = { ...grid, rows: grid.rows.map((r) => r.map((cell) => cell.replace(/`/g, '\\`'))) };
    return `\n**${title}**\n\n${read.keys.length > 0 ? `${renderMarkdown(escaped)}\n\n` : ''}${lines.map((l) => `- ${l}`).join('\n')}\n`;
  }
  const c = palette(color);
  const painted = { ...grid, rows: grid.rows.map((r) => r.map((cell) => (cell === 'NO TTL' || cell === 'TTL > window' ? c.red(cell) : cell))) };
  return `\n${title}\n${read.keys.length > 0 ? `${renderBox(painted, color)}\n` : ''}${lines.map((l) => `${l}\n`).join('')}`;
}

/** The CSV columns package keys add to the lights grid, and a row of the grid's width per key. */
export const CLIENT_CSV_HEAD = ['package', 'client', 'count', 'ttlMs', 'ttlFinding'] as const;

/** A package key as a row of the lights CSV: layout = package, reference = key, light = client; the extra columns at the end. */
export function clientCsvRow(k: ClientKeyListing, head: readonly string[], findings: readonly TtlFinding[]): string[] {
  const values: Record<string, string> = {
    layout: k.package,
    reference: k.key,
    light: k.client,
    name: k.key,
    keys: '1',
    bytes: k.bytes === null ? '' : String(k.bytes),
    package: k.package,
    client: k.client,
    count: String(k.count),
    ttlMs: k.ttlMs === null ? '' : String(k.ttlMs),
    ttlFinding: findingOf(k, findings),
  };
  return head.map((h) => values[h] ?? '');
}

/** The notice for stderr after a listing: how many package keys have a TTL finding, the first few named. */
export function ttlNotice(read: ClientKeysRead | undefined): string | null {
  if (!read || read.ttlFindings.length === 0) return null;
  const none = read.ttlFindings.filter((f) => f.ttlMs === null).length;
  const long = read.ttlFindings.length - none;
  const named = read.ttlFindings
    .slice(0, 5)
    .map((f) => visible(f.key))
    .join(', ');
  const what = [none > 0 ? `${none} with no TTL` : '', long > 0 ? `${long} with a TTL past their window` : ''].filter(Boolean).join(', ');
  return `swc: rate-limiter package keys: ${what} (maxmemory-policy ${read.maxmemoryPolicy ?? 'not known'}): ${named}${read.ttlFindings.length > 5 ? ', …' : ''}`;
}

/** When a log's member was written: an ISO time and how long ago. */
function momentText(ms: number | undefined, nowMs: number): string {
  if (ms === undefined) return 'n/a';
  return `${new Date(ms).toISOString()} (${ttlText(Math.max(0, nowMs - ms))} ago)`;
}

/** What `swc inspect <package key>` prints: the package, the client, what the key holds, its TTL and the server's eviction policy. */
export function renderClientKeyInspection(
  i: {
    readonly key: string;
    readonly claim: { readonly packageName: string; readonly prefix: string; readonly parts: { readonly client: string } };
    readonly naming: string;
    readonly listing: ClientKeyListing | null;
    readonly ttlFindings: readonly TtlFinding[];
    readonly maxmemoryPolicy: string | null;
  },
  options: { readonly color: boolean; readonly server?: string; readonly nowMs: number },
): string {
  const c = palette(options.color);
  const lines: string[] = [];
  if (options.server !== undefined) lines.push(c.dim(`Server: ${visible(options.server)}`));
  lines.push(`${visible(i.key)}: a key of ${i.claim.packageName} (${i.naming})`);
  lines.push(`  client:    ${visible(i.claim.parts.client)}`);
  const k = i.listing;
  if (k === null) {
    lines.push('  not read: see the warning below');
    return `${lines.join('\n')}\n`;
  }
  if (k.scope !== undefined) lines.push(`  route:     ${visible(k.scope)}`);
  if (k.window !== undefined) lines.push(`  window:    #${k.window} (the fixed window's number: its start is that many windows after the epoch)`);
  if (k.kind === 'counter') {
    lines.push(`  count:     ${k.count} (decisions counted in the key's window)`);
    lines.push(`  expires:   ${k.ttlMs === null ? c.red('never: NO TTL') : `in ${ttlText(k.ttlMs)} (for a counter, the window left)`}`);
  } else {
    lines.push(`  members:   ${k.count} (one per decision kept)`);
    lines.push(`  oldest:    ${momentText(k.oldestMs, options.nowMs)}`);
    lines.push(`  newest:    ${momentText(k.newestMs, options.nowMs)}`);
    lines.push(`  expires:   ${k.ttlMs === null ? c.red('never: NO TTL') : `in ${ttlText(k.ttlMs)}`}`);
  }
  lines.push(`  bytes:     ${k.bytes === null ? 'n/a' : k.bytes}`);
  lines.push(`  maxmemory-policy: ${i.maxmemoryPolicy ?? 'not known'}`);
  for (const f of ttlFindingLines(i)) lines.push(`  ${c.red('finding')}: ${f}`);
  return `${lines.join('\n')}\n`;
}

/** One line for a finding of compare: `rl:10.0.0.7 (rate-limit-redis): no TTL, the key never expires (maxmemory-policy noeviction)`. */
export function ttlFindingText(f: TtlFinding): string {
  const who = f.package !== undefined ? ` (${f.package})` : '';
  const policy = `maxmemory-policy ${f.policy ?? 'not known'}`;
  if (f.ttlMs === null) return `${visible(f.key)}${who}: no TTL, the key never expires (${policy})`;
  return `${visible(f.key)}${who}: TTL ${ttlText(f.ttlMs)}, past the ${ttlText(f.longestMs ?? null)} the package sets for a ${ttlText(f.windowMs)} window (${policy})`;
}
