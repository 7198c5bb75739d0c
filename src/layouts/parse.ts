/** Helpers to read Redis replies (strings, numbers or nil) as typed values. */

export function toInt(value: unknown): number {
  if (value === null || value === undefined || value === false) return 0;
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

export function toIntOrNull(value: unknown): number | null {
  if (value === null || value === undefined || value === false || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

export function toStringOrNull(value: unknown): string | null {
  if (value === null || value === undefined || value === false) return null;
  return String(value);
}

/** `['a', '1', 'b', '2']` as `{ a: '1', b: '2' }`. */
export function pairsToRecord(flat: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  if (!Array.isArray(flat)) return record;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    record[String(flat[i])] = String(flat[i + 1]);
  }
  return record;
}

/** Escapes the glob characters SCAN MATCH understands. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** Event time as a script argument: '' lets the script use Redis TIME. */
export function timeArg(at: number | undefined): string {
  return at === undefined ? '' : String(at);
}

/** Escapes text for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
