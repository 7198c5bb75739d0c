/** `swc compare --json` (and `swc bench --baseline --json`): the verdict, row by row. */
import { z } from 'zod';
import { ttlFinding } from './client-keys.js';
import { figure, header } from './common.js';

const side = z.looseObject({ label: z.string(), swcVersion: z.string(), redis: z.looseObject({ version: z.string(), memAllocator: z.string() }) });

const change = <T extends z.ZodType>(t: T) => z.object({ baseline: t.nullable(), current: t.nullable() });

const keyChange = z.looseObject({ role: z.string(), bytes: change(z.number()), elements: change(z.number()), encoding: change(z.string()) });

const row = z.looseObject({
  cell: z.string(),
  layout: z.string(),
  windowSeconds: z.number(),
  rate: z.number(),
  figure: z.string(),
  reference: z.string().optional(),
  baseline: figure,
  current: figure,
  changeFraction: figure,
  status: z.enum(['ok', 'improved', 'regressed', 'info', 'missing', 'extra']),
  baselineRange: z.object({ min: z.number(), max: z.number() }).optional(),
  currentRange: z.object({ min: z.number(), max: z.number() }).optional(),
  keys: z.array(keyChange).optional(),
  // Instruction rows: the tolerance applied and how it was set (src/compare/rows.ts CountTolerance).
  tolerance: z
    .looseObject({
      fraction: z.number(),
      basis: z.enum(['spread', 'floor', 'fallback', 'flag']),
      spreadFraction: z.number().optional(),
      factor: z.number().optional(),
      floorFraction: z.number().optional(),
    })
    .optional(),
});

export const compareSchema = z
  .looseObject({
    ...header,
    baseline: side,
    current: side,
    comparable: z.boolean(),
    // The verdict in one line, as the table's first line says it.
    verdictLine: z.string(),
    ok: z.boolean(),
    options: z.object({
      memoryToleranceFraction: figure,
      memoryToleranceBytes: figure,
      throughputToleranceFraction: z.number(),
      absolute: z.boolean(),
      serverToleranceFraction: figure,
      instructionsToleranceFraction: figure,
      instructionsSpreadFactor: figure,
      instructionsToleranceFloorFraction: figure,
    }),
    mismatches: z.array(z.object({ field: z.string(), baseline: z.string(), current: z.string() })),
    rows: z.array(row),
    failures: z.array(row),
    improvements: z.array(row),
    missingCells: z.array(z.string()),
    extraCells: z.array(z.string()),
    ttlFindings: z
      .array(ttlFinding.extend({ cell: z.string() }))
      .optional()
      .meta({ description: "the current run's package keys with no TTL or a TTL past their window (bench --client); any one fails the verdict" }),
  })
  .meta({ title: 'swc compare --json' });

const figures = z.object({ encoding: z.string(), elements: z.number(), bytes: z.number() });

/** `swc compare --across-builds --json`: what changed per key role between two builds. */
export const compareBuildsSchema = z
  .looseObject({
    ...header,
    acrossBuilds: z.literal(true),
    baseline: z.looseObject({ label: z.string(), build: z.string() }),
    current: z.looseObject({ label: z.string(), build: z.string() }),
    changes: z.array(
      z.looseObject({
        layout: z.string(),
        windowSeconds: z.number(),
        rate: z.number(),
        role: z.string(),
        baseline: figures.nullable(),
        current: figures.nullable(),
        changed: z.array(z.enum(['encoding', 'elements', 'bytes'])),
      }),
    ),
  })
  .meta({ title: 'swc compare --across-builds --json' });
