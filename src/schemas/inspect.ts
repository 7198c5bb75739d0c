/** `swc inspect --json`: one light, in every layout that holds it. */
import { z } from 'zod';
import { clusterPrimaries, figure, header, moment, serverNamed } from './common.js';
import { clientKey, ttlFinding } from './client-keys.js';

const counts = z.object({ successes: z.number(), failures: z.number() });

const key = z.looseObject({
  key: z.string(),
  role: z.string(),
  expectedType: z.string(),
  type: z.string(),
  wrongType: z.boolean(),
  encoding: z.string().nullable(),
  elements: figure,
  bytes: figure,
  bytesExact: z.boolean(),
  ttlSeconds: figure,
  slot: z.number().int(),
  node: z.string().optional(),
  limits: z
    .looseObject({ entriesSetting: z.string(), entriesLimit: figure, valueSetting: z.string(), valueLimit: figure, longestBytes: z.number() })
    .nullable(),
});

import { lightConfig, tripping } from './stoplight.js';

const inspection = z.looseObject({
  kind: z.enum(['buckets', 'events', 'keys']),
  layout: z.string(),
  light: z.string(),
  keys: z.array(key),
  window: z.looseObject({
    lengthSeconds: figure,
    at: moment,
    clock: z.enum(['server', 'given']),
    // A Unix second as Redis holds it (a bucket's second, a score): a number named …Second.
    fromSecond: figure,
    source: z.enum(['given', 'registry', 'layout', 'none']),
  }),
  totals: counts.nullable(),
  windowTotals: counts.nullable(),
  summary: z.looseObject({ errorRate: figure, bytes: figure, bytesPerWindowSecond: figure, bytesPerEvent: figure }),
  consistent: z.boolean(),
  problems: z.array(z.string()),
  unavailable: z.array(z.string()),
  recoveredAt: moment.nullable().optional(),
  state: z
    .looseObject({ state: z.enum(['red', 'yellow', 'locked red', 'locked green', 'green']), since: moment.nullable(), reason: z.string() })
    .optional(),
  windowNotes: z.array(z.string()).optional(),
  /** 6.0: which of the light's keys exist by kind, and `registry` for its registry entry. */
  keyKinds: z.array(z.string()).optional(),
  /** 6.0: the state hash as stored. */
  stateFields: z.record(z.string(), z.string()).optional(),
  recoveryMetrics: z.record(z.string(), z.string()).optional(),
  registry: z.looseObject({ key: z.string(), field: z.string(), config: z.looseObject({}) }).nullable().optional(),
  /** 6.0: the config the light is judged by, each value with where it came from. */
  config: lightConfig.optional(),
  tripping: tripping.optional(),
  trippingUnknown: z.string().optional(),
  /** How the light was found: by name (no SCAN) or by a walk, and why. */
  lookup: z.string().optional(),
});

export const inspectSchema = z
  .looseObject({
    ...header,
    ...serverNamed,
    request: z.looseObject({
      light: z.string(),
      layout: z.string().optional(),
      system: z.string().optional(),
      windowSeconds: z.number().optional(),
      at: moment.optional(),
    }),
    drift: z.boolean(),
    inspections: z.array(inspection),
    cluster: clusterPrimaries.optional(),
    notFound: z.string().optional(),
    clientKey: clientKey
      .extend({ naming: z.string(), problems: z.array(z.string()), unavailable: z.array(z.string()) })
      .optional()
      .meta({ description: 'a key of a rate-limiter package (inspections is then empty)' }),
    ttlFindings: z.array(ttlFinding).optional(),
    maxmemoryPolicy: z.string().nullable().optional(),
  })
  .meta({ title: 'swc inspect --json' });
