/**
 * docs/blog-chart.svg and its figure block in docs/bench.md: a real
 * `swc bench --preset blog --no-throughput --json` run, then
 * `swc chart <result> --out docs/blog-chart.svg`; the block's image names
 * the ratio the chart writes on itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFigure } from './figure-blocks.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
delete env.REDIS_URL;

function swc(args: readonly string[]): string {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin/swc.js'), ...args], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`swc ${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
  return run.stdout;
}

const dir = mkdtempSync(join(tmpdir(), 'swc-figure-'));
try {
  const result = join(dir, 'blog.json');
  writeFileSync(result, swc(['bench', '--preset', 'blog', '--no-throughput', '--json', '--no-progress']));
  swc(['chart', result, '--out', join(ROOT, 'docs/blog-chart.svg')]);
  const svg = /stoplight-v6 uses [^<'"]*/.exec(readFileSync(join(ROOT, 'docs/blog-chart.svg'), 'utf8'))?.[0] ?? '';
  const alt = `Memory per light of stoplight-v5 and stoplight-v6 against window at 100 requests per second, log scales, each point's value written beside it, the published figures as diamonds${svg === '' ? '' : `, and the line "${svg.replace(/&amp;/g, '&').replace(/"/g, "'")}"`}`;
  writeFigure(join(ROOT, 'docs/bench.md'), 'blog-chart', `![${alt}](blog-chart.svg)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
