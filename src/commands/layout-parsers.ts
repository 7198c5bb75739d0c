/**
 * What the `--layout` and `--scripts` parsers read: the layout registry and
 * the scripts-folder check. A command that has such flags marks itself with
 * {@link parsesLayouts}; the program loads them before that command's flags
 * are parsed, never for its help, so `swc bench --help` loads no layout.
 */
import type { Command } from 'commander';
import type * as Registry from '../layouts/index.js';
import type * as ScriptsDir from '../layouts/stoplight/scripts-dir.js';

let registry: typeof Registry | undefined;
let scriptsDir: typeof ScriptsDir | undefined;
const marked = new WeakSet<Command>();

/** Marks `command` as one whose flag parsers read the layouts. */
export function parsesLayouts(command: Command): Command {
  marked.add(command);
  return command;
}

/** Loads the layouts when `command` parses them; the program awaits it before the command's flags are parsed. */
export async function beforeParse(command: Command): Promise<void> {
  if (!marked.has(command)) return;
  [registry, scriptsDir] = await Promise.all([import('../layouts/index.js'), import('../layouts/stoplight/scripts-dir.js')]);
}

const notLoaded = (): Error => new Error('the layouts load before the flags are parsed (beforeParse in src/commands/program.ts)');

/** The layout registry, for a flag parser. */
export function layoutRegistry(): typeof Registry {
  if (!registry) throw notLoaded();
  return registry;
}

/** The scripts-folder check, for the `--scripts` parser. */
export function scriptsDirCheck(): typeof ScriptsDir {
  if (!scriptsDir) throw notLoaded();
  return scriptsDir;
}
