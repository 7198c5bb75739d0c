/** `swc bench --dry-run --json`: the plan and its estimated time; nothing is sent to Redis. */
import { z } from 'zod';
import { header } from './common.js';

export const dryRunSchema = z
  .looseObject({
    ...header,
    dryRun: z.literal(true),
    cells: z.array(z.looseObject({ layout: z.string(), windowSeconds: z.number(), rate: z.number(), events: z.number(), phases: z.array(z.string()) })),
    phases: z.array(z.object({ phase: z.string(), estimatedSeconds: z.number(), beside: z.boolean().optional() })),
    servers: z.number(),
    estimatedSeconds: z.number(),
  })
  .meta({ title: 'swc bench --dry-run --json' });
