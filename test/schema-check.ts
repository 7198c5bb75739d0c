/**
 * Validates a command's JSON against its shipped JSON Schema file
 * (schemas/<name>.schema.json, as the package ships it), with ajv: the files
 * a user gets are what the tests prove, not the zod source they came from.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

/** The ajv errors of `json` against schemas/<name>.schema.json, as `path: message` lines; empty when it validates. */
export function schemaErrors(name: string, json: unknown): string[] {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(new URL(`../schemas/${name}.schema.json`, import.meta.url), 'utf8')) as object);
    compiled.set(name, validate);
  }
  return validate(json) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'} ${JSON.stringify(e.params)}`);
}
