/**
 * The comparison's default tolerances and the `--memory-tolerance` value:
 * constants and a parser only, so a command's help can state the defaults
 * without loading the comparison.
 */

/** Defaults of `swc compare` (fractions): bytes per light, the ops/s ratio, the server's time per call. */
export const DEFAULT_MEMORY_TOLERANCE = 0.01;
export const DEFAULT_THROUGHPUT_TOLERANCE = 0.25;
export const DEFAULT_SERVER_TOLERANCE = 0.5;

/**
 * Default tolerance of instructions per call, from measurements on 7.0.15
 * (docs/instructions.md): unchanged runs of one build differ by up to 1.7%
 * (5.x's write at 10/s; Redis seeds skiplist levels with the time and pid,
 * so 5.x's sorted-set walks differ a little from one server start to the
 * next), 6.0's figures by under 1.1%; one extra redis.call in 6.0's write
 * adds 3%, three HGETs on its successes 4.5%.
 */
export const DEFAULT_INSTRUCTIONS_TOLERANCE = 0.02;

/** How much bytes per light may grow: a fraction (0.01 = 1%) or a number of bytes. */
export type MemoryTolerance = { readonly fraction: number } | { readonly bytes: number };

/** `--memory-tolerance` values: `1`, `1%`, `0.5%` (percent) or `64B`, `64 B`, `1KB`/`1KiB` (bytes, 1 KB = 1024). */
export function parseMemoryTolerance(value: string): MemoryTolerance | string {
  const text = value.trim();
  const bytes = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB)$/i.exec(text);
  if (bytes) {
    const n = Number(bytes[1]) * ((bytes[2] ?? 'B').toUpperCase() === 'B' ? 1 : 1024);
    if (!Number.isFinite(n) || n > 1024 ** 3) return `--memory-tolerance: bytes must be from 0 B to 1 GiB, got "${value}"`;
    return { bytes: n };
  }
  const percent = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text);
  if (percent) {
    const n = Number(percent[1]);
    if (n > 1000) return `--memory-tolerance: a percentage from 0 to 1000, got "${value}"`;
    return { fraction: n / 100 };
  }
  return `--memory-tolerance: a percentage (1, 1%, 0.5%) or bytes (64B, 1KB), got "${value}"`;
}
