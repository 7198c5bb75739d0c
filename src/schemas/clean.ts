/** `swc clean --json`: the swc-bench:* namespaces and swc-demo:* demos found, and what was removed or kept. */
import { z } from 'zod';
import { figure, header, moment, primary } from './common.js';

export const cleanSchema = z
  .looseObject({
    ...header,
    redis: z.looseObject({ url: z.string(), primaries: z.array(primary).optional() }),
    namespaces: z.array(
      z.looseObject({
        prefix: z.string(),
        keys: z.number().int(),
        bytes: figure,
        startedAt: moment.nullable(),
        host: z.string().nullable(),
        pid: figure,
        alive: z.boolean(),
        marked: z.boolean(),
        kind: z.enum(['bench', 'demo']).optional(),
      }),
    ),
    removed: z.array(z.object({ prefix: z.string(), keys: z.number().int() })),
    kept: z.array(z.object({ prefix: z.string(), reason: z.string() })),
    runUsers: z.array(z.string()),
    removedUsers: z.array(z.string()),
  })
  .meta({ title: 'swc clean --json' });
