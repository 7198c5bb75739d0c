/** `swc lights --json`: every light of every registered layout on a Redis, with totals per layout. */
import { z } from 'zod';
import { figure, header, moment, primary } from './common.js';
import { lightConfig, tripping } from './stoplight.js';

const light = z.looseObject({
  layout: z.string(),
  light: z.string(),
  systemId: z.string().nullable(),
  reference: z.string(),
  name: z.string(),
  keys: z.number().int(),
  bytes: figure,
  bytesExact: z.boolean(),
  firstSecond: figure,
  lastSecond: figure,
  spanSeconds: z.number(),
  idleSeconds: figure,
  events: figure,
  staleEvents: figure,
  drift: z.boolean().nullable(),
  /** True when the scan stopped before it walked every key: the light's keys may not all have been read, and drift is null. */
  partial: z.boolean(),
  failureRate: figure,
  state: z.enum(['red', 'yellow', 'locked red', 'locked green', 'green']).nullable(),
  stateSinceSecond: figure,
  stateReason: z.string().nullable(),
  notes: z.array(z.string()),
  /** With --forecast: the light's bytes after its recorded events were replayed into the forecast's layout, and whether it was measured. */
  forecast: z
    .looseObject({
      layout: z.string(),
      method: z.enum(['measured', 'capped', 'sampled-out', 'no-events', 'unsupported']),
      bytes: figure,
      events: z.number().int(),
      heldEvents: figure,
      windowSeconds: figure,
      windowFrom: z.enum(['window', 'registry', 'span']).nullable(),
    })
    .optional(),
  tripping: tripping.optional(),
  /** Why closeness is not said (strategy unknown, no window for error rate). */
  trippingUnknown: z.string().optional(),
  /** 6.0: the config the light is judged by, each value with where it came from (--window, registry, default config). */
  config: lightConfig.optional(),
  /** Which of the light's keys exist, by kind; `registry` for a registry entry. */
  keyKinds: z.array(z.string()).optional(),
});

export const lightsSchema = z
  .looseObject({
    ...header,
    server: z.string().optional(),
    at: moment,
    clock: z.string(),
    windowSeconds: figure,
    threshold: z.number().optional(),
    patterns: z.array(z.unknown()),
    unavailable: z.array(z.string()),
    partial: z.boolean(),
    problems: z.array(z.unknown()),
    leftovers: z.unknown(),
    matched: z.number().int(),
    totals: z.array(z.looseObject({ layout: z.string() })),
    total: z.looseObject({}),
    cluster: z.looseObject({ primaries: z.array(primary), nodeTotals: z.array(z.looseObject({ node: z.string() })) }).optional(),
    /** With --forecast: the fleet's total, measured or extrapolated from the lights replayed. */
    forecast: z
      .looseObject({
        layout: z.string(),
        lights: z.number().int(),
        measured: z.number().int(),
        sampledOut: z.number().int(),
        notReplayed: z.number().int(),
        measuredBytes: z.number(),
        totalBytes: figure,
        extrapolated: z.boolean(),
        currentBytes: figure,
        events: z.number().int(),
        sample: z.number().int(),
        maxEvents: z.number().int(),
        partial: z.boolean(),
        server: z.looseObject({ version: z.string(), allocator: z.string() }),
        method: z.string(),
      })
      .optional(),
    lights: z.array(light),
  })
  .meta({ title: 'swc lights --json' });
