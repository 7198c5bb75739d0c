import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { Coarse, coarseVariant } from './coarse.js';
import { manifestDefinition } from './manifest.js';
import { Packed } from './packed.js';
import { Ring } from './ring.js';
import { SlidingLog } from './sliding-log.js';
import { withScriptsDir } from './stoplight/scripts-dir.js';
import { StoplightV5 } from './stoplight/v5.js';
import { STOPLIGHT_V5_TAGGED, stoplightV5TaggedDefinition } from './stoplight/v5-tagged.js';
import { STOPLIGHT_V6_UPSTREAM, StoplightV6 } from './stoplight/v6.js';
import { TwoWindow } from './two-window.js';
import type { Layout, LayoutOptions } from './types.js';
import { remember, scopedBuilder } from './recipes.js';

/** A registered layout: its name and how to build it. */
export interface LayoutDefinition {
  readonly name: string;
  /** Builds the layout, with its keys under `options.prefix` when given. */
  create(options?: LayoutOptions): Layout;
  /** Benched when `--layout` is not given (the published comparison); default false. */
  readonly byDefault?: boolean;
  /**
   * A layout derived from this one by its name, e.g. `coarse-30s` from
   * `coarse`; null when `name` is not one. The registry registers it the first
   * time the name is asked for.
   */
  variant?(name: string): LayoutDefinition | null;
  /** How tables label the layout when its name alone would mislead (e.g. a design Stoplight never shipped). */
  readonly label?: string;
  /**
   * On Redis Cluster: a layout of the same design whose every call keeps its
   * keys in one hash slot, run in this one's place when this one's calls
   * cross slots (CROSSSLOT).
   */
  readonly clusterVariant?: string;
}

/**
 * Reads a layout manifest file (its path as given) and returns the layout it
 * describes; throws a UsageError (exit 2) naming the field when it is invalid.
 */
export type ManifestLoader = (file: string) => LayoutDefinition;

/** A layout's registered name. Any string: validation asks the registry ({@link isLayoutName}). */
export type LayoutName = string;

const registry = new Map<string, LayoutDefinition>();
const names: string[] = [];
/** Manifest files already loaded, by absolute path: loading twice gives the same layout. */
const manifests = new Map<string, string>();
let manifestLoader: ManifestLoader | null = null;

/**
 * Registered layout names, in registration order (a live list: layouts
 * registered later appear in it). `--layout` choices come from this.
 */
export const layoutNames: readonly string[] = names;

const defaults: string[] = [];
/** The layouts `bench` runs when `--layout` is not given, in registration order (a live list). */
export const defaultLayoutNames: readonly string[] = defaults;

/**
 * Adds a layout to the registry; `bench`, `inspect`, `lights` and `compare`
 * find it from then on. A second registration of the same name is an error.
 */
export function registerLayout(definition: LayoutDefinition): void {
  if (registry.has(definition.name)) throw new UsageError(`layout ${definition.name}: a layout of that name is already registered`);
  registry.set(definition.name, definition);
  names.push(definition.name);
  if (definition.byDefault === true) defaults.push(definition.name);
}

/** Lets `--layout <file>.json` load a manifest; until one is registered, manifest files are refused. */
export function registerManifestLoader(loader: ManifestLoader): void {
  manifestLoader = loader;
}

export function isLayoutName(name: string): name is LayoutName {
  return registry.has(name);
}

/** Whether a `--layout` value names a manifest file rather than a registered layout. */
export function isManifestPath(spec: string): boolean {
  return /\.json$/i.test(spec) || spec.includes('/') || spec.includes(path.sep);
}

/** The variant of a registered layout named `name`, registered now; undefined when no layout derives it. */
function derivedDefinition(name: string): LayoutDefinition | undefined {
  for (const definition of [...registry.values()]) {
    const derived = definition.variant?.(name);
    if (!derived) continue;
    if (!registry.has(derived.name)) registerLayout(derived);
    return registry.get(derived.name);
  }
  return undefined;
}

/**
 * Turns a `--layout` value into a registered name: a registered name is
 * returned as is; a manifest file (`*.json`, or a path) is loaded, registered
 * under the name it declares, and that name returned. `baseDir` resolves a
 * relative path (a scenario file's folder); default the working directory.
 * Throws a UsageError naming `--layout` otherwise.
 */
export function resolveLayoutName(spec: string, options: { baseDir?: string } = {}): LayoutName {
  if (registry.has(spec)) return spec;
  for (const definition of [...registry.values()]) {
    const derived = definition.variant?.(spec);
    if (!derived) continue;
    if (!registry.has(derived.name)) registerLayout(derived);
    return derived.name;
  }
  if (!isManifestPath(spec)) {
    throw new UsageError(`--layout: expected one of ${names.join(', ')} or a manifest file (*.json), got "${spec}"`);
  }
  if (!manifestLoader) throw new UsageError('--layout: manifest files are not supported yet');
  const file = path.resolve(options.baseDir ?? process.cwd(), spec);
  const known = manifests.get(file);
  if (known !== undefined) return known;
  const definition = manifestLoader(file);
  const existing = registry.get(definition.name);
  if (existing && existing !== definition) {
    throw new UsageError(
      `--layout: ${spec} names its layout "${definition.name}", which is already a registered layout: ` +
        `give the copy a name of its own (change its "name" field, e.g. "${definition.name}-copy")`,
    );
  }
  if (!existing) registerLayout(definition);
  manifests.set(file, definition.name);
  return definition.name;
}

/** Builds a layout from a `--layout` value (a registered name or a manifest file); see {@link resolveLayoutName}. */
export function resolveLayout(spec: string, options: LayoutOptions & { baseDir?: string } = {}): Layout {
  const { baseDir, ...layoutOptions } = options;
  return createLayout(resolveLayoutName(spec, baseDir !== undefined ? { baseDir } : {}), layoutOptions);
}

/** Builds the registered layout `name`; throws a UsageError for a name the registry does not know. */
export function createLayout(name: LayoutName, options?: LayoutOptions): Layout {
  // A layout a caller built and handed to a use case (src/layouts/recipes.ts), within that call.
  const scoped = scopedBuilder(name);
  if (scoped) return scoped(options);
  // A variant's name (coarse-30s, stoplight-v5-tagged) registers it on first use, as --layout does.
  const definition = registry.get(name) ?? derivedDefinition(name);
  if (!definition) throw new UsageError(`--layout: expected one of ${names.join(', ')}, got "${name}"`);
  return remember(definition.create(options), { name, create: (o) => definition.create(o), options: options ?? {} });
}

/** Every registered layout, built with its default prefix, in registration order. */
export function registeredLayouts(): Layout[] {
  return names.map((name) => createLayout(name));
}

/** The label tables show beside a layout's name, if its definition has one ({@link LayoutDefinition.label}). */
export function layoutLabel(name: LayoutName): string | undefined {
  return registry.get(name)?.label;
}

/** The cluster-safe layout of the same design as `name` ({@link LayoutDefinition.clusterVariant}), registered; undefined when there is none. */
export function clusterSafeVariant(name: LayoutName): LayoutName | undefined {
  const variant = registry.get(name)?.clusterVariant;
  return variant === undefined ? undefined : resolveLayoutName(variant);
}

/** Prefixes a layout's default key prefix with a namespace (`ns:stoplight:v6`). */
export function namespacedLayout(name: LayoutName, namespace: string, options: LayoutOptions = {}): Layout {
  const plain = createLayout(name, options);
  return createLayout(name, { ...options, prefix: `${namespace}:${plain.prefix}` });
}

// The built-in layouts: adding one is its Lua, one module stating its keys once (docs/layouts.md, "Adding a layout"), and one line here.
registerLayout({
  name: 'stoplight-v5',
  create: (options) => withScriptsDir('stoplight-v5', options, (o) => new StoplightV5(o)),
  byDefault: true,
  // Registered when asked for by name (--layout stoplight-v5-tagged, or a cluster run of stoplight-v5).
  variant: (name) => (name === STOPLIGHT_V5_TAGGED ? stoplightV5TaggedDefinition : null),
  clusterVariant: STOPLIGHT_V5_TAGGED,
});
registerLayout({
  name: 'stoplight-v6',
  create: (options) => withScriptsDir('stoplight-v6', options, (o) => new StoplightV6(o)),
  byDefault: true,
  // Registered when asked for by name: 6.0 with upstream's unguarded eviction, on the same keys
  // (a copy of lua/ with --scripts; a Stoplight tree is upstream's already).
  variant: (name) => (name === STOPLIGHT_V6_UPSTREAM ? { name, create: (options) => new StoplightV6(options, STOPLIGHT_V6_UPSTREAM) } : null),
});
registerLayout({ name: 'sliding-log', create: (options) => new SlidingLog(options) });
registerLayout({ name: 'ring', create: (options) => new Ring(options) });
registerLayout({ name: 'packed', create: (options) => new Packed(options) });
registerLayout({ name: 'coarse', create: (options) => new Coarse(options), variant: coarseVariant });
registerLayout({ name: 'two-window', create: (options) => new TwoWindow(options) });
// `--layout <file>.json`: layouts described by a manifest (src/layouts/manifest.ts).
registerManifestLoader(manifestDefinition);

/** How many layouts (and default layouts) start-up registers: those above. */
const STARTUP_LAYOUTS = names.length;
const STARTUP_DEFAULTS = defaults.length;

/**
 * Puts the registry back as start-up left it: forgets every layout registered
 * since (variants, manifest files, a caller's own) and the manifest files
 * loaded, and reinstates swc's manifest loader. A CLI process never needs it;
 * test files sharing one module cache (vitest `isolate: false`) call it after
 * each file, so one file's layouts do not show up in the next file's lists.
 */
export function resetLayoutRegistry(): void {
  for (const name of names.splice(STARTUP_LAYOUTS)) registry.delete(name);
  defaults.splice(STARTUP_DEFAULTS);
  manifests.clear();
  registerManifestLoader(manifestDefinition);
}

export type { Layout, LayoutOptions } from './types.js';
