/** The text of every shipped JSON Schema file, by file name (tools/schemas.ts writes them; a unit test compares). */
import { z } from 'zod';
import { OUTPUT_SCHEMAS } from '../src/schemas/index.js';

export function schemaFiles(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(OUTPUT_SCHEMAS).map(([name, schema]) => {
      const json = z.toJSONSchema(schema);
      return [`${name}.schema.json`, `${JSON.stringify(json, null, 2)}\n`];
    }),
  );
}
