/** `swc demo --json`: where the demo lights were written, and what each shows. */
import { z } from 'zod';
import { header, moment } from './common.js';

export const demoSchema = z
  .looseObject({
    ...header,
    redis: z.looseObject({ url: z.string(), private: z.boolean() }),
    /** `swc-demo:<8 hex>` on a server swc did not start (`swc clean --yes` removes it); null on swc's own. */
    prefix: z.string().nullable(),
    at: moment,
    windowSeconds: z.number().int(),
    calls: z.number().int(),
    keys: z.array(z.string()),
    lights: z.array(
      z.looseObject({
        layout: z.enum(['stoplight-v5', 'stoplight-v6']),
        system: z.string().nullable(),
        name: z.string(),
        state: z.enum(['green', 'yellow', 'red', 'locked red', 'locked green']),
        story: z.string(),
        recovered: z.boolean(),
        inspect: z.string(),
      }),
    ),
    try: z.array(z.string()),
  })
  .meta({ title: 'swc demo --json' });
