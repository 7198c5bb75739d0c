import { Chalk, type ChalkInstance } from 'chalk';

/** A chalk instance that colours only when asked to (decided by the command). */
export function palette(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

/** Bytes as KB (1 KB = 1024 bytes) with one decimal, as the published table shows them. */
export function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

/** A ratio as `12.3×`. */
export function times(ratio: number): string {
  if (!Number.isFinite(ratio)) return '–';
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

/** A signed percentage, e.g. `+3.1%`. */
export function percent(change: number): string {
  if (!Number.isFinite(change)) return '–';
  return `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
}

/** C0 controls, DEL and C1 controls: what a terminal may act on instead of showing. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from Redis (key names, light names, stored values) made safe for a
 * terminal or a table: each control character (ESC, CR, BEL, …, DEL, C1) is
 * shown as `\xHH`, so `\x1b[2J` cannot clear the screen and `\r` cannot
 * overwrite a line. JSON output keeps the exact string instead.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
