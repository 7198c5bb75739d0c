/**
 * Writes every command's `--json` schema (src/schemas/) as a JSON Schema
 * file to schemas/<name>.schema.json (`npm run schemas`). With `--check`
 * it writes nothing and exits 1 when a committed file is stale (the unit
 * lane runs the same comparison).
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaFiles } from './schema-files.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
let stale = 0;
mkdirSync(join(ROOT, 'schemas'), { recursive: true });
for (const [file, text] of Object.entries(schemaFiles())) {
  const path = join(ROOT, 'schemas', file);
  const same = existsSync(path) && readFileSync(path, 'utf8') === text;
  if (check) {
    if (!same) {
      stale += 1;
      process.stderr.write(`schemas: ${file} is stale; run npm run schemas\n`);
    }
  } else if (!same) {
    writeFileSync(path, text);
    process.stdout.write(`schemas: wrote schemas/${file}\n`);
  }
}
process.exit(stale > 0 ? 1 : 0);
