import { readFileSync } from 'node:fs';

/** swc's own version, from package.json (one place to bump). */
export const SWC_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
