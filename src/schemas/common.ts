/**
 * Building blocks of every command's `--json` schema (docs/output.md): the
 * shared header, ISO 8601 moments, and the shapes several commands print.
 * `npm run schemas` writes them as JSON Schema files to schemas/.
 */
import { z } from 'zod';
import { SCHEMA_VERSION } from '../core/schema-version.js';

/** A moment: ISO 8601 in UTC. */
export const moment = z.iso.datetime({ offset: false });

/** What every document starts with. */
export const header = {
  schemaVersion: z.literal(SCHEMA_VERSION),
  swcVersion: z.string(),
};

/** The server a report read or wrote (without credentials, or a snapshot file) and what was not measured there, as its first line names them. */
export const serverNamed = {
  server: z.string().optional().meta({ description: 'the server read or written, without credentials (or the --rdb snapshot file)' }),
  notMeasured: z.array(z.string()).optional().meta({ description: 'what was not measured on that server, each with why' }),
};

/** A figure that JSON may have turned into null (an infinite spread prints as null). */
export const figure = z.number().nullable();

/** How a figure varied across rounds. */
export const spread = z.object({ median: z.number(), min: z.number(), max: z.number(), spreadFraction: figure, noisy: z.boolean() });

/** A primary of a cluster and its slot ranges. */
export const primary = z.looseObject({ node: z.string(), slots: z.string() });

/** On Redis Cluster: every primary. */
export const clusterPrimaries = z.looseObject({ primaries: z.array(primary) });
