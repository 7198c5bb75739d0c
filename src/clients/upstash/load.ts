import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { EnvironmentError } from '../../core/errors.js';

/** A package loaded from a project's node_modules, with its installed version. */
export interface LoadedPackage<T> {
  readonly module: T;
  readonly version: string;
}

/**
 * Loads `name` as the project in `fromDir` would (`require` resolution from there), with the version its
 * package.json states. Not installed there: an EnvironmentError naming the npm command.
 */
export function loadPackage<T>(fromDir: string, name: string, install: string): LoadedPackage<T> {
  const require = createRequire(path.join(path.resolve(fromDir), 'package.json'));
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new EnvironmentError(`${name} is not installed where swc looks for it (${fromDir}): run \`npm install ${install}\` there`);
  }
  return { module: require(entry) as T, version: versionOf(entry, name) };
}

/** The version in the package.json of the package `entry` belongs to (the nearest one naming `name`). */
function versionOf(entry: string, name: string): string {
  let dir = path.dirname(entry);
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === name && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // no package.json here: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
