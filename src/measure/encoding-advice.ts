/**
 * Why a layout's key is not a listpack, from what was measured: its element
 * count and longest parts (src/measure/encoding.ts) against the server's
 * `*-max-listpack-*` limits as the report recorded them. Nothing here is a
 * claim about a layout by name: every line comes from a cell's figures.
 */
import { isExpanded, LONGEST_SCAN_LIMIT } from './encoding.js';
import type { BenchReport, CellResult, EncodingHint, KeyMemory } from './types.js';

/** One limit a key is past. */
export interface LimitCause {
  /** `entries`: too many elements; `value`: a hash value too long; `field`: a hash field name too long; `member`: a sorted-set member too long. */
  readonly kind: EncodingHint['kind'] | 'entries';
  /** The server setting that decides it, e.g. `hash-max-listpack-value`. */
  readonly setting: string;
  /** The setting's value on the server. */
  readonly limit: number;
  /** Elements, or bytes of the longest part. */
  readonly actual: number;
  /** The field (value, field) or the member's first characters (member). */
  readonly name?: string;
}

/** The limits a key type is held to, by the setting names the report's `redis.config` uses. */
const LIMITS: Record<string, { entries: string; value: string; element: string }> = {
  hash: { entries: 'hash-max-listpack-entries', value: 'hash-max-listpack-value', element: 'fields' },
  zset: { entries: 'zset-max-listpack-entries', value: 'zset-max-listpack-value', element: 'members' },
};

/**
 * The limits an expanded hash or sorted set is past, by the server's
 * `config`. Empty when none is (the key was past one earlier: Redis does not
 * convert a key back when it shrinks), or when a limit is unknown; undefined
 * for a key that is compact or of another type.
 */
export function causesOf(key: KeyMemory, config: Readonly<Record<string, number | null>>): LimitCause[] | undefined {
  const limits = LIMITS[key.type];
  if (!limits || !isExpanded(key)) return undefined;
  const causes: LimitCause[] = [];
  const entries = config[limits.entries];
  if (typeof entries === 'number' && key.elements > entries) {
    causes.push({ kind: 'entries', setting: limits.entries, limit: entries, actual: key.elements });
  }
  const value = config[limits.value];
  const longest = key.longest;
  if (typeof value === 'number' && longest) {
    if (key.type === 'hash') {
      if (longest.value && longest.value.bytes > value) {
        causes.push({ kind: 'value', setting: limits.value, limit: value, actual: longest.value.bytes, name: longest.value.field });
      }
      if (longest.name.bytes > value) causes.push({ kind: 'field', setting: limits.value, limit: value, actual: longest.name.bytes, name: longest.name.text });
    } else if (longest.name.bytes > value) {
      causes.push({ kind: 'member', setting: limits.value, limit: value, actual: longest.name.bytes, name: longest.name.text });
    }
  }
  return causes;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** One cause as words: "field `last_error_json` (187 bytes) is longer than hash-max-listpack-value (64)". */
export function describeCause(cause: LimitCause, type: string): string {
  switch (cause.kind) {
    case 'entries':
      return `it has ${count(cause.actual)} ${LIMITS[type]?.element ?? 'elements'}, more than ${cause.setting} (${count(cause.limit)})`;
    case 'value':
      return `field \`${cause.name ?? '?'}\` (${count(cause.actual)} bytes) is longer than ${cause.setting} (${count(cause.limit)})`;
    case 'field':
      return `field name \`${cause.name ?? '?'}\` (${count(cause.actual)} bytes) is longer than ${cause.setting} (${count(cause.limit)})`;
    case 'member':
      return `member \`${cause.name ?? '?'}\` (${count(cause.actual)} bytes) is longer than ${cause.setting} (${count(cause.limit)})`;
  }
}

/** What a key is called in a sentence: "hash `metadata`". */
export function keyPhrase(key: Pick<KeyMemory, 'type' | 'role'>): string {
  return `${key.type} \`${key.role}\``;
}

/** Why a key is expanded, as one clause: "its hash `metadata` is a hashtable because …". */
export function explainKey(key: KeyMemory, config: Readonly<Record<string, number | null>>, at = ''): string | undefined {
  const causes = causesOf(key, config);
  if (!causes) return undefined;
  const because =
    causes.length > 0
      ? `because ${causes.map((c) => describeCause(c, key.type)).join(' and ')}`
      : key.longest || key.elements <= LONGEST_SCAN_LIMIT
        ? 'though no limit is passed now (it was earlier: Redis never converts a key back)'
        : '(too many elements to read its longest parts)';
  return `its ${keyPhrase(key)} is a ${key.encoding}${at} ${because}`;
}

/** The smallest power of two at or above `n`: a round setting that fits it. */
export function roundUp(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * Hints for a report: every hash or sorted set that is expanded only because
 * one of its parts is longer than `*-max-listpack-value`, with its element
 * count within `*-max-listpack-entries`. Keys past the entry limit get no
 * hint: a listpack of thousands of entries is slow to update.
 */
export function encodingHints(results: readonly CellResult[], config: Readonly<Record<string, number | null>>): EncodingHint[] {
  const byKey = new Map<string, { hint: Omit<EncodingHint, 'cells' | 'everyCell'>; cells: { windowSeconds: number; rate: number }[] }>();
  for (const cell of results) {
    for (const key of cell.memory.keys) {
      const causes = causesOf(key, config);
      if (!causes || causes.length === 0 || causes.some((c) => c.kind === 'entries')) continue;
      const worst = causes.reduce((a, b) => (b.actual > a.actual ? b : a));
      const id = `${cell.layout}\u0000${key.role}\u0000${worst.kind}\u0000${worst.name ?? ''}`;
      const seen = byKey.get(id);
      const hint = {
        layout: cell.layout,
        role: key.role,
        type: key.type,
        encoding: key.encoding,
        setting: worst.setting,
        limit: worst.limit,
        fits: roundUp(worst.actual),
        // Entry counts were left out above.
        kind: worst.kind as EncodingHint['kind'],
        name: worst.name ?? '',
        bytes: worst.actual,
      };
      if (!seen) byKey.set(id, { hint, cells: [{ windowSeconds: cell.windowSeconds, rate: cell.rate }] });
      else {
        seen.cells.push({ windowSeconds: cell.windowSeconds, rate: cell.rate });
        if (hint.bytes > seen.hint.bytes) seen.hint = hint;
      }
    }
  }
  return [...byKey.values()].map(({ hint, cells }) => ({
    ...hint,
    cells,
    everyCell: cells.length === results.filter((r) => r.layout === hint.layout).length,
  }));
}

/** The hints of a report (computed from its results when it carries none). */
export function hintsOf(report: BenchReport): readonly EncodingHint[] {
  return report.encodingHints ?? encodingHints(report.results, report.redis.config);
}
