/**
 * Loading a rate-limiter package the way the user's application would: from
 * the user's project (the directory swc runs in), then from swc's own
 * node_modules (its devDependencies, in tests). swc holds no copy of a package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse } from 'node:path';
import { EnvironmentError } from '../core/errors.js';

/** A package as loaded: its module and the version its package.json states. */
export interface LoadedPackage {
  readonly module: unknown;
  readonly version: string;
  /** The file the module was loaded from. */
  readonly file: string;
}

/** The package.json directory above `file` whose name is `packageName`. */
function packageDirOf(file: string, packageName: string): string | null {
  let dir = dirname(file);
  const root = parse(dir).root;
  while (dir !== root) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === packageName) return dir;
      } catch {
        // not this one
      }
    }
    dir = dirname(dir);
  }
  return null;
}

/**
 * Loads `packageName` (or `packageName/subpath`) from `requireFrom`, else from
 * swc's own node_modules. Not installed in either: an EnvironmentError (exit 3)
 * naming `npm install <package>`.
 */
export function loadPackage(packageName: string, requireFrom: string, subpath = ''): LoadedPackage {
  const specifier = subpath === '' ? packageName : `${packageName}/${subpath}`;
  const requirers = [createRequire(join(requireFrom, 'noop.js')), createRequire(import.meta.url)];
  for (const require of requirers) {
    let file: string;
    try {
      file = require.resolve(specifier);
    } catch {
      continue;
    }
    const dir = packageDirOf(file, packageName);
    const version = dir ? String((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown') : 'unknown';
    return { module: require(file) as unknown, version, file };
  }
  throw new EnvironmentError(`--client: ${packageName} is not installed in ${requireFrom} (nor beside swc); install it with: npm install ${packageName}`);
}
