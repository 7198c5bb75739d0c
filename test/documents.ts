/**
 * Types for tests that read a JSON document (a result file, a manifest),
 * change one field and write it back: the edits are type-checked instead of
 * going through `any`.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationName } from '../src/layouts/manifest-schema.js';
import type { BenchReport } from '../src/measure/types.js';

/** `T` with every `readonly` removed, all the way down (arrays become mutable arrays). */
export type Writable<T> = T extends readonly (infer U)[] ? Writable<U>[] : T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;

/** A `swc bench --json` document (a baseline or result file) open for editing. */
export type ReportJson = Writable<BenchReport>;

/** A manifest file as written (before validation: templates are text, operation keys any JSON value), open for editing. */
export interface ManifestJson {
  includes?: string;
  keys: { template: string; [field: string]: unknown }[];
  operations: Record<OperationName, { script: string; keys: unknown[]; [field: string]: unknown }>;
  [field: string]: unknown;
}

/** The item at `index`; a test's fixture that lacks it is a broken fixture, so this throws. */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`the document has no item ${index} (of ${items.length})`);
  return item;
}

/** The example manifest's folder (its JSON and scripts), which {@link manifestVariant} copies. */
const EXAMPLE_MANIFEST = fileURLToPath(new URL('../fixtures/manifests/example/', import.meta.url));

/**
 * A copy of the example manifest and its scripts in `dir`/`name`, with the
 * files of `scripts` written over it and `edit` applied; returns the
 * manifest's path. With `rename`, the layout is named `my-log-<name>`: a
 * layout loaded in one process stays registered (even when its scripts are
 * then refused), so in-process cases each need a name of their own.
 */
export function manifestVariant(
  dir: string,
  name: string,
  edit: (m: ManifestJson) => void,
  scripts: Record<string, string> = {},
  options: { rename?: boolean } = {},
): string {
  const folder = path.join(dir, name);
  cpSync(EXAMPLE_MANIFEST, folder, { recursive: true });
  for (const [file, text] of Object.entries(scripts)) writeFileSync(path.join(folder, file), text);
  const file = path.join(folder, 'my-log.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as ManifestJson;
  if (options.rename) manifest.name = `my-log-${name}`;
  edit(manifest);
  writeFileSync(file, JSON.stringify(manifest, null, 2));
  return file;
}
