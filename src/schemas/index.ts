/** Every command's `--json` schema, by the name of its file in schemas/ (`npm run schemas`). */
import type { z } from 'zod';
import { benchSchema } from './bench.js';
import { buildsSchema } from './builds.js';
import { chartSchema } from './chart.js';
import { cleanSchema } from './clean.js';
import { compareBuildsSchema, compareSchema } from './compare.js';
import { demoSchema } from './demo.js';
import { doctorSchema } from './doctor.js';
import { dryRunSchema } from './dry-run.js';
import { inspectSchema } from './inspect.js';
import { lightsSchema } from './lights.js';
import { sweepSchema } from './sweep.js';
import { verifySchema } from './verify.js';

export const OUTPUT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  bench: benchSchema,
  'bench-dry-run': dryRunSchema,
  'bench-sweep': sweepSchema,
  builds: buildsSchema,
  chart: chartSchema,
  compare: compareSchema,
  'compare-across-builds': compareBuildsSchema,
  inspect: inspectSchema,
  lights: lightsSchema,
  verify: verifySchema,
  clean: cleanSchema,
  doctor: doctorSchema,
  demo: demoSchema,
};
