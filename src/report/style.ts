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

// `visible` (control characters shown as `\xHH`) is core/format.ts's, so
// safety/text.ts escapes with it too; report/ and the CLI read it here.
export { visible } from '../core/format.js';

/**
 * The first line of a report (bench, verify, inspect): the server it read or
 * wrote (without credentials) and what was not measured there, if anything.
 */
export function serverLine(where: string, notMeasured: readonly string[] = []): string {
  return `Server: ${where}${notMeasured.length > 0 ? `; not measured there: ${notMeasured.join('; ')}` : ''}`;
}
