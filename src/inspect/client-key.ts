import type { Redis } from 'ioredis';
import { NotFoundError } from '../core/errors.js';
import { claimClientKey, KEY_NAMES, type ClaimedKey, type ClientPrefix } from '../clients/key-names.js';
import { readClientKeys, readMaxmemoryPolicy, type ClientKeyListing } from '../clients/read-keys.js';
import type { TtlFinding } from '../clients/ttl.js';
import { registeredLayouts } from '../layouts/index.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';
import { SWC_VERSION } from '../core/version.js';

/** `swc inspect <key>` on a key of a rate-limiter package. */
export interface ClientKeyInspection {
  readonly key: string;
  readonly claim: ClaimedKey;
  /** Where the package's default prefix comes from, and how the key is built. */
  readonly naming: string;
  /** The key as read; null when it is not the package's (another type, not a counter): `problems` says why. */
  readonly listing: ClientKeyListing | null;
  readonly ttlFindings: readonly TtlFinding[];
  /** The server's maxmemory-policy (what a key with no TTL means for eviction); null when CONFIG GET is refused. */
  readonly maxmemoryPolicy: string | null;
  readonly problems: readonly string[];
  readonly unavailable: readonly string[];
}

/** The package whose naming `text` has (under a default prefix or one given), when no registered layout owns it as a key; null otherwise. */
export function clientKeyOf(text: string, prefixes: readonly ClientPrefix[] = []): ClaimedKey | null {
  if (registeredLayouts().some((l) => l.inspector.lightOfKey(text) !== null)) return null;
  return claimClientKey(text, prefixes);
}

/**
 * Reads one key of a rate-limiter package, read-only (TYPE, PTTL, GETRANGE
 * or ZCARD/ZRANGE, MEMORY USAGE, CONFIG GET maxmemory-policy). Throws
 * {@link NotFoundError} when the key does not exist. `windowMs` (`--window`):
 * a TTL past the package's longest for that window is a finding.
 */
export async function inspectClientKey(redis: Redis, claim: ClaimedKey, windowMs: number | null): Promise<ClientKeyInspection> {
  const read = await readClientKeys(redis, [claim], { windowMs });
  if (read.keys.length === 0 && read.skipped.length === 0) {
    throw new NotFoundError(`no key ${claim.key} (a ${claim.packageName} key by its name) on this server`);
  }
  // The policy is shown with every package key: what a key without TTL would mean here.
  const policy = read.ttlFindings.length > 0 ? { policy: read.maxmemoryPolicy, unavailable: null } : await readMaxmemoryPolicy(redis);
  return {
    key: claim.key,
    claim,
    naming: KEY_NAMES[claim.packageName]?.prefixNote ?? '',
    listing: read.keys[0] ?? null,
    ttlFindings: read.ttlFindings,
    maxmemoryPolicy: policy.policy,
    problems: read.skipped,
    unavailable: [...read.unavailable, ...(policy.unavailable !== null ? [policy.unavailable] : [])],
  };
}

/** `swc inspect <package key> --json`: inspect's document, with no light inspection and the key in `clientKey`. */
export function clientKeyDocument(
  i: ClientKeyInspection,
  server: { readonly where: string; readonly notMeasured: readonly string[] },
): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    swcVersion: SWC_VERSION,
    server: server.where,
    notMeasured: server.notMeasured,
    request: { light: i.key },
    drift: false,
    inspections: [],
    clientKey: {
      package: i.claim.packageName,
      naming: i.naming,
      key: i.key,
      ...(i.listing ?? { ...i.claim.parts, prefix: i.claim.prefix }),
      problems: i.problems,
      unavailable: i.unavailable,
    },
    ttlFindings: i.ttlFindings,
    maxmemoryPolicy: i.maxmemoryPolicy,
  };
}
