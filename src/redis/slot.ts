/**
 * Redis Cluster slot of a key: CRC16 (XMODEM) of its hash tag, or of the
 * whole key, mod 16384, by cluster-key-slot (the function ioredis routes with).
 */
import calculateSlot from 'cluster-key-slot';

/** The part of a key that decides its slot: the first non-empty `{…}`, else the whole key. */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/**
 * The cluster slot (0..16383) a key belongs to. The key goes in as the
 * UTF-8 bytes a client sends: cluster-key-slot's own string encoding writes
 * a lone surrogate as three bytes of its own, where the bytes on the wire
 * (and so the server's slot) have U+FFFD.
 */
export function keySlot(key: string): number {
  return calculateSlot(Buffer.from(key, 'utf8'));
}
