/**
 * A layout described by a manifest file (see manifest-schema.ts, and
 * manifest-zod.ts for its validation): its scripts are read from the user's
 * disk, its calls built from KEYS/ARGV templates and its replies read by
 * position or hash field, so a layout swc does not ship benches, inspects
 * and verifies like a built-in one.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { InputFileError, ScriptContractError } from '../core/errors.js';
import { readJsonFile } from '../core/json-file.js';
import { injectedTimeArg, loadScript, withInjectedClock, type LuaScript, type ScriptCall } from '../lua/source.js';
import {
  OPERATIONS,
  placeholdersOf,
  type Item,
  type Manifest,
  type OperationName,
  type OperationSpec,
  type Pick,
  type Placeholder,
  type ReplySpec,
  type Template,
} from './manifest-schema.js';
import { parseManifest } from './manifest-zod.js';
import { remember } from './recipes.js';
import { pairsToRecord, toInt, toIntOrNull, toStringOrNull } from './parse.js';
import { HOUR_SECONDS, hourStart, KeyTable, nameId } from './kit/keys.js';
import { TemplateInspector } from './kit/template-inspector.js';
import { V5_FIRST_SECOND_OF_HOUR } from './stoplight/v5.js';
import {
  DEFAULT_SYSTEM,
  type CallOptions,
  type FailureOptions,
  type Layout,
  type LayoutCapabilities,
  type LayoutInspector,
  type LayoutOptions,
  type Light,
  type LightKey,
  type RecordOptions,
  type Snapshot,
  type StampPrecision,
  type WindowDeviation,
} from './types.js';

/**
 * Options for a manifest layout: those every layout takes (`prefix`, default
 * the manifest's; `scriptsDir`, default the manifest's `scriptsRoot` relative
 * to the manifest), and the inspector of a built-in layout whose keys the
 * manifest's scripts write (default: the template inspector over the
 * manifest's keys).
 */
export interface ManifestLayoutOptions extends LayoutOptions {
  readonly inspector?: (prefix: string) => LayoutInspector;
}

/** Reads and validates a manifest file; every problem is one InputFileError naming the file and field. */
export function readManifest(file: string): Manifest {
  return parseManifest(file, readJsonFile(file));
}

/** Reads a manifest file and builds its layout. */
export function loadManifestLayout(file: string, options: ManifestLayoutOptions = {}): ManifestLayout {
  const manifest = readManifest(file);
  return remember(new ManifestLayout(manifest, options), { name: manifest.name, create: (o) => new ManifestLayout(manifest, o), options });
}

/**
 * The registry's manifest loader: validates the file and reads its scripts
 * once (so a bad manifest or a missing script fails before Redis is
 * touched), then builds the layout with each caller's prefix and scripts folder.
 */
export function manifestDefinition(file: string): { name: string; create(options?: LayoutOptions): Layout } {
  const manifest = readManifest(file);
  // The manifest's own scriptsRoot is read now, but a missing script there is
  // only an error for a caller that does not give `--scripts <dir>`, which
  // replaces scriptsRoot (a copy of a shipped manifest points at no scripts).
  let ownRoot: unknown = null;
  try {
    new ManifestLayout(manifest);
  } catch (err) {
    if (!(err instanceof InputFileError)) throw err;
    ownRoot = err;
  }
  return {
    name: manifest.name,
    create: (options) => {
      if (ownRoot !== null && options?.scriptsDir === undefined) throw ownRoot;
      return new ManifestLayout(manifest, options);
    },
  };
}

/** The parts of a light's keys that do not change from call to call. */
interface LightValues {
  readonly prefix: string;
  readonly name: string;
  readonly system: string;
  readonly lightId: string;
  readonly systemId: string;
}

/** What one call is made of, before it becomes placeholder values. */
interface CallInput {
  readonly ids: LightValues;
  readonly at: number;
  readonly window: number;
  readonly hourCount: number;
  readonly eventId: string | undefined;
  readonly errorJson: string | undefined;
}

/** One call's placeholder values. */
type Values = Partial<Record<Placeholder, string>>;

/** Computes the values of the placeholders an operation uses (and only those: a call is built per event). */
function valuesOf(used: readonly Placeholder[], input: CallInput): Values {
  const values: Values = {};
  const seconds = Math.floor(input.at);
  let ms: number | undefined;
  const millis = (): number => (ms ??= Math.floor(Number(injectedTimeArg(input.at)) / 1000));
  for (const placeholder of used) {
    switch (placeholder) {
      case 'prefix':
      case 'name':
      case 'system':
      case 'lightId':
      case 'systemId':
        values[placeholder] = input.ids[placeholder];
        break;
      case 'hour':
        values.hour = String(hourStart(seconds));
        break;
      case 'lbrace':
        values.lbrace = '{';
        break;
      case 'now':
        values.now = String(input.at);
        break;
      case 'nowSeconds':
      case 'windowEnd':
        values[placeholder] = String(seconds);
        break;
      case 'nowMs':
        values.nowMs = String(millis());
        break;
      case 'window':
        values.window = String(input.window);
        break;
      case 'windowStart':
        values.windowStart = String(seconds - input.window);
        break;
      case 'windowStartExact':
        values.windowStartExact = String(input.at - input.window);
        break;
      case 'windowTwice':
        values.windowTwice = String(2 * input.window);
        break;
      case 'windowPlusHour':
        values.windowPlusHour = String(input.window + HOUR_SECONDS);
        break;
      case 'windowStartMs':
        values.windowStartMs = String(millis() - input.window * 1000);
        break;
      case 'hourCount':
        values.hourCount = String(input.hourCount);
        break;
      case 'eventId':
        values.eventId = input.eventId ?? randomBytes(12).toString('hex');
        break;
      case 'errorJson':
        values.errorJson = input.errorJson ?? '';
        break;
    }
  }
  return values;
}

/** A template with its values; `hour` is the hour of an eachHour item. */
function render(template: Template, values: Values, hour?: number): string {
  let out = '';
  for (const part of template) {
    if (typeof part === 'string') out += part;
    else if (part.placeholder === 'hour' && hour !== undefined) out += String(hour);
    else out += values[part.placeholder] ?? '';
  }
  return out;
}

function renderItems(items: readonly Item[], values: Values, hours: readonly number[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    if (item.kind === 'literal') out.push(item.value);
    else if (item.kind === 'template') out.push(render(item.template, values));
    else for (const hour of hours) out.push(render(item.template, values, hour));
  }
  return out;
}

function pickValue(reply: readonly unknown[], hash: Record<string, string> | undefined, pick: Pick | undefined): unknown {
  if (!pick) return undefined;
  let value: unknown;
  if ('at' in pick) value = reply[pick.at];
  else for (const field of pick.fields) if (value === undefined && hash && Object.hasOwn(hash, field)) value = hash[field];
  return pick.json === undefined ? value : jsonMember(value, pick.json);
}

/** A member of JSON text, or undefined when the text is absent, not JSON, or not an object. */
function jsonMember(text: unknown, member: string): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>)[member] : undefined;
  } catch {
    return undefined;
  }
}

/** A reply as a message shows it: JSON, cut to 80 characters. */
function shown(reply: unknown): string {
  const text = JSON.stringify(reply, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString() : value)) ?? String(reply);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * What is wrong with a reply's shape for `spec`, or undefined: it must be an
 * array, its counts (successes, failures) numbers or nil where the spec
 * reads them by index, and its hash, when the spec has one, a flat array of fields and
 * values. A value left out at the end still reads as 0 or null (a Lua nil
 * ends the array Redis sends).
 */
export function replyShapeProblem(spec: ReplySpec, reply: unknown): string | undefined {
  const indexes = Object.entries(spec)
    .flatMap(([name, pick]) => (typeof pick === 'object' && pick !== null && 'at' in pick ? [`${String(pick.at)} ${name}`] : []))
    .join(', ');
  const expected = `an array (${indexes}${spec.hash !== undefined ? `; ${spec.hash}: a hash as a flat array of fields and values` : ''})`;
  if (!Array.isArray(reply)) return `returned ${shown(reply)} where the manifest's reply expects ${expected}`;
  for (const name of ['successes', 'failures'] as const) {
    const pick = spec[name];
    if (pick === undefined || !('at' in pick)) continue;
    const value: unknown = reply[pick.at];
    // A nil (null, or left out at the end) reads as 0, as Stoplight 6.0's failure write answers; anything else must be a number.
    const numeric =
      value === null ||
      value === undefined ||
      typeof value === 'number' ||
      (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    if (!numeric) return `returned ${shown(reply)}: index ${pick.at} (${name}) is ${shown(value)}, not a number; the manifest's reply expects ${expected}`;
  }
  if (spec.hash !== undefined && !Array.isArray(reply[spec.hash])) {
    return `returned ${shown(reply)}: index ${spec.hash} (the hash) is ${reply[spec.hash] === undefined ? 'missing' : shown(reply[spec.hash])}; the manifest's reply expects ${expected}`;
  }
  return undefined;
}

/** Reads a reply as a snapshot by a manifest's reply spec; missing values read as 0 or null. */
export function parseReply(spec: ReplySpec, reply: unknown): Snapshot {
  const array = Array.isArray(reply) ? (reply as unknown[]) : [];
  const hash = spec.hash === undefined ? undefined : pairsToRecord(array[spec.hash]);
  const get = (pick: Pick | undefined): unknown => pickValue(array, hash, pick);
  return {
    successes: toInt(get(spec.successes)),
    failures: toInt(get(spec.failures)),
    consecutiveSuccesses: toInt(get(spec.consecutiveSuccesses)),
    consecutiveErrors: toInt(get(spec.consecutiveErrors)),
    lastSuccessAt: toIntOrNull(get(spec.lastSuccessAt)),
    lastErrorAt: toIntOrNull(get(spec.lastErrorAt)),
    lastErrorJson: toStringOrNull(get(spec.lastErrorJson)),
  };
}

/**
 * A layout built from a {@link Manifest}. Scripts that read Redis `TIME`
 * (`clock: "redis-time"`) run wrapped by {@link withInjectedClock}, with the
 * injected time as one extra, last ARGV that the wrapper takes off.
 */
export class ManifestLayout implements Layout {
  readonly name: string;
  readonly summary: string;
  readonly windowSemantics: Layout['windowSemantics'];
  readonly prefix: string;
  readonly capabilities: LayoutCapabilities;
  readonly inspector: LayoutInspector;
  /** How the scripts stamp last_success_at / last_error_at. */
  readonly stampPrecision: StampPrecision;
  /** The scripts take the time as an argument and may store it as passed (see Layout.stampsAsPassed). */
  readonly stampsAsPassed: boolean;
  /**
   * What the manifest's calls make the read miss on purpose: a read whose
   * hour lists end at `now-1s` picks its hour keys as Stoplight 5.x's client
   * does, and so misses the first second of an hour as 5.x does.
   */
  readonly deviations: readonly WindowDeviation[];
  readonly scripts: readonly LuaScript[];
  /** The folder the scripts were read from. */
  readonly scriptsDir: string;
  private readonly byOperation: Readonly<Record<OperationName, LuaScript>>;
  /** Per operation, the last hour of its eachHour lists ('now' or 'now-1s'), or null when it has none. */
  private readonly hourLists: Readonly<Record<OperationName, 'now' | 'now-1s' | null>>;
  /** Per operation, the placeholders its KEYS and ARGV use. */
  private readonly used: Readonly<Record<OperationName, readonly Placeholder[]>>;
  private readonly ids = new Map<string, LightValues>();
  /** The manifest's `keys`, as the layout's key table. */
  readonly keyTable: KeyTable;

  constructor(
    readonly manifest: Manifest,
    options: ManifestLayoutOptions = {},
  ) {
    this.name = manifest.name;
    this.summary = manifest.summary;
    this.windowSemantics = manifest.windowSemantics;
    this.prefix = options.prefix ?? manifest.prefix;
    this.capabilities = { ...manifest.capabilities, maxWindowSeconds: manifest.maxWindowSeconds ?? null };
    this.stampPrecision = manifest.stampPrecision;
    this.stampsAsPassed = manifest.clock === 'argv' || manifest.clock === 'argv-ms';
    this.scriptsDir = options.scriptsDir ?? path.resolve(path.dirname(manifest.file), manifest.scriptsRoot);
    const loaded = new Map<string, LuaScript>();
    const byOperation = {} as Record<OperationName, LuaScript>;
    for (const op of OPERATIONS) {
      const file = manifest.operations[op].script;
      let script = loaded.get(file);
      if (!script) {
        try {
          script = loadScript({ root: this.scriptsDir, file, includes: manifest.includes, id: `${manifest.name}/${file.replace(/\.lua$/, '')}` });
        } catch (err) {
          if (err instanceof InputFileError) throw new InputFileError(manifest.file, `operations.${op}.script: ${err.message}`);
          throw err;
        }
        if (manifest.clock === 'redis-time') script = withInjectedClock(script);
        loaded.set(file, script);
      }
      byOperation[op] = script;
    }
    this.byOperation = byOperation;
    this.hourLists = Object.fromEntries(
      OPERATIONS.map((op) => {
        const { keys, args } = manifest.operations[op];
        const list = [...keys, ...args].find((item) => item.kind === 'eachHour');
        return [op, list?.kind === 'eachHour' ? list.through : null];
      }),
    ) as Record<OperationName, 'now' | 'now-1s' | null>;
    this.deviations =
      this.hourLists.getMetrics !== 'now-1s'
        ? []
        : this.hourLists.recordFailure === 'now-1s' && manifest.capabilities.failureReturnsSnapshot
          ? [{ ...V5_FIRST_SECOND_OF_HOUR, failureReplies: true }]
          : [V5_FIRST_SECOND_OF_HOUR];
    this.used = Object.fromEntries(
      OPERATIONS.map((op) => [op, [...placeholdersOf([...manifest.operations[op].keys, ...manifest.operations[op].args])]]),
    ) as Record<OperationName, Placeholder[]>;
    this.scripts = [...loaded.values()];
    this.keyTable = new KeyTable(this.prefix, Object.fromEntries(manifest.keys.map((spec, i) => [String(i), spec])));
    this.inspector = options.inspector?.(this.prefix) ?? new TemplateInspector(this.name, this.keyTable);
  }

  /** The light's key parts, cached: two SHA-256 per call would cost more client time than the call. */
  private idsOf(light: Light): LightValues {
    const system = light.system ?? DEFAULT_SYSTEM;
    const cacheKey = `${system}\u0000${light.name}`;
    let ids = this.ids.get(cacheKey);
    if (!ids) {
      ids = { prefix: this.prefix, name: light.name, system, lightId: nameId(light.name), systemId: nameId(system) };
      if (this.ids.size >= 10_000) this.ids.clear();
      this.ids.set(cacheKey, ids);
    }
    return ids;
  }

  private call(op: OperationName, light: Light, options: CallOptions, eventId: string | undefined, errorJson: string | undefined): ScriptCall {
    const spec: OperationSpec = this.manifest.operations[op];
    // Without an injected time, a script that takes the time as an argument
    // gets this machine's clock, as an application's client would send it.
    const at = options.at ?? Date.now() / 1000;
    const window = Math.min(options.windowSeconds, this.manifest.maxWindowSeconds ?? Infinity);
    const hours: number[] = [];
    const through = this.hourLists[op];
    if (through !== null) {
      const seconds = Math.floor(at);
      const last = hourStart(through === 'now-1s' ? seconds - 1 : seconds);
      for (let h = hourStart(seconds - window); h <= last; h += HOUR_SECONDS) hours.push(h);
    }
    const values = valuesOf(this.used[op], { ids: this.idsOf(light), at, window, hourCount: hours.length, eventId, errorJson });
    const args: (string | number)[] = renderItems(spec.args, values, hours);
    if (this.manifest.clock === 'redis-time') args.push(injectedTimeArg(options.at));
    return { script: this.byOperation[op], keys: renderItems(spec.keys, values, hours), args };
  }

  recordSuccess(light: Light, options: RecordOptions): ScriptCall {
    return this.call('recordSuccess', light, options, options.eventId, undefined);
  }

  recordFailure(light: Light, options: FailureOptions): ScriptCall {
    return this.call('recordFailure', light, options, options.eventId, options.errorJson);
  }

  getMetrics(light: Light, options: CallOptions): ScriptCall {
    return this.call('getMetrics', light, options, undefined, undefined);
  }

  parseMetrics(reply: unknown): Snapshot {
    return this.parsed('getMetrics', this.manifest.operations.getMetrics.reply as ReplySpec, reply);
  }

  parseFailure(reply: unknown): Snapshot | null {
    const spec = this.manifest.operations.recordFailure.reply;
    return spec ? this.parsed('recordFailure', spec, reply) : null;
  }

  /** A reply read by `spec`; a reply of another shape is the script's contract broken (exit 2), never a window of zeros. */
  private parsed(op: OperationName, spec: ReplySpec, reply: unknown): Snapshot {
    const problem = replyShapeProblem(spec, reply);
    if (problem !== undefined) throw new ScriptContractError(`${this.byOperation[op].file} (${op} of manifest layout ${this.name}): ${problem}`);
    return parseReply(spec, reply);
  }

  keysOf(light: Light, fromSecond: number, toSecond: number): LightKey[] {
    return this.keyTable.keysOf(light, fromSecond, toSecond);
  }
}
