/**
 * A small seeded PRNG (mulberry32) so that traffic, event ids and therefore
 * memory figures repeat exactly for the same seed.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** `bytes` random bytes as lowercase hex (2 characters per byte). */
  hex(bytes: number): string;
}

/** Two hex digits per byte value: one lookup instead of toString(16) and padStart per word. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function createRng(seed: number): Rng {
  let state = seed >>> 0 || 0x9e3779b9;
  const next32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    next: () => next32() / 4294967296,
    int: (n) => Math.floor((next32() / 4294967296) * n),
    hex: (bytes) => {
      let out = '';
      for (let i = 0; i < bytes; i += 4) {
        const word = next32();
        out += (HEX[word >>> 24] as string) + (HEX[(word >>> 16) & 255] as string) + (HEX[(word >>> 8) & 255] as string) + (HEX[word & 255] as string);
      }
      return bytes % 4 === 0 ? out : out.slice(0, bytes * 2);
    },
  };
}
