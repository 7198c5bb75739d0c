import { readFileSync } from 'node:fs';
import { packagePath } from './package-root.js';

/** swc's own version, from package.json (one place to bump). */
export const SWC_VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
