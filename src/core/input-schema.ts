/**
 * Input files (manifests, scenarios) are validated by zod schemas and
 * reported the way a bad flag is: one line naming the file, the field
 * (`keys[1].type`, `throughput.connections`) and what it accepts, with the
 * value that was given. The schemas word their own messages with
 * {@link expected} and {@link closedObject}; {@link parseInput} picks the one
 * problem to report and names the file.
 */
import { createRequire } from 'node:module';
import type { z } from 'zod';
import { InputFileError } from './errors.js';

let loaded: typeof z | undefined;

/**
 * zod, loaded on first use. Loading it takes about 50 ms, and most runs of
 * swc read no manifest or scenario: a static import would add that to every
 * start (the CLI tests spawn swc a few hundred times). Its CommonJS build is
 * loaded, so the first use can stay synchronous.
 */
export function zod(): typeof z {
  loaded ??= (createRequire(import.meta.url)('zod') as { z: typeof z }).z;
  return loaded;
}

/** A value built on its first use, once (a schema, so zod loads only when an input file is read). */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/** A value as a message shows it: `"text"`, `12`, `true`, `null`, `an array`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value}"`;
  return typeof value === 'object' ? 'an object' : String(value);
}

/** A field path as written in messages: `layouts[0].keys.buckets`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('');
}

/** An error map for one schema: "expected <what>, got <the value>"; `missing` words an absent field instead. */
export function expected(what: string, { missing }: { missing?: string } = {}): (issue: z.core.$ZodRawIssue) => string {
  return (issue) => (missing !== undefined && issue.input === undefined ? missing : `expected ${what}, got ${describeValue(issue.input)}`);
}

/**
 * An object with exactly these fields (`$schema` is allowed and not listed):
 * an unknown field is `<field>: unknown field (known: …)`, a value of another
 * type is "expected <what>" (and an absent one `missing`, when given).
 */
export function closedObject<Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
  { what = 'an object', missing }: { what?: string; missing?: string } = {},
): z.ZodObject<Shape, z.core.$strict> {
  const known = Object.keys(shape).filter((k) => k !== '$schema');
  const otherwise = expected(what, missing === undefined ? {} : { missing });
  return zod().strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field (known: ${known.join(', ')})` : otherwise(issue)),
  });
}

/**
 * A problem of two or more fields of one object together, raised by a
 * refinement of that object: `throughput.connections/throughput.pipeline`.
 */
export function jointIssue(fields: readonly (readonly PropertyKey[])[], message: string): z.core.$ZodRawIssue {
  return { code: 'custom', continue: false, path: [], params: { fields }, message, input: undefined };
}

function isPrefix(prefix: readonly PropertyKey[], path: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((part, i) => part === path[i]);
}

/** What a value is, in the words of zod's `expected`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Whether a union branch refused the value for being of another type (so
 * the value chose another branch): its first problem is with the value
 * itself, a type it does not have (an `int` is a number) or a value it
 * does not list.
 */
function refusedByType(branch: readonly z.core.$ZodIssue[]): boolean {
  const first = branch[0];
  if (first === undefined || first.path.length > 0) return false;
  if (first.code === 'invalid_value') return true;
  return first.code === 'invalid_type' && (first.expected === 'int' ? 'number' : first.expected) !== kindOf(first.input);
}

/**
 * The one problem to report, as a reader fixes them: an unknown field of an
 * object before the problems inside it (a typo explains the rest), and, in a
 * value of several forms (a union), the problem of the form its type chose;
 * when it has none of the forms, the union's own message.
 */
function firstProblem(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  const first = issues[0];
  if (first === undefined) return undefined;
  const unknown = issues
    .filter((issue) => issue.code === 'unrecognized_keys' && isPrefix(issue.path, first.path))
    .sort((a, b) => a.path.length - b.path.length)[0];
  const chosen = unknown ?? first;
  if (chosen.code === 'invalid_union') {
    const inner = firstProblem(chosen.errors.find((branch) => !refusedByType(branch)) ?? []);
    if (inner) return { ...inner, path: [...chosen.path, ...inner.path] };
  }
  return chosen;
}

/** One issue as swc's one-line message: `<field>: <problem>` (`root` names the field of a problem with the whole input). */
export function issueLine(issue: z.core.$ZodIssue, root?: string): string {
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const joint = issue.code === 'custom' ? (issue.params?.fields as readonly (readonly PropertyKey[])[] | undefined) : undefined;
  const field = (joint?.map((f) => [...path, ...f]) ?? [path]).map(fieldPath).join('/') || root;
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** A schema's own message missing (a schema written without one): the expected type, worded as the others. */
const fallback = (issue: z.core.$ZodRawIssue): string =>
  issue.code === 'invalid_type' ? `expected ${issue.expected}, got ${describeValue(issue.input)}` : `invalid value ${describeValue(issue.input)}`;

/**
 * Validates parsed JSON from `file` with `schema`; the first problem (see
 * above) is an {@link InputFileError} naming the file and the field.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, file: string, value: unknown, { root }: { root?: string } = {}): z.output<Schema> {
  // reportInput: a union's branches are told apart by the type of the value they refused.
  const result = schema.safeParse(value, { error: fallback, reportInput: true });
  if (result.success) return result.data;
  const issue = firstProblem(result.error.issues);
  throw new InputFileError(file, issue ? issueLine(issue, root) : 'invalid');
}
