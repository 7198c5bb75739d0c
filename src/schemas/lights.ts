/** `swc lights --json`: every light of every registered layout on a Redis, with totals per layout. */
import { z } from 'zod';
import { figure, header, moment, primary } from './common.js';
import { lightConfig, tripping } from './stoplight.js';
import { clientKeys } from './client-keys.js';

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
      windowFrom: z
        .enum(['window', 'windows', 'registry', 'span'])
        .nullable()
        .meta({ description: "where the replay's window came from: --window, a --windows rule, the 6.0 registry, or (none known) the span of the light's events" }),
      windowRule: z.string().optional().meta({ description: 'with windowFrom windows: the rule, as `<file>:<line> <pattern>`' }),
      even: z
        .looseObject({ rate: z.number(), failureRate: z.number(), events: z.number().int(), bytes: z.number() })
        .optional()
        .meta({ description: "--forecast-even: bytes after one window of even traffic at the light's mean rate and failure share (swc bench --window W --rate rate --failure-rate failureRate, its default seed)" }),
    })
    .optional(),
  rdbBound: z
    .looseObject({ bytes: z.number(), fraction: z.number().nullable() })
    .optional()
    .meta({ description: "--rdb: the most the live server's bytes can differ from this light's snapshot bytes, from the shape of its keys" }),
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
    snapshot: z
      .looseObject({ settling: z.string(), note: z.string(), bound: z.string() })
      .optional()
      .meta({ description: '--rdb: what the bytes are, and how each light\'s rdbBound is made' }),
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
        windowSources: z.looseObject({ window: z.number().int(), windows: z.number().int(), registry: z.number().int(), span: z.number().int() }),
        comparison: z.string(),
      })
      .optional(),
    lights: z.array(light),
    clients: clientKeys.optional().meta({ description: 'keys of rate-limiter packages under their default prefixes (absent when --layout names layouts)' }),
  })
  .meta({ title: 'swc lights --json' });
