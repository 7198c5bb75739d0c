/**
 * The memory side of a comparison, beyond one number: the absolute or
 * relative tolerance bytes per light are judged at, and, for a cell whose
 * bytes changed, what changed in which key role (bytes, element count,
 * encoding, the longest value and new long fields), so a CI failure names
 * the field that grew instead of "+2.2%".
 *
 * Everything here reads the `memory.keys` a result carries (the cell's first
 * light); results written before `largest` existed still compare, with less
 * to say about fields.
 */
import type { CellResult, KeyMemory } from '../measure/types.js';
import type { MemoryTolerance } from './tolerances.js';

export type { MemoryTolerance } from './tolerances.js';

/**
 * Whether bytes per light regressed, improved or held: beyond the tolerance
 * upwards is `regressed`, beyond it downwards `improved`.
 */
export function judgeMemory(baseline: number, current: number, tolerance: MemoryTolerance): 'ok' | 'regressed' | 'improved' {
  const grown = current - baseline;
  const limit = 'bytes' in tolerance ? tolerance.bytes : tolerance.fraction * baseline;
  if (grown > limit) return 'regressed';
  if (grown < -limit) return 'improved';
  return 'ok';
}

/** A before/after pair; null where one side lacks it. */
export interface Change<T> {
  readonly baseline: T | null;
  readonly current: T | null;
}

/** A value of a hash field, by length. */
export interface FieldLength {
  readonly field: string;
  readonly bytes: number;
}

/** What changed in the keys of one role of a light (the cell's first light), for {@link keyChanges}. */
export interface KeyChange {
  /** `metrics`, `success events`, … */
  readonly role: string;
  readonly bytes: Change<number>;
  readonly elements: Change<number>;
  /** `listpack`, `hashtable`, … (`a/b` when the role has several keys of different encodings). */
  readonly encoding: Change<string>;
  /** The longest hash value of the role, where either result recorded it. */
  readonly longestValue?: Change<FieldLength>;
  /** Fields among the current run's longest values that the baseline's longest values lack (both recorded). */
  readonly newFields?: readonly FieldLength[];
}

interface RoleSum {
  bytes: number;
  elements: number;
  encodings: Set<string>;
  longest: FieldLength | null;
  largest: FieldLength[] | null;
}

/** The keys of a light summed per role, with their longest values where recorded. */
function byRole(keys: readonly KeyMemory[]): Map<string, RoleSum> {
  const out = new Map<string, RoleSum>();
  for (const k of keys) {
    const sum = out.get(k.role) ?? { bytes: 0, elements: 0, encodings: new Set<string>(), longest: null, largest: null };
    sum.bytes += k.bytes;
    sum.elements += k.elements;
    sum.encodings.add(k.encoding);
    const values = k.largest ?? (k.longest?.value ? [k.longest.value] : undefined);
    if (values) {
      if (k.largest) sum.largest = [...(sum.largest ?? []), ...k.largest];
      for (const v of values) if (!sum.longest || v.bytes > sum.longest.bytes) sum.longest = { field: v.field, bytes: v.bytes };
    }
    out.set(k.role, sum);
  }
  return out;
}

/**
 * What changed per key role between a cell of the baseline and the same cell
 * of the current run: only roles where bytes, elements, encoding or the
 * longest value differ, the most grown first. Empty when the results carry
 * no keys or nothing changed.
 */
export function keyChanges(baseline: CellResult, current: CellResult): KeyChange[] {
  const before = byRole(baseline.memory.keys ?? []);
  const after = byRole(current.memory.keys ?? []);
  const roles = [...new Set([...before.keys(), ...after.keys()])];
  const out: KeyChange[] = [];
  for (const role of roles) {
    const b = before.get(role);
    const c = after.get(role);
    const encoding = (s: RoleSum | undefined): string | null => (s ? [...s.encodings].sort().join('/') : null);
    const change: KeyChange = {
      role,
      bytes: { baseline: b?.bytes ?? null, current: c?.bytes ?? null },
      elements: { baseline: b?.elements ?? null, current: c?.elements ?? null },
      encoding: { baseline: encoding(b), current: encoding(c) },
      ...(b?.longest || c?.longest ? { longestValue: { baseline: b?.longest ?? null, current: c?.longest ?? null } } : {}),
      ...newFieldsOf(b, c),
    };
    const same =
      change.bytes.baseline === change.bytes.current &&
      change.elements.baseline === change.elements.current &&
      change.encoding.baseline === change.encoding.current &&
      sameLength(change.longestValue) &&
      !change.newFields;
    if (!same) out.push(change);
  }
  const grown = (k: KeyChange): number => (k.bytes.current ?? 0) - (k.bytes.baseline ?? 0);
  return out.sort((x, y) => grown(y) - grown(x));
}

function sameLength(v: Change<FieldLength> | undefined): boolean {
  if (!v) return true;
  return v.baseline?.field === v.current?.field && v.baseline?.bytes === v.current?.bytes;
}

/** Long fields of the current run that the baseline's list of longest values lacks, when both results have such a list. */
function newFieldsOf(b: RoleSum | undefined, c: RoleSum | undefined): { newFields?: FieldLength[] } {
  if (!b?.largest || !c?.largest) return {};
  const known = new Set(b.largest.map((f) => f.field));
  // Shorter than every value the baseline listed: the baseline might simply not have listed it.
  const floor = b.largest.length >= LARGEST_KEPT ? Math.min(...b.largest.map((f) => f.bytes)) : 0;
  const fresh = c.largest.filter((f) => !known.has(f.field) && f.bytes >= floor);
  return fresh.length > 0 ? { newFields: fresh } : {};
}

/** How many of a hash's longest values a result keeps (src/measure/encoding.ts). */
export const LARGEST_KEPT = 5;

const size = (n: number): string => `${n.toLocaleString('en-US')} B`;
const signed = (n: number): string => `${n >= 0 ? '+' : '−'}${size(Math.abs(n))}`;

/**
 * One role's change as words: `metrics +96 B (3,192 B → 3,288 B),
 * 37 → 38 elements; new field `debug_trace` (88 B)`.
 */
export function keyChangeText(k: KeyChange): string {
  const parts: string[] = [];
  const { bytes, elements, encoding } = k;
  if (bytes.baseline === null) parts.push(`new key role (${size(bytes.current ?? 0)})`);
  else if (bytes.current === null) parts.push(`key role gone (was ${size(bytes.baseline)})`);
  else if (bytes.baseline !== bytes.current) parts.push(`${signed(bytes.current - bytes.baseline)} (${size(bytes.baseline)} → ${size(bytes.current)})`);
  else parts.push('same bytes');
  if (elements.baseline !== null && elements.current !== null && elements.baseline !== elements.current) {
    parts.push(`${elements.baseline.toLocaleString('en-US')} → ${elements.current.toLocaleString('en-US')} elements`);
  }
  if (encoding.baseline !== null && encoding.current !== null && encoding.baseline !== encoding.current) {
    parts.push(`encoding ${encoding.baseline} → ${encoding.current}`);
  }
  const details: string[] = [];
  if (k.newFields) details.push(...k.newFields.map((f) => `new field \`${f.field}\` (${size(f.bytes)})`));
  const v = k.longestValue;
  if (v && !sameLength(v) && !(v.current && k.newFields?.some((f) => f.field === v.current?.field))) {
    if (v.baseline && v.current) {
      details.push(
        v.baseline.field === v.current.field
          ? `longest value \`${v.current.field}\` ${size(v.baseline.bytes)} → ${size(v.current.bytes)}`
          : `longest value now \`${v.current.field}\` (${size(v.current.bytes)}; was \`${v.baseline.field}\`, ${size(v.baseline.bytes)})`,
      );
    } else if (v.current) details.push(`longest value \`${v.current.field}\` (${size(v.current.bytes)}; not recorded in the baseline)`);
  }
  return `${k.role}: ${parts.join(', ')}${details.length > 0 ? `; ${details.join('; ')}` : ''}`;
}

/** The tolerance as the verdict states it: `64 B` or `+1.0%`. */
export function memoryToleranceText(t: MemoryTolerance): string {
  return 'bytes' in t ? size(t.bytes) : `${+(t.fraction * 100).toFixed(4)}%`;
}

/**
 * How far `used_memory` Δ per light may move beyond what MEMORY USAGE moved
 * before a comparison shows its row, as a fraction of the baseline's bytes
 * per light. used_memory counts the allocator's state as well as the keys
 * (rehash tables, fragmentation, lazily freed memory): unchanged runs move it
 * by −15% to +10% (two unchanged small-scenario runs against the shipped
 * baseline: at most 19.4% of a light's bytes apart, over 16 rows), which is
 * noise beside the exact MEMORY USAGE figure. A
 * move past a quarter of a light's bytes that MEMORY USAGE does not see is
 * worth a look (memory a light's keys do not account for).
 */
export const USED_MEMORY_BOUND = 0.25;

/**
 * Whether used_memory Δ per light moved differently from bytes per light by
 * more than {@link USED_MEMORY_BOUND} of the baseline's bytes per light; true
 * when a figure is missing on either side (nothing to say it agrees).
 */
export function usedMemoryDisagrees(bytes: Change<number>, used: Change<number>): boolean {
  if (bytes.baseline === null || bytes.current === null || used.baseline === null || used.current === null) return true;
  const apart = used.current - used.baseline - (bytes.current - bytes.baseline);
  return Math.abs(apart) > USED_MEMORY_BOUND * Math.abs(bytes.baseline);
}
