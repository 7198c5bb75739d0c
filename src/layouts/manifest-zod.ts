/**
 * The zod schema of a layout manifest file (the types it produces are in
 * manifest-schema.ts): each field's type and accepted values, the templates
 * and their placeholders, and the rules across fields, each problem one line
 * naming the file and the field (see core/input-schema.ts).
 */
import type { z } from 'zod';
import { closedObject, describeValue, expected, lazy, parseInput, zod } from '../core/input-schema.js';
import { INCLUDE_CONVENTIONS } from '../lua/source.js';
import type { KeyPart } from './kit/keys.js';
import {
  KEY_TYPES,
  MANIFEST_VERSION,
  OPERATIONS,
  PLACEHOLDERS,
  placeholdersOf,
  type ClockSource,
  type Item,
  type KeySpec,
  type Manifest,
  type OperationName,
  type OperationSpec,
  type Pick,
  type Placeholder,
  type ReplySpec,
  type Template,
} from './manifest-schema.js';
import type { WindowSemantics } from './types.js';

const CLOCKS: readonly ClockSource[] = ['argv', 'argv-ms', 'redis-time'];
const SEMANTICS: readonly WindowSemantics[] = ['closed', 'half-open', 'closed-exact'];

/** Placeholders a light's key templates may use: they name keys without a clock or an event. */
const KEY_PLACEHOLDERS: ReadonlySet<Placeholder> = new Set(['prefix', 'name', 'system', 'lightId', 'systemId', 'hour', 'lbrace']);
const SECONDS_CLOCK: ReadonlySet<Placeholder> = new Set(['now', 'nowSeconds', 'windowStart', 'windowEnd', 'windowStartExact']);
const MS_CLOCK: ReadonlySet<Placeholder> = new Set(['nowMs', 'windowStartMs']);

/** Why a placeholder is refused where it stands, or null. */
type Allowed = (placeholder: Placeholder) => string | null;

/** Splits a template into text and placeholders: the template, or what is wrong with it. */
function splitTemplate(written: string, allowed: Allowed): Template | string {
  const parts: (string | { placeholder: Placeholder })[] = [];
  let last = 0;
  for (const match of written.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    const word = match[1] as string;
    if (!Object.hasOwn(PLACEHOLDERS, word)) {
      return `unknown placeholder "{${word}}" (known: ${Object.keys(PLACEHOLDERS)
        .map((p) => `{${p}}`)
        .join(', ')})`;
    }
    const refused = allowed(word as Placeholder);
    if (refused) return `placeholder "{${word}}" ${refused}`;
    if (match.index > last) parts.push(written.slice(last, match.index));
    parts.push(word === 'lbrace' ? '{' : { placeholder: word as Placeholder });
    last = match.index + match[0].length;
  }
  if (last < written.length) parts.push(written.slice(last));
  // Adjacent literals (a `{lbrace}` next to text) join into one.
  return parts.reduce<(string | { placeholder: Placeholder })[]>((joined, part) => {
    const previous = joined.at(-1);
    if (typeof part === 'string' && typeof previous === 'string') joined[joined.length - 1] = previous + part;
    else joined.push(part);
    return joined;
  }, []);
}

const has = (t: Template | readonly KeyPart[], placeholder: Placeholder): boolean => t.some((p) => typeof p !== 'string' && p.placeholder === placeholder);

/** Whether two templates are the same text and placeholders. */
function sameTemplate(a: readonly KeyPart[], b: Template): boolean {
  return (
    a.length === b.length &&
    a.every((part, i) => {
      const other = b[i];
      return typeof part === 'string' ? part === other : typeof other !== 'string' && other !== undefined && other.placeholder === part.placeholder;
    })
  );
}

/** Builds the schema (on first use: see zod() in core/input-schema.ts). */
function build() {
  const z = zod();

  /** A string; the message says "non-empty" where an empty one is accepted too (as it always has). */
  const text = z.string({ error: expected('a non-empty string') });
  const nonEmpty = text.min(1, { error: expected('a non-empty string'), abort: true });
  const boolean = z.boolean({ error: expected('true or false') });

  function whole(min: number, max: number) {
    const error = expected(`a whole number from ${min} to ${max}`);
    return z.number({ error }).int({ error, abort: true }).min(min, { error, abort: true }).max(max, { error, abort: true });
  }

  function choice<T extends string>(choices: readonly T[]) {
    return z.enum(choices, {
      error: expected(`one of ${choices.map((c) => `"${c}"`).join(', ')}`),
    });
  }

  /** A template string: `{placeholder}`s, a brace that opens none is literal (a hash tag is `{{lightId}}`). */
  function template(base: z.ZodString, allowed: Allowed) {
    return base.transform((written, ctx): Template => {
      const split = splitTemplate(written, allowed);
      if (typeof split !== 'string') return split;
      ctx.issues.push({ code: 'custom', message: split, input: written });
      return z.NEVER;
    });
  }

  /** One KEYS or ARGV item of operation `name`: a template, a number, or `{ "eachHour": … }`. */
  function item(name: OperationName) {
    const allowed =
      (inList: boolean): Allowed =>
      (p) => {
        if (p === 'errorJson' && name !== 'recordFailure') return 'is only known in recordFailure';
        if (p === 'eventId' && name === 'getMetrics') return 'is only known in recordSuccess and recordFailure';
        if (p === 'hourCount' && inList) return 'cannot be used inside an eachHour list';
        return null;
      };
    const eachHour = closedObject({
      eachHour: template(text, allowed(true)).refine((t) => has(t, 'hour'), { error: 'must contain "{hour}" (one item per hour of the window)', abort: true }),
      through: choice(['now', 'now-1s']).optional(),
    });
    return z.union(
      [
        z.number().transform((value): Item => ({ kind: 'literal', value: String(value) })),
        template(z.string(), allowed(false)).transform((t): Item => ({ kind: 'template', template: t })),
        eachHour.transform((list): Item => ({ kind: 'eachHour', template: list.eachHour, through: list.through ?? 'now' })),
      ],
      { error: expected('a template string, a number or { "eachHour": … }') },
    );
  }

  /** Where a snapshot field is in a reply: a position, hash field name(s), or `{ "from": …, "json": "<member>" }`. */
  const PICK = 'a position, hash field name(s), or { "from": …, "json": "<member>" }';
  const position = whole(0, 1000).transform((at): Pick => ({ at }));
  const fieldName = z
    .string()
    .min(1, { error: 'a hash field name cannot be empty', abort: true })
    .transform((name): Pick => ({ fields: [name] }));
  const fieldNames = z
    .array(nonEmpty, { error: expected('a non-empty array') })
    .min(1, { error: expected('a non-empty array'), abort: true })
    .transform((fields): Pick => ({ fields }));
  /** Where the JSON text is: a pick again (written as before: an object here is read the same way). */
  const from: z.ZodType<Pick> = z.lazy(() =>
    z.union([position, fieldName, fieldNames, inJson], { error: expected(PICK, { missing: 'required (a position in the reply, or hash field name(s))' }) }),
  );
  const inJson = closedObject({ from, json: nonEmpty }).transform(({ from, json }): Pick => ({ ...from, json }));

  function pick(missing?: string) {
    return z.union([position, fieldName, fieldNames, inJson], { error: expected(PICK, missing === undefined ? {} : { missing }) });
  }
  const REQUIRED_PICK = 'required (a position in the reply, or a hash field name)';
  const optionalPick = pick().optional();

  const reply = closedObject({
    hash: whole(0, 1000).optional(),
    successes: pick(REQUIRED_PICK),
    failures: pick(REQUIRED_PICK),
    lastSuccessAt: optionalPick,
    lastErrorAt: optionalPick,
    lastErrorJson: optionalPick,
    consecutiveErrors: optionalPick,
    consecutiveSuccesses: optionalPick,
  }).superRefine((spec, ctx) => {
    if (spec.hash !== undefined) return;
    for (const [name, p] of Object.entries(spec)) {
      if (p === undefined || typeof p === 'number' || !('fields' in p)) continue;
      ctx.addIssue({
        code: 'custom',
        continue: false,
        path: p.json === undefined ? [name] : [name, 'from'],
        message: `picks hash field "${p.fields[0]}" but "hash" (the position of the HGETALL array) is not set`,
      });
    }
  });

  function operation(name: OperationName) {
    const items = z.array(item(name), { error: expected('an array') });
    return closedObject(
      {
        script: nonEmpty.refine((s) => s.endsWith('.lua'), {
          error: (issue) => `expected a path to a .lua file, got ${describeValue(issue.input)}`,
          abort: true,
        }),
        keys: items,
        args: items,
        reply: reply.optional(),
        description: z.unknown().optional(),
      },
      { missing: 'required' },
    )
      .superRefine((op, ctx) => {
        const lists = [...op.keys, ...op.args].filter((i) => i.kind === 'eachHour');
        if (new Set(lists.map((l) => l.through)).size > 1) {
          ctx.addIssue({
            code: 'custom',
            continue: false,
            message: 'every eachHour list of one operation must use the same "through" ({hourCount} counts one of them)',
          });
        } else if (placeholdersOf([...op.keys, ...op.args]).has('hourCount') && lists.length === 0) {
          ctx.addIssue({ code: 'custom', continue: false, message: '"{hourCount}" is used but no eachHour list is' });
        }
      })
      .transform(({ script, keys, args, reply }): OperationSpec => ({ script, keys, args, ...(reply ? { reply: reply as ReplySpec } : {}) }));
  }

  /** A light's key template, kept as written too (for messages and inspection). */
  const keyTemplate = nonEmpty
    .transform((written, ctx): { text: string; template: Template } => {
      const split = splitTemplate(written, (p) =>
        KEY_PLACEHOLDERS.has(p) ? null : "is not known in a light's key (keys name a light, not a moment or an event)",
      );
      if (typeof split !== 'string') return { text: written, template: split };
      ctx.issues.push({ code: 'custom', message: split, input: written });
      return z.NEVER;
    })
    // A benchmark puts its namespace in {prefix}: a key that does not start
    // with it would be written (and deleted) outside swc's namespace, among
    // the application's own keys.
    .refine(({ template: t }) => typeof t[0] !== 'string' && t[0]?.placeholder === 'prefix', {
      error: (issue) =>
        `must start with "{prefix}" (swc writes only under its own namespace, which {prefix} carries), got "${(issue.input as { text: string }).text}"`,
      abort: true,
    });

  const key = closedObject({ template: keyTemplate, role: nonEmpty, type: choice(KEY_TYPES), scoresAreSeconds: boolean.optional() })
    .superRefine((k, ctx) => {
      if (k.scoresAreSeconds && k.type !== 'zset') {
        ctx.addIssue({ code: 'custom', continue: false, path: ['scoresAreSeconds'], message: `only a zset has scores, this key is a ${k.type}` });
      }
    })
    .transform(({ template: { text, template }, role, type, scoresAreSeconds }): KeySpec => ({
      // Key templates use only key placeholders (checked by keyTemplate): the key table's.
      template: template as KeySpec['template'],
      text,
      role,
      type,
      scoresAreSeconds: scoresAreSeconds ?? false,
    }));

  const version = z.literal(MANIFEST_VERSION, { error: expected(`${MANIFEST_VERSION} (the manifest format this swc reads)`) });

  /** The manifest's fields, in the order they are checked and listed. */
  const fields = closedObject({
    $schema: z.unknown().optional(),
    manifestVersion: version,
    name: nonEmpty.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
      error: (issue) => `expected letters, digits, ".", "_" or "-" (it names the layout in reports), got ${describeValue(issue.input)}`,
      abort: true,
    }),
    summary: nonEmpty.optional(),
    description: text.optional(),
    prefix: nonEmpty,
    windowSemantics: choice(SEMANTICS),
    maxWindowSeconds: whole(1, 7 * 86_400).optional(),
    stampPrecision: choice(['seconds', 'milliseconds']).optional(),
    clock: choice(CLOCKS),
    includes: choice(INCLUDE_CONVENTIONS).optional(),
    scriptsRoot: nonEmpty.optional(),
    capabilities: closedObject({ failureReturnsSnapshot: boolean, readWrites: boolean }),
    keys: z
      .array(key, { error: expected('a non-empty array') })
      .min(1, { error: expected('a non-empty array'), abort: true })
      // Inspection finds a light by its keys: at least one must carry its name or id.
      .refine((keys) => keys.some((k) => has(k.template, 'name') || has(k.template, 'lightId')), {
        error: 'no key template names the light (use {name} or {lightId})',
        abort: true,
      }),
    operations: closedObject({ recordSuccess: operation('recordSuccess'), recordFailure: operation('recordFailure'), getMetrics: operation('getMetrics') }),
  }).superRefine((m, ctx) => {
    const fail = (path: PropertyKey[], message: string): void => ctx.addIssue({ code: 'custom', continue: false, path, message });
    const clockSet = m.clock === 'argv' ? SECONDS_CLOCK : m.clock === 'argv-ms' ? MS_CLOCK : null;
    for (const op of OPERATIONS) {
      const argUsed = placeholdersOf(m.operations[op].args);
      if (clockSet && ![...clockSet].some((p) => argUsed.has(p))) {
        fail(['operations', op, 'args'], `clock is "${m.clock}" but no argument carries the time (use ${[...clockSet].map((p) => `{${p}}`).join(', ')})`);
      }
    }
    // Every KEYS item of every operation must be one of the light's declared
    // keys: a literal key name, or a template of its own, would let a script
    // be handed a key outside swc's namespace (an application's key), which
    // swc would then write and never know to delete.
    const declared = m.keys.map((k) => k.text).join(', ');
    for (const op of OPERATIONS) {
      m.operations[op].keys.forEach((item, i) => {
        const at = ['operations', op, 'keys', i];
        if (item.kind === 'literal') fail(at, `a literal key name is not allowed; KEYS must be among the declared keys (${declared})`);
        else if (!m.keys.some((k) => sameTemplate(k.template, item.template))) {
          fail(
            item.kind === 'eachHour' ? [...at, 'eachHour'] : at,
            `not one of the declared keys (${declared}): every key an operation passes must be a light key of "keys"`,
          );
        }
      });
    }
    const { recordSuccess, recordFailure, getMetrics } = m.operations;
    if (!getMetrics.reply) fail(['operations', 'getMetrics', 'reply'], 'required (how to read the window from the reply)');
    if (m.capabilities.failureReturnsSnapshot && !recordFailure.reply) {
      fail(['operations', 'recordFailure', 'reply'], 'required when capabilities.failureReturnsSnapshot is true');
    }
    if (!m.capabilities.failureReturnsSnapshot && recordFailure.reply) {
      fail(['operations', 'recordFailure', 'reply'], 'given, but capabilities.failureReturnsSnapshot is false');
    }
    if (recordSuccess.reply) fail(['operations', 'recordSuccess', 'reply'], 'not read: swc ignores what a success returns');
  });

  // The version first: a newer format's fields would otherwise read as typos.
  return z.looseObject({ manifestVersion: version }, { error: expected('an object') }).pipe(fields);
}

/** The schema of a manifest file, built on first use. */
export const manifestSchema = lazy(build);

/** Validates parsed manifest JSON from `file` (named in every error). */
export function parseManifest(file: string, value: unknown): Manifest {
  const m = parseInput(manifestSchema(), file, value, { root: 'manifest' });
  return {
    file,
    name: m.name,
    summary: m.summary ?? `${m.name} (from ${file})`,
    prefix: m.prefix,
    windowSemantics: m.windowSemantics,
    ...(m.maxWindowSeconds !== undefined ? { maxWindowSeconds: m.maxWindowSeconds } : {}),
    stampPrecision: m.stampPrecision ?? 'seconds',
    clock: m.clock,
    includes: m.includes ?? 'none',
    scriptsRoot: m.scriptsRoot ?? '.',
    capabilities: m.capabilities,
    keys: m.keys,
    operations: m.operations,
  };
}
