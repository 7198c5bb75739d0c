/** `swc bench --redis-server A,B --json` and `swc verify --redis-server A,B --json`: one entry per build, its run's own document as `result`. */
import { z } from 'zod';
import { header } from './common.js';

const build = z.looseObject({ label: z.string().optional() });

export const buildsSchema = z
  .looseObject({
    ...header,
    builds: z.record(
      z.string(),
      z.looseObject({
        build: build,
        exitCode: z.number().int(),
        // The build's own `swc bench --json` or `swc verify --json` (their schemas), null when it printed none.
        result: z.looseObject({ ...header }).nullable(),
      }),
    ),
  })
  .meta({ title: 'swc bench/verify --redis-server A,B --json' });
