// The CLI's bundle: dist/cli.js (tsc's output) and what it imports, packages
// included, in a few files under dist/bundle/, which bin/swc.js runs.
//
// Why: every start of swc used to load about 300 modules one file at a time
// (each resolved, stat'ed, read and compiled on its own); measured side by
// side (8 interleaved runs each), `swc lights` up to a refused connection took
// 0.379 s of CPU from dist/ and 0.245 s from the bundle. Each dynamic import() stays its own chunk (splitting), so a
// command still loads only what its path needs (test/cli/startup.test.ts).
// The library entry (dist/index.js) is not bundled.
//
// dist/bundle/ sits two folders below the package root like dist/core/, so
// src/core/package-root.ts finds package.json, lua/ and fixtures/ from it too.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;
// Chunk names carry a content hash: clear the last build's so none is left behind.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${root}dist/cli.js`],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native addon, loaded only by `--chart-out x.png`: it stays a package import.
  external: ['@resvg/resvg-js'],
  // Bundled CommonJS packages call require() for Node's own modules; an ES module has none.
  banner: { js: "import { createRequire as swcCreateRequire } from 'node:module';\nconst require = swcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
