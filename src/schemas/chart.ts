/** `swc chart --out <file> --json`: what was written (the file, its format and size) and from what. */
import { z } from 'zod';
import { header } from './common.js';

export const chartSchema = z
  .looseObject({
    ...header,
    /** The result files read, in order (with two: the baseline, then the current one). */
    inputs: z.array(z.string()),
    panels: z.array(z.string()),
    files: z.array(
      z.looseObject({
        path: z.string(),
        format: z.enum(['svg', 'png']),
        bytes: z.number().int().nonnegative(),
      }),
    ),
    /** One line per asked panel that could not be drawn (also on stderr). */
    notes: z.array(z.string()),
  })
  .meta({ title: 'swc chart --json' });
