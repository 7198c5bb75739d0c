import { readFileSync } from 'node:fs';
import { packagePath } from './package-root.js';

const manifest = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { name: string; version: string };
/** swc's own version, from package.json (one place to bump). */
export const SWC_VERSION: string = manifest.version;
/** The npm package swc is (its command is `swc`). */
export const PACKAGE_NAME: string = manifest.name;
