/**
 * Regenerates the figures of README.md and docs/*.md (`npm run docs:figures`):
 * runs the command tools/figures.ts registers for each figure, each once
 * (one command may write several blocks).
 *
 *   npm run docs:figures                    the cheap figures (README examples included)
 *   npm run docs:figures -- --only <id>     one figure (slow or not); repeatable
 *   npm run docs:figures -- --all           every figure, the benchmarks too
 *   npm run docs:figures -- --list          the registry: id, document, command
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FIGURES, type FigureSource } from './figures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function selected(only: readonly string[], all: boolean): FigureSource[] {
  if (only.length === 0) return FIGURES.filter((figure) => all || figure.slow !== true);
  return only.map((id) => {
    const figure = FIGURES.find((f) => f.id === id);
    if (figure === undefined) throw new Error(`--only: no figure "${id}"; registered: ${FIGURES.map((f) => f.id).join(', ')}`);
    return figure;
  });
}

function main(): number {
  const { values } = parseArgs({
    options: { only: { type: 'string', multiple: true, default: [] }, all: { type: 'boolean', default: false }, list: { type: 'boolean', default: false } },
  });
  if (values.list) {
    for (const f of FIGURES) process.stdout.write(`${f.id}\t${f.doc}\t${f.command}${f.slow === true ? '\t(slow)' : ''}\n`);
    return 0;
  }
  const commands = [...new Set(selected(values.only, values.all).map((figure) => figure.command))];
  for (const command of commands) {
    process.stderr.write(`docs:figures: ${command}\n`);
    const [program = '', ...args] = command.split(' ');
    const argv = program === 'tsx' ? [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), ...args] : program === 'node' ? args : null;
    if (argv === null) throw new Error(`a figure's command starts with tsx or node: ${command}`);
    const run = spawnSync(process.execPath, argv, { cwd: ROOT, stdio: 'inherit' });
    if (run.status !== 0) {
      process.stderr.write(`docs:figures: ${command}: exit ${run.status}\n`);
      return 1;
    }
  }
  return 0;
}

try {
  process.exit(main());
} catch (error) {
  process.stderr.write(`docs:figures: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
