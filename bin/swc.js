#!/usr/bin/env node
// The CLI is compiled TypeScript, bundled (scripts/bundle.mjs); a clone that
// skipped `npm ci` (which builds through `prepare`) gets one line saying so
// instead of a module stack trace.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/bundle/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('swc: not built yet (dist/bundle/cli.js is missing): run `npm ci` or `npm run build` in the swc folder first\n');
  process.exit(3);
}
await import(cli.href);
