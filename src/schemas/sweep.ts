/** `swc bench --sweep --json`: one bench document per server setting, the summary and the advice. */
import { z } from 'zod';
import { header, moment } from './common.js';
import { benchSchema } from './bench.js';

export const sweepSchema = z
  .looseObject({
    ...header,
    kind: z.literal('sweep'),
    settings: z.array(z.string()),
    sweep: z.array(z.looseObject({ settings: z.record(z.string(), z.number()), default: z.boolean(), report: benchSchema })),
    summary: z.array(z.looseObject({ layout: z.string(), windowSeconds: z.number(), rate: z.number() })),
    advice: z.array(z.looseObject({ text: z.string() })),
    startedAt: moment,
    elapsedSeconds: z.number(),
  })
  .meta({ title: 'swc bench --sweep --json' });
