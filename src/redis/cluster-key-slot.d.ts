/** Types of cluster-key-slot (ioredis' own slot function; the package ships none). */
declare module 'cluster-key-slot' {
  /**
   * The Redis Cluster slot (0..16383) of a key: CRC16 (XMODEM) of its first
   * non-empty `{…}` hash tag, else of the whole key, mod 16384. A string is
   * encoded as UTF-8 by the package; bytes are taken as they are.
   */
  function calculateSlot(key: string | Uint8Array): number;
  export = calculateSlot;
}
