/**
 * `--scripts <dir>`: run a built-in layout's operations from scripts on the
 * user's disk. The folder is either an edited copy of swc's own `lua/`, or a
 * Stoplight source tree or installed gem, whose scripts run unchanged through
 * a manifest swc ships for that Stoplight version's calling convention.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { packagePath } from '../../core/package-root.js';
import { loadScript } from '../../lua/source.js';
import { ManifestLayout, readManifest } from '../manifest.js';
import { OPERATIONS, type Item, type Manifest } from '../manifest-schema.js';
import type { Layout, LayoutInspector, LayoutOptions } from '../types.js';
import { v5KeyTable, V5_MAX_WINDOW_SECONDS } from './v5.js';
import { StoplightV5Inspector } from './v5-inspector.js';
import { v6Inspector } from './v6.js';
import { generationName, recognizeV6, whatIsIn, type V6Generation } from './generations.js';

/** Where swc's manifests for Stoplight's own scripts live (in the package). */
export const STOPLIGHT_MANIFESTS_DIR = packagePath('fixtures/manifests/stoplight/');

/** The built-in layouts a scripts folder can stand in for. */
export type ScriptsLayoutName = 'stoplight-v5' | 'stoplight-v6';

/** What a `--scripts` folder holds. */
export type ScriptsDir =
  /** An edited copy of swc's `lua/`: the built-in layouts read their scripts there. */
  | { readonly kind: 'swc'; readonly dir: string }
  /** A Stoplight tree: where its 6.0 and 5.x scripts are, when present. */
  | {
      readonly kind: 'stoplight';
      readonly dir: string;
      readonly v6Root?: string;
      readonly v5Root?: string;
      /** Script folders found in the tree but not used, and why (bench and verify say so). */
      readonly skipped?: readonly SkippedFolder[];
    };

/** A scripts folder of a Stoplight tree that is not used. */
export interface SkippedFolder {
  readonly folder: string;
  readonly reason: string;
}

/**
 * Where 6.0 keeps its storage scripts, newest first: released versions under
 * infrastructure/redis/storage, earlier development versions under
 * infrastructure/storage/redis (the same window_metrics/ inside).
 */
const V6_STORAGE = [
  'lib/stoplight/infrastructure/redis/storage',
  'stoplight/infrastructure/redis/storage',
  'lib/stoplight/infrastructure/storage/redis',
  'stoplight/infrastructure/storage/redis',
  '.',
];
const V5_DATA_STORE = ['lib/stoplight/data_store/redis', 'stoplight/data_store/redis', '.'];

const isFile = (file: string): boolean => existsSync(file) && statSync(file).isFile();

/**
 * Tells what a `--scripts` folder holds; a folder that is none of the known
 * kinds is a UsageError naming what was looked for.
 */
export function classifyScriptsDir(dir: string): ScriptsDir {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--scripts: ${dir}: no such folder`);
  if (isFile(path.join(dir, 'stoplight-v6/record_success.lua'))) return { kind: 'swc', dir };
  const skipped: SkippedFolder[] = [];
  let v6Root: string | undefined;
  for (const root of V6_STORAGE.map((p) => path.join(dir, p))) {
    const folder = path.join(root, 'window_metrics');
    if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
    if (!isFile(path.join(folder, 'record_success.lua'))) skipped.push({ folder, reason: `no record_success.lua in it; ${whatIsIn(folder)}` });
    else if (v6Root === undefined) v6Root = root;
    else skipped.push({ folder, reason: `a second 6.0 scripts folder; ${path.join(v6Root, 'window_metrics')} is used` });
  }
  const v5Root = V5_DATA_STORE.map((p) => path.join(dir, p)).find(
    (root) => isFile(path.join(root, 'record_success.lua')) && isFile(path.join(root, 'get_metadata.lua')),
  );
  if (!v6Root && !v5Root) {
    const found = skipped.map((s) => `; found ${s.folder}, ${s.reason}`).join('');
    throw new UsageError(
      `--scripts: ${dir}: neither a copy of swc's lua/ folder (no stoplight-v6/record_success.lua) nor a Stoplight ` +
        'source tree or gem (no lib/stoplight/infrastructure/{redis/storage,storage/redis}/window_metrics/record_success.lua ' +
        `nor lib/stoplight/data_store/redis/*.lua)${found}`,
    );
  }
  return { kind: 'stoplight', dir, ...(v6Root ? { v6Root } : {}), ...(v5Root ? { v5Root } : {}), ...(skipped.length > 0 ? { skipped } : {}) };
}

/**
 * One line per scripts folder of a Stoplight tree that is not used, for
 * bench and verify to print (a tree benched as 5.x only says why its 6.0
 * folder was left out), and the default a 6.0 generation's choice rested on
 * (e.g. no caller beside the folder). With `layouts` (the user's --layout):
 * only that default, where stoplight-v6 is among them. Empty for swc's copy
 * and a tree that uses all it has.
 */
export function scriptsDirNotes(dir: string, layouts?: readonly string[]): string[] {
  const found = classifyScriptsDir(dir);
  if (found.kind === 'swc') return [];
  const assumed = found.v6Root !== undefined && (layouts === undefined || layouts.includes('stoplight-v6')) ? recognizeV6(found.v6Root)?.note : undefined;
  if (layouts !== undefined) return assumed !== undefined ? [`--scripts: ${assumed}`] : [];
  const notes = (found.skipped ?? []).map((s) => `--scripts: not used: ${s.folder} (${s.reason})`);
  if (assumed !== undefined) notes.push(`--scripts: ${assumed}`);
  if (!found.v6Root) notes.push(`--scripts: ${dir}: no Stoplight 6.0 scripts found (window_metrics/record_success.lua); running Stoplight 5.x only`);
  else if (!found.v5Root) notes.push(`--scripts: ${dir}: no Stoplight 5.x scripts found (data_store/redis/get_metadata.lua); running Stoplight 6.0 only`);
  return notes;
}

/** A recognised upstream 6.0 generation, as outputs name it (bench's tables and JSON, verify). */
export interface NamedGeneration {
  readonly id: string;
  readonly commit: string | null;
  /** `stoplight-v6 (hash-b, 4975eb6)`. */
  readonly name: string;
  /** The design and its convention. */
  readonly what: string;
}

/**
 * The 6.0 generation `--scripts <dir>` runs as `layout`, by layout name;
 * empty for swc's own copy, a 5.x-only tree, or a folder that is not one.
 */
export function scriptsGenerations(dir: string, layouts: readonly string[]): Record<string, NamedGeneration> {
  if (!layouts.includes('stoplight-v6')) return {};
  let found: ScriptsDir;
  try {
    found = classifyScriptsDir(dir);
  } catch {
    return {};
  }
  if (found.kind === 'swc' || found.v6Root === undefined) return {};
  const generation = recognizeV6(found.v6Root);
  if (!generation) return {};
  return {
    'stoplight-v6': { id: generation.id, commit: generation.commit, name: generationName('stoplight-v6', generation), what: generation.what },
  };
}

/** The built-in layouts a scripts folder provides: both for swc's copy, those found for a Stoplight tree. */
export function scriptsDirLayouts(dir: string): ScriptsLayoutName[] {
  const found = classifyScriptsDir(dir);
  if (found.kind === 'swc') return ['stoplight-v5', 'stoplight-v6'];
  return [...(found.v5Root ? (['stoplight-v5'] as const) : []), ...(found.v6Root ? (['stoplight-v6'] as const) : [])];
}

function count(items: readonly Item[]): number | null {
  // A list's length depends on the window: no fixed count to compare.
  return items.some((item) => item.kind === 'eachHour') ? null : items.length;
}

/** Whether the script reads a variable tail of its ARGV (`#ARGV`, `unpack(ARGV, n)`): field names after the fixed slots. */
function readsArgvTail(source: string): boolean {
  return /#ARGV\b|unpack\(\s*ARGV\s*,/.test(source);
}

function highest(source: string, table: 'KEYS' | 'ARGV'): number {
  let max = 0;
  for (const match of source.matchAll(new RegExp(`\\b${table}\\[(\\d+)\\]`, 'g'))) max = Math.max(max, Number(match[1]));
  return max;
}

/**
 * Checks that the scripts read the KEYS and ARGV slots the manifest passes,
 * so a Stoplight version with another argument order fails here, before any
 * traffic, instead of writing wrong keys. A script that reads a slot past
 * the ones passed, or a write that leaves a passed slot unread, is another
 * convention.
 */
function checkConvention(manifest: Manifest, root: string, what: string): void {
  for (const op of OPERATIONS) {
    const spec = manifest.operations[op];
    const source = loadScript({ root, file: spec.script, includes: manifest.includes }).source;
    for (const [table, items] of [
      ['KEYS', spec.keys],
      ['ARGV', spec.args],
    ] as const) {
      const passed = count(items);
      const read = highest(source, table);
      // A write must read every slot passed, unless it reads a variable tail of field names after its fixed slots.
      const exact = op !== 'getMetrics' && !(table === 'ARGV' && readsArgvTail(source));
      if (passed !== null && (read > passed || (exact && read !== passed))) {
        throw new UsageError(
          `--scripts: ${path.join(root, spec.script)} reads ${table}[1..${read}], but ${what} passes ${passed}: a calling convention ` +
            'swc does not know; describe it in a manifest and pass it with --layout <file> (README: "Your own layout")',
        );
      }
    }
  }
}

/** Where a Stoplight tree keeps one version's scripts, and which of swc's manifests calls them. */
interface TreeScripts {
  readonly root: string;
  readonly manifestFile: string;
  /** The version and convention, for messages. */
  readonly what: string;
  /** For 6.0: the generation recognised (its keys decide the inspector). */
  readonly generation?: V6Generation;
}

/** What a Stoplight tree gives each built-in layout: its scripts, and the inspector of the keys they write (the built-in's). */
interface TreeLayout {
  scripts(found: Extract<ScriptsDir, { kind: 'stoplight' }>, dir: string): TreeScripts;
  /** The inspector of the keys the scripts write; undefined: the manifest's own (its key templates). */
  inspector(name: ScriptsLayoutName, found: TreeScripts): ((prefix: string) => LayoutInspector) | undefined;
}

const TREE_LAYOUTS: Readonly<Record<ScriptsLayoutName, TreeLayout>> = {
  'stoplight-v6': {
    scripts(found, dir) {
      if (!found.v6Root) {
        const seen = (found.skipped ?? []).map((s) => `; found ${s.folder}, ${s.reason}`).join('');
        throw new UsageError(`--scripts: ${dir}: no Stoplight 6.0 scripts (window_metrics/record_success.lua) for layout stoplight-v6${seen}`);
      }
      const root = found.v6Root;
      const generation = recognizeV6(root);
      if (generation) return { root, manifestFile: generation.manifestFile, what: `${generation.what} (${generation.id})`, generation };
      throw new UsageError(
        `--scripts: ${root}: cannot tell this Stoplight 6.0 version's calling convention from its files ` +
          `(${whatIsIn(path.join(root, 'window_metrics'))}; none of the hourly, sliding-log or hash generations swc knows, ` +
          'docs/layouts.md); pass a manifest with --layout <file>',
      );
    },
    // Only the hash generations write the built-in 6.0 keys; the others are inspected by their manifests' key templates.
    inspector: (name, found) => (found.generation?.hashBuckets === false ? undefined : (prefix) => v6Inspector(name, prefix)),
  },
  'stoplight-v5': {
    scripts(found, dir) {
      if (!found.v5Root) throw new UsageError(`--scripts: ${dir}: no Stoplight 5.x scripts (data_store/redis/get_metadata.lua) for layout stoplight-v5`);
      return { root: found.v5Root, manifestFile: '5.x.json', what: 'Stoplight 5.x' };
    },
    inspector: (name) => (prefix) => new StoplightV5Inspector(name, v5KeyTable(prefix), V5_MAX_WINDOW_SECONDS),
  },
};

/**
 * The layout `name` with its operations run from `dir`: swc's own layout
 * reading an edited copy of `lua/`, or (for a Stoplight tree) Stoplight's
 * scripts through the manifest of their calling convention. Returns null
 * for an swc copy: the caller builds the built-in with `scriptsDir`.
 */
export function stoplightLayout(name: ScriptsLayoutName, dir: string, options: { readonly prefix?: string } = {}): ManifestLayout | null {
  const found = classifyScriptsDir(dir);
  if (found.kind === 'swc') return null;
  const version = TREE_LAYOUTS[name];
  const scripts = version.scripts(found, dir);
  const { root, manifestFile, what } = scripts;
  const manifest = readManifest(path.join(STOPLIGHT_MANIFESTS_DIR, manifestFile));
  checkConvention(manifest, root, `swc's manifest for ${what}`);
  const inspector = version.inspector(name, scripts);
  return new ManifestLayout(
    { ...manifest, summary: `${manifest.summary}, from ${root}` },
    { ...options, scriptsDir: root, ...(inspector ? { inspector } : {}) },
  );
}

/**
 * Builds a built-in Stoplight layout with `options`: from a Stoplight tree
 * when `options.scriptsDir` is one, else with `fallback` (swc's own scripts,
 * or an edited copy of `lua/`). The registry's definitions of the built-in
 * layouts go through this, so `--scripts` works wherever a layout is built.
 */
export function withScriptsDir(name: ScriptsLayoutName, options: LayoutOptions | undefined, fallback: (options?: LayoutOptions) => Layout): Layout {
  const dir = options?.scriptsDir;
  if (dir === undefined) return fallback(options);
  return stoplightLayout(name, dir, options?.prefix !== undefined ? { prefix: options.prefix } : {}) ?? fallback(options);
}
