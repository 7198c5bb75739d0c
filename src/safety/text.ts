/**
 * Text that came from Redis or a file, made safe for a terminal: control
 * characters escaped (see {@link visible}) and an over-long value cut, with
 * its full size named, so an 8 MB `last_error_json` or an escape sequence in
 * a baseline never reaches the terminal as it is.
 */
import { visible } from '../core/format.js';

/** Longest value shown whole in human output (tables, markdown, github, csv). */
export const MAX_SHOWN_CHARS = 200;

/**
 * `text` escaped and, past `max` characters, cut: `abc… (8,388,608 bytes)`.
 * JSON output keeps the exact string; this is for every other format.
 */
export function shown(text: string, max = MAX_SHOWN_CHARS): string {
  if (text.length <= max) return visible(text);
  return `${visible(text.slice(0, max))}… (${Buffer.byteLength(text).toLocaleString('en-US')} bytes)`;
}

/**
 * A copy of `value` with every string made {@link shown} (escaped, cut; or
 * what `each` makes of it, e.g. {@link cutOnly} for JSON),
 * objects and arrays copied, numbers and the rest kept: for data read from
 * a file (a baseline, a result) before a human format renders it.
 */
export function shownDeep<T>(value: T, max = MAX_SHOWN_CHARS, each: (text: string, max: number) => string = shown): T {
  // A loop over a stack of its own, not recursion: a file's depth is the file's to choose (a field nested 100,000 deep overflowed the call stack).
  type Container = Record<string, unknown> | unknown[];
  const isContainer = (v: unknown): v is Container => v !== null && typeof v === 'object';
  const copyOf = (v: unknown): unknown => (typeof v === 'string' ? each(v, max) : Array.isArray(v) ? [] : isContainer(v) ? {} : v);
  const root = copyOf(value);
  const pending: [Container, Container][] = isContainer(value) ? [[value, root as Container]] : [];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, to] = next;
    for (const [k, inner] of Object.entries(from)) {
      const copy = copyOf(inner);
      // defineProperty: a "__proto__" key read from JSON stays a key, as JSON.parse made it.
      Object.defineProperty(to, k, { value: copy, enumerable: true, writable: true, configurable: true });
      if (isContainer(inner)) pending.push([inner, copy as Container]);
    }
  }
  return root as T;
}

/**
 * `text` cut past `max` characters, `abc… (8,388,608 bytes)`, and not
 * escaped: for JSON output, which keeps strings exact up to the bound
 * (JSON.stringify escapes control characters itself).
 */
export function cutOnly(text: string, max = MAX_SHOWN_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${Buffer.byteLength(text).toLocaleString('en-US')} bytes)`;
}
