/** `swc verify --json`: what a layout did against the reference model, per layout. */
import { z } from 'zod';
import { clientVerifyResult } from './clients.js';
import { clusterPrimaries, header, moment, serverNamed } from './common.js';

const call = z.looseObject({ op: z.enum(['success', 'failure', 'read']), at: moment });

const fields = z.looseObject({
  successes: z.number(),
  failures: z.number(),
  consecutiveSuccesses: z.number(),
  consecutiveErrors: z.number(),
  lastSuccessAt: moment.nullable(),
  lastErrorAt: moment.nullable(),
  lastErrorJson: z.string().nullable(),
});

const result = z.looseObject({
  layout: z.string(),
  generation: z.looseObject({ id: z.string(), commit: z.string().nullable(), name: z.string(), what: z.string() }).optional(),
  seed: z.number(),
  calls: z.number().int(),
  compared: z.number().int(),
  lights: z.number().int(),
  windows: z.array(z.number()),
  largestEviction: z.number(),
  disagreements: z.array(
    z.looseObject({ windowSeconds: z.number(), expected: fields, actual: fields, reproduction: z.array(call), originalLength: z.number() }),
  ),
  lightsDisagreeing: z.number().int(),
  scriptErrors: z.array(z.looseObject({ windowSeconds: z.number(), error: z.string(), reproduction: z.array(call) })),
  lightsWithErrors: z.number().int(),
  deviationMisses: z.array(z.looseObject({ predicted: fields, actual: fields, reproduction: z.array(call) })),
  deviations: z.array(z.looseObject({ id: z.string(), observed: z.number() })),
  keysWithoutTtl: z.array(z.looseObject({ key: z.string(), light: z.number() })),
  unreproduced: z.array(
    z.looseObject({ kind: z.enum(['disagreement', 'deviation-miss']), windowSeconds: z.number(), calls: z.number().int(), pauseSeconds: z.number() }),
  ),
  crossSlot: z.array(z.looseObject({ op: z.string(), calls: z.number() })),
  slots: z.object({ lightsChecked: z.number(), lightsSpanningSlots: z.number(), oneSlotPerLight: z.boolean() }),
  shrink: z.object({ replays: z.number(), budgetExhausted: z.boolean() }),
  durationSeconds: z.number(),
  findings: z.number().int(),
});

export const verifySchema = z
  .looseObject({ ...header, ...serverNamed, seed: z.number(), findings: z.number().int(), results: z.array(result), cluster: clusterPrimaries.optional(), clients: z.array(clientVerifyResult).optional() })
  .meta({ title: 'swc verify --json' });
