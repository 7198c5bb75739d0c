/** `swc doctor --json`: the server, its limits, and whether every script loads. */
import { z } from 'zod';
import { figure, header } from './common.js';

export const doctorSchema = z
  .looseObject({
    ...header,
    redis: z.looseObject({
      url: z.string(),
      private: z.boolean(),
      version: z.string(),
      memAllocator: z.string(),
      mode: z.string(),
      config: z.record(z.string(), figure),
    }),
    scripts: z.array(z.object({ file: z.string(), sha1: z.string(), loaded: z.boolean() })),
    checks: z.array(z.looseObject({ name: z.string(), status: z.enum(['ok', 'warn', 'fail']), detail: z.string() })),
    memory: z.looseObject({ usedBytes: figure, maxBytes: figure, policy: z.string().nullable() }),
    permissions: z.looseObject({ missing: z.array(z.unknown()) }),
    access: z
      .looseObject({
        method: z.enum(['acl-dryrun', 'noperm-answers']),
        families: z.array(
          z.looseObject({
            family: z.enum(['connection', 'read', 'server', 'write', 'scripts']),
            allowed: z.array(z.string()),
            denied: z.array(z.looseObject({ command: z.string(), reason: z.string() })),
            neededBy: z.array(z.string()),
          }),
        ),
        allows: z.array(z.string()),
        refuses: z.array(z.string()),
        readOnly: z.boolean(),
      })
      .meta({ description: 'what the connected user may run, per family of the commands swc sends, and the swc commands that allows' }),
    ok: z.boolean(),
  })
  .meta({ title: 'swc doctor --json' });
