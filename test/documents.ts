/**
 * Types for tests that read a JSON document (a result file, a manifest),
 * change one field and write it back: the edits are type-checked instead of
 * going through `any`.
 */
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
