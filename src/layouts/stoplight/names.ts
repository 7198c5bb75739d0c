import { readInputFile } from '../../core/json-file.js';
import { InputFileError, UsageError } from '../../core/errors.js';
import { nameId } from '../kit/keys.js';
import { DEFAULT_SYSTEM, type NameBook, type RegisteredConfig } from '../types.js';

export type { NameBook, RegisteredConfig };
// The ids 6.0 keys carry: the key model's {lightId} and {systemId}.
export { nameId };

/**
 * Stoplight 6.0 keys carry the first 12 hex characters of SHA-256 of the
 * system name and of the light name, never the names. A name book turns
 * those ids back into names from what swc can know: the name `default`
 * (every application has that system), the registry of light configs some
 * Stoplight versions keep in Redis, a `--names` file, and a literal
 * `--system` / `--match` value.
 */
/** A book that knows the `default` system only. */
export function newNameBook(): NameBook {
  return { systems: new Map([[nameId(DEFAULT_SYSTEM), DEFAULT_SYSTEM]]), lights: new Map(), configs: new Map() };
}

/** Adds a light name, and its system's name when given. */
export function addName(book: NameBook, light: string | null, system?: string): void {
  if (system !== undefined && system !== '') book.systems.set(nameId(system), system);
  if (light !== null && light !== '') book.lights.set(nameId(light), light);
}

/** Glob characters of SCAN and `--match`: a value without them is a name. */
export function isLiteral(value: string): boolean {
  return !/[*?[\\]/.test(value);
}

/** Names longer than this are not names a person wrote (and would flood the terminal). */
const MAX_NAME_BYTES = 1024;
/** Lines of a `--names` file at most: a bound that no real application reaches. */
const MAX_NAME_LINES = 1_000_000;

/**
 * Reads a `--names` file: one `light` or `system/light` per line; blank
 * lines and lines starting with `#` are skipped. The first `/` splits the
 * system from the light (light names may hold further slashes).
 */
export function readNamesFile(file: string, book: NameBook): number {
  let text: string;
  try {
    // Regular files only (a FIFO never blocks, /dev/zero is refused), at most
    // MAX_INPUT_BYTES, UTF-8 checked: the same reader as every input file.
    text = readInputFile(file);
  } catch (err) {
    if (err instanceof InputFileError) throw new UsageError(`--names: ${err.message}`);
    throw err;
  }
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_NAME_LINES) throw new UsageError(`--names: ${file} has ${lines.length} lines; at most ${MAX_NAME_LINES}`);
  let added = 0;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (Buffer.byteLength(line, 'utf8') > MAX_NAME_BYTES) throw new UsageError(`--names: ${file} line ${i + 1} is longer than ${MAX_NAME_BYTES} bytes`);
    const slash = line.indexOf('/');
    if (slash === 0 || slash === line.length - 1) {
      throw new UsageError(`--names: ${file} line ${i + 1}: expected "light" or "system/light", got "${line.slice(0, 80)}"`);
    }
    if (slash < 0) addName(book, line);
    else addName(book, line.slice(slash + 1), line.slice(0, slash));
    added += 1;
  });
  return added;
}

/** A light id: the first 12 hex characters of SHA-256 of its name. */
const LIGHT_ID = /^[0-9a-f]{12}$/;

/**
 * A Stoplight registry of light configs: a hash `<prefix>:<system id>:lights`
 * (released 6.0 under `stoplight:v6`, an earlier development version under
 * `stoplight:v5`) whose fields are light ids and whose values are JSON
 * `{ meta: { version, registered_at }, config: { id, name, window_size, threshold,
 * traffic_control: { strategy: "error_rate" | "consecutive_errors" }, … } }`
 * (Stoplight's ConfigSerializer). An earlier 6.0 development registry keyed
 * each config by the light's name and kept neither `id` nor `name` in it.
 */
export const REGISTRY_KEY = /^((?:[^\n]*:)?stoplight:v[56]):([0-9a-f]{12}):lights$/;

/** The system id of a registry key; null for any other key. */
export function registrySystemOf(key: string): string | null {
  return REGISTRY_KEY.exec(key)?.[2] ?? null;
}

/**
 * The traffic control a config names: Stoplight serialises it as
 * `{ "strategy": "<name>" }`; a bare string, `{ "name": … }` or `{ "type": … }`
 * are read too. Unknown forms give undefined, so no light is judged against
 * a rule it may not use.
 */
function trafficControlOf(value: unknown): 'error_rate' | 'consecutive_errors' | undefined {
  const named =
    typeof value === 'string'
      ? value
      : value && typeof value === 'object'
        ? ['name', 'type', 'strategy'].map((k) => (value as Record<string, unknown>)[k]).find((v) => typeof v === 'string')
        : undefined;
  const v = typeof named === 'string' ? named.toLowerCase().replace(/[^a-z]+/g, '_') : '';
  if (/error_?rate/.test(v)) return 'error_rate';
  if (/consecutive_?errors?/.test(v)) return 'consecutive_errors';
  return undefined;
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** One registry entry read: the light it names and its config. */
export interface RegistryEntry {
  readonly lightId: string;
  readonly name: string;
  readonly config: RegisteredConfig;
}

/**
 * Reads one field of a registry hash (`<prefix>:<system id>:lights`):
 * Stoplight 6.0's Registry (`lib/stoplight/infrastructure/redis/storage/registry.rb`,
 * 14859417ed614aa4770672a6066982850cf4ed55) stores, under the light's id, JSON
 * `{ meta, config }` whose config is the ConfigSerializer's
 * (`lib/stoplight/infrastructure/config_serializer.rb`,
 * 37a24db38080b0c46db87ae337d9cf98c938d345): `id`, `name`, `cool_off_time`
 * (seconds), `threshold`, `recovery_threshold`, `window_size` (seconds or
 * null), the error lists, and `traffic_control` / `traffic_recovery` as
 * `{ "strategy": "<name>" }`. Null when the value is not a config naming
 * that light id (a value that does not hash to its field is not trusted).
 * Reused by `lights` (window, threshold, strategy, cool-off) and `--forecast`.
 */
export function parseRegistryEntry(field: string, value: string): RegistryEntry | null {
  let config: { name?: unknown; window_size?: unknown; threshold?: unknown; traffic_control?: unknown; cool_off_time?: unknown } | undefined;
  try {
    // Only a JSON object holds a config: anything else is not parsed (a million throws took seconds).
    const parsed = /^\s*\{/.test(value) ? (JSON.parse(value) as { config?: typeof config } | null) : null;
    config = parsed && typeof parsed === 'object' ? parsed.config : undefined;
  } catch {
    config = undefined;
  }
  const isConfig = config !== null && typeof config === 'object';
  const named = isConfig ? config?.name : undefined;
  // The earlier registry's field is the light's name itself (its config names no light).
  const byName = isConfig && named === undefined && !LIGHT_ID.test(field);
  const name = byName ? field : named;
  if (typeof name !== 'string' || (!byName && nameId(name) !== field)) return null;
  const trafficControl = trafficControlOf(config?.traffic_control);
  return {
    lightId: byName ? nameId(name) : field,
    name,
    config: {
      windowSeconds: finite(config?.window_size),
      threshold: finite(config?.threshold),
      ...(finite(config?.cool_off_time) !== null ? { coolOffSeconds: finite(config?.cool_off_time) } : {}),
      ...(trafficControl ? { trafficControl } : {}),
    },
  };
}

/**
 * Adds what one registry hash says to the book: each field whose value is a
 * config naming a light whose id is the field. Returns problems: entries
 * that are not such configs.
 */
export function addRegistry(book: NameBook, key: string, fields: ReadonlyMap<string, string>): string[] {
  const systemId = registrySystemOf(key);
  if (systemId === null) return [];
  const problems: string[] = [];
  for (const [field, value] of fields) {
    const entry = parseRegistryEntry(field, value);
    if (entry === null) {
      problems.push(`${key} field ${field.slice(0, 40)}: not a light config naming that light id; ignored`);
      continue;
    }
    book.lights.set(entry.lightId, entry.name);
    book.configs.set(`${systemId}/${entry.lightId}`, entry.config);
  }
  return problems;
}

/** What the book says of a 6.0 light, by the ids its keys carry. */
export function namesOf(book: NameBook | undefined, systemId: string | null, lightId: string): { systemName: string | null; lightName: string | null } {
  return {
    systemName: systemId === null ? null : (book?.systems.get(systemId) ?? null),
    lightName: book?.lights.get(lightId) ?? null,
  };
}
