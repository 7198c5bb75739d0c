/** Parts of the lights and inspect documents that state Stoplight's config and closeness to tripping. */
import { z } from 'zod';

const source = z.enum(['--window', 'registry', 'default config', 'Stoplight default']).nullable();
const value = <T extends z.ZodType>(v: T) => z.looseObject({ value: v.nullable(), from: source });

/** The config a 6.0 light is judged by: each value with where it came from. */
export const lightConfig = z.looseObject({
  windowSeconds: value(z.number()),
  threshold: value(z.number()),
  trafficControl: value(z.enum(['error_rate', 'consecutive_errors'])),
  coolOffSeconds: value(z.number()),
  minRequests: value(z.number()).optional(),
});

/** How close a light is to tripping by its own strategy: ratio reaches 1 exactly when Stoplight's rule trips it. */
export const tripping = z.looseObject({
  trafficControl: z.enum(['error_rate', 'consecutive_errors']),
  value: z.number(),
  threshold: z.number(),
  ratio: z.number(),
  consecutiveErrors: z.number().int().optional(),
  windowFailures: z.number().int().optional(),
  requests: z.number().int().optional(),
  minRequests: z.number().int().optional(),
});
