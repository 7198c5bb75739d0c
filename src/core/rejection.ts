/**
 * What a script error is, when swc knows it by the command the server
 * rejected (as MONITOR showed it, see src/verify/rejected.ts). One place for
 * the names: verify's report and bench's name the same cause the same way.
 */

/** A known cause of a script error. */
export interface NamedRejection {
  /** Stable id, e.g. `negative-zero`. */
  readonly id: string;
  /** A few words, e.g. `"-0" rejected`. */
  readonly name: string;
  /** One sentence: why the server refused it, and where it does not. */
  readonly why: string;
}

/**
 * The cause of a script error whose rejected command (formatted as
 * `HINCRBY "k" "f" "-0"`) shows a known case, or null. Known: Lua's -0
 * (an unguarded `HINCRBY … -count` with a count of 0) reaches Redis 7.0 as
 * "-0", which HINCRBY refuses as not an integer; Redis 7.2+ and Valkey
 * receive "0". And, with no command sent, Lua's own `unpack()` limit.
 */
export function namedRejection(error: string, rejected: string | undefined): NamedRejection | null {
  if (/too many results to unpack/.test(error)) {
    return {
      id: 'unpack-limit',
      name: 'unpack() limit',
      why:
        "the script spread more values through Lua's unpack() than it takes (about 8,000 on Redis 7.x): an eviction that " +
        'unpacks every expired bucket at once fails after an idle gap longer than about 4,000 seconds with traffic; eviction in batches does not',
    };
  }
  if (rejected === undefined) return null;
  const args = [...rejected.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => JSON.parse(m[0]) as string);
  const name = rejected.split(' ', 1)[0]?.toUpperCase() ?? '';
  if (/not an integer/i.test(error) && /^(HINCRBY|INCRBY|DECRBY|ZINCRBY|HINCRBYFLOAT)$/.test(name) && args.includes('-0')) {
    return {
      id: 'negative-zero',
      name: '"-0" rejected',
      why:
        `the script subtracted a count of 0 and Lua's -0 reached the server as "-0", which ${name} refuses on Redis 7.0 ` +
        '(Redis 7.2+ and Valkey receive "0" and accept it)',
    };
  }
  return null;
}
