/** The keys of the rate-limiter packages as lights, inspect, bench and compare carry them (src/clients/). */
import { z } from 'zod';
import { figure } from './common.js';

/** A package key whose TTL is a finding: none (ttlMs null), or past the package's window plus its slack. */
export const ttlFinding = z
  .looseObject({
    key: z.string(),
    ttlMs: z.number().nullable(),
    windowMs: z.number().nullable(),
    policy: z.string().nullable(),
    package: z.string().optional(),
    longestMs: z.number().optional(),
  })
  .meta({ description: "a package key with no TTL (ttlMs null) or a TTL past the package's window plus its slack (longestMs); policy: the server's maxmemory-policy" });

/** One key of a package, read. */
export const clientKey = z.looseObject({
  package: z.string(),
  key: z.string(),
  prefix: z.string(),
  client: z.string(),
  window: z.number().optional(),
  scope: z.string().optional(),
  kind: z.enum(['counter', 'log']).optional(),
  count: z.number().optional(),
  ttlMs: z.number().nullable().optional(),
  oldestMs: z.number().optional(),
  newestMs: z.number().optional(),
  bytes: figure.optional(),
});

/** `swc lights --json`'s `clients`: the package keys found under their default prefixes. */
export const clientKeys = z.looseObject({
  patterns: z.string(),
  keys: z.array(clientKey),
  ttlFindings: z.array(ttlFinding),
  maxmemoryPolicy: z.string().nullable(),
  skipped: z.array(z.string()),
});
