import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** Keys per SCAN call asked for at most (and by `--scan-count` at most). */
export const SCAN_COUNT = 1000;
/** COUNT of a scan's first call; later calls grow or shrink it to stay within the budget. */
export const SCAN_COUNT_START = 100;
/** The smallest COUNT the budget shrinks to. */
export const SCAN_COUNT_MIN = 10;
/** The largest COUNT `--scan-count` accepts. */
export const SCAN_COUNT_MAX = 100_000;
/**
 * Server time one SCAN call may take, in microseconds. A call's round trip
 * bounds it from above, but also holds the network, the client and, after a
 * pause, both sides waking up: a fixed cost that can alone exceed the budget.
 * So the server time is taken as the round trip less the shortest round trip
 * of the scan so far (that cost, with the least server time seen).
 */
export const SCAN_BUDGET_US = 250;
/**
 * Pause between SCAN calls by default, in milliseconds. One call of COUNT
 * 1000 costs the server about 0.3–1 ms of its main thread, so a 2 ms pause
 * keeps the scan's share of that thread at a third of a core or less, and
 * leaves room for the application's commands between calls.
 */
export const DEFAULT_SCAN_PAUSE_MS = 2;
/** Progress is reported once a scan has run this long (a short scan stays silent and sends no DBSIZE). */
export const PROGRESS_AFTER_MS = 1000;

/** How a scan is paced and watched. */
export interface ScanControl {
  /** Milliseconds to wait between SCAN calls. */
  readonly pauseMs?: number;
  /** A fixed COUNT for every call; absent, COUNT adapts to {@link ScanControl.budgetUs}. */
  readonly count?: number;
  /** Server time per SCAN call to stay within, in microseconds (default {@link SCAN_BUDGET_US}). */
  readonly budgetUs?: number;
  /** Called after each call with the estimated keys the server walked so far. */
  readonly onProgress?: (progress: ScanProgress) => void;
  /** Asked before each call: true stops the scan (Ctrl-C); what was found so far is kept. */
  readonly stopped?: () => boolean;
}

export interface ScanProgress {
  /** Estimated keys walked (from the cursor's position in the table); null where the cursor cannot tell (a cluster). */
  readonly seen: number | null;
  readonly dbsize: number;
  readonly calls: number;
  readonly elapsedMs: number;
  /** Estimated milliseconds left; null until a first estimate exists. */
  readonly etaMs: number | null;
}

/** What one pass did. */
export interface ScanReport {
  /** The MATCH sent (null: none, every key comes back and is matched here). */
  readonly match: string | null;
  readonly calls: number;
  /** Keys the server returned. */
  readonly returned: number;
  /** DBSIZE, read once the scan ran long enough to show progress; null for a short scan. */
  readonly dbsize: number | null;
  readonly elapsedMs: number;
  /** Stopped before the cursor came back to 0. */
  readonly partial: boolean;
  /** The longest round trip of one SCAN call, in microseconds (an upper bound of its server time). */
  readonly maxCallUs: number;
  /** The COUNT of the last call. */
  readonly lastCount: number;
}

/**
 * The COUNT of the next call, from the last call's COUNT and server time:
 * over the budget it shrinks in proportion (at least halving), well under it
 * it grows by half, within {@link SCAN_COUNT_MIN}..{@link SCAN_COUNT}.
 */
export function nextScanCount(count: number, callUs: number, budgetUs: number): number {
  let next = count;
  if (callUs > budgetUs) next = Math.min(count / 2, (count * budgetUs) / callUs);
  else if (callUs < budgetUs / 2) next = count * 1.5;
  return Math.max(SCAN_COUNT_MIN, Math.min(SCAN_COUNT, Math.round(next)));
}

/** The literal text of a glob up to its first glob character. */
function literalPrefix(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i] as string;
    if (ch === '*' || ch === '?' || ch === '[') return out;
    if (ch === '\\' && i + 1 < glob.length) {
      out += glob[++i] as string;
      continue;
    }
    out += ch;
  }
  return out;
}

/** A character as a glob matches it literally. */
const globLiteral = (s: string): string => s.replace(/[*?[\]\\]/g, '\\$&');

/**
 * One MATCH that every pattern's keys pass (the server then returns fewer
 * keys; each key is still matched against the patterns here): the common
 * literal prefix, and where the prefixes part, a class of their next
 * characters (`stoplight:v5:*` and `swc-bench:*` give `s[tw]*`). Null when
 * the patterns share nothing, or a pattern is a bare `*`.
 */
export function commonMatch(patterns: readonly string[]): string | null {
  const prefixes = patterns.map(literalPrefix);
  if (prefixes.length === 0 || prefixes.some((p) => p === '')) return null;
  let common = prefixes[0] as string;
  for (const p of prefixes) {
    let i = 0;
    while (i < common.length && i < p.length && common[i] === p[i]) i += 1;
    common = common.slice(0, i);
  }
  const next = new Set(prefixes.map((p) => p[common.length]));
  if (next.has(undefined)) return common === '' ? null : `${globLiteral(common)}*`;
  const chars = [...next] as string[];
  if (chars.length === 1) return `${globLiteral(common + (chars[0] as string))}*`;
  // Inside a class only `]`, `\` and `^`/`-` in some positions are special; escape them all.
  const cls = chars.map((c) => (/[\]\\^-]/.test(c) ? `\\${c}` : c)).join('');
  if (common === '' && chars.length > 8) return null;
  return `${globLiteral(common)}[${cls}]*`;
}

/** Reverses the low `bits` bits of `n` (Redis walks its table in reverse-binary order). */
function reverseBits(n: bigint, bits: number): bigint {
  let out = 0n;
  for (let i = 0; i < bits; i += 1) {
    out = (out << 1n) | ((n >> BigInt(i)) & 1n);
  }
  return out;
}

/**
 * How far through its table a SCAN cursor is, 0..1. Redis's table has a
 * power-of-two size of at least DBSIZE; the cursor counts through it with
 * its bits reversed. An estimate: the table may be larger, or rehashing.
 */
export function cursorFraction(cursor: string, dbsize: number): number | null {
  if (cursor === '0') return 1;
  // A cursor over several nodes (a cluster's routed handle: `<node>-<cursor>`) has no one table to place it in.
  if (!/^\d+$/.test(cursor)) return null;
  const bits = Math.max(2, Math.ceil(Math.log2(Math.max(4, dbsize))));
  const size = 1n << BigInt(bits);
  const position = reverseBits(BigInt(cursor) & (size - 1n), bits);
  return Number(position) / Number(size);
}

/**
 * Walks the keyspace once with SCAN (one MATCH common to every pattern),
 * pausing between calls; COUNT starts at {@link SCAN_COUNT_START} and adapts
 * so each call's round trip stays within the budget, unless fixed, and hands each key that
 * one of `patterns` matches to `onKey` (each key once). Read-only.
 */
export async function scanOnce(redis: Redis, patterns: readonly string[], onKey: (key: string) => void, control: ScanControl = {}): Promise<ScanReport> {
  const match = commonMatch(patterns);
  const tests = patterns.map(globToRegExp);
  // DBSIZE only once a scan is long enough to show progress: a short one sends SCAN alone.
  let dbsize: number | null = null;
  const started = performance.now();
  const seenKeys = new Set<string>();
  const pauseMs = control.pauseMs ?? DEFAULT_SCAN_PAUSE_MS;
  let cursor = '0';
  let calls = 0;
  let returned = 0;
  let partial = false;
  const budgetUs = control.budgetUs ?? SCAN_BUDGET_US;
  let count = control.count ?? SCAN_COUNT_START;
  let maxCallUs = 0;
  let minCallUs = Number.POSITIVE_INFINITY;
  do {
    if (control.stopped?.()) {
      partial = true;
      break;
    }
    if (calls > 0 && pauseMs > 0) await sleep(pauseMs);
    const sent = performance.now();
    const [next, batch] = match === null ? await redis.scan(cursor, 'COUNT', count) : await redis.scan(cursor, 'MATCH', match, 'COUNT', count);
    const callUs = (performance.now() - sent) * 1000;
    maxCallUs = Math.max(maxCallUs, callUs);
    minCallUs = Math.min(minCallUs, callUs);
    calls += 1;
    returned += batch.length;
    for (const key of batch) {
      // SCAN may return a key twice while the table rehashes.
      if (seenKeys.has(key) || !tests.some((t) => t.test(key))) continue;
      seenKeys.add(key);
      onKey(key);
    }
    cursor = next;
    if (control.count === undefined) count = nextScanCount(count, callUs - minCallUs, budgetUs);
    if (control.onProgress && cursor !== '0' && performance.now() - started >= PROGRESS_AFTER_MS) {
      dbsize ??= Number(await redis.dbsize());
      const fraction = cursorFraction(cursor, dbsize);
      const elapsedMs = performance.now() - started;
      control.onProgress({
        seen: fraction === null ? null : Math.round(fraction * dbsize),
        dbsize,
        calls,
        elapsedMs,
        etaMs: fraction !== null && fraction > 0.01 ? (elapsedMs * (1 - fraction)) / fraction : null,
      });
    }
  } while (cursor !== '0');
  return { match, calls, returned, dbsize, elapsedMs: performance.now() - started, partial, maxCallUs: Math.round(maxCallUs), lastCount: count };
}

/** A SCAN glob (`*`, `?`, `[…]`, `\` escapes) as a whole-key regular expression. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i] as string;
    if (ch === '*') out += '[\\s\\S]*';
    else if (ch === '?') out += '[\\s\\S]';
    else if (ch === '\\' && i + 1 < glob.length) out += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      const body = glob
        .slice(i + 1, end)
        .replace(/^\^/, '^')
        .replace(/\\(.)/g, (_m, c: string) => `\\${c}`);
      out += `[${body}]`;
      i = end;
    } else out += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
