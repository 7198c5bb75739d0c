import { fileURLToPath } from 'node:url';

/**
 * The package's root folder (where package.json, lua/ and fixtures/ are).
 * This file sits two folders below it in src/ (src/core/), in the compiled
 * tree (dist/core/) and in the CLI's bundle (dist/bundle/, scripts/bundle.mjs):
 * every other module finds the package's files through this one constant,
 * so none depends on how deep it sits itself.
 */
export const PACKAGE_ROOT: string = fileURLToPath(new URL('../../', import.meta.url));

/** A path inside the package, from its root: `packagePath('lua/')`. */
export function packagePath(relative: string): string {
  return PACKAGE_ROOT + relative;
}
