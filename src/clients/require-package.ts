import { createRequire } from 'node:module';
import path from 'node:path';
import { EnvironmentError } from '../core/errors.js';

/** A package loaded from a project's node_modules, with the require that resolves files and dependencies beside it. */
export interface LoadedPackage {
  /** What `require(<package>)` returned. */
  readonly exports: unknown;
  /** The `version` of the package's package.json. */
  readonly version: string;
  /** A require that resolves from inside the package (its own files, its own dependencies: the copies it uses). */
  readonly requireInside: NodeJS.Require;
}

/**
 * Loads `packageName` the way code in `requireFrom` would (`requireFrom/node_modules/<package>`, then the
 * folders above). Not installed there: an EnvironmentError naming the install command.
 */
export function requirePackage(requireFrom: string, packageName: string): LoadedPackage {
  const fromProject = createRequire(path.join(path.resolve(requireFrom), 'package.json'));
  let main: string;
  try {
    main = fromProject.resolve(packageName);
  } catch (err) {
    throw new EnvironmentError(`--client ${packageName}: the package is not installed in ${requireFrom} (npm install ${packageName})`, { cause: err });
  }
  const requireInside = createRequire(main);
  const manifest = fromProject(`${packageName}/package.json`) as { version?: unknown };
  return { exports: fromProject(packageName), version: String(manifest.version ?? 'unknown'), requireInside };
}
