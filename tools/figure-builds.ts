/**
 * The blog preset side by side on several server builds, for docs/builds.md:
 *
 *   tsx tools/figure-builds.ts [--redis-server <path>]…
 *
 * The builds are the `--redis-server` arguments, else the paths in
 * SWC_FIGURE_BUILDS (separated by `:`), else only the `redis-server` on
 * PATH. No build is fetched or built here: give the ones you have, and the
 * block's caption names the command, so which builds ran is on record.
 * Runs tools/figure-command.ts with `swc bench --preset blog` over them.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const given: string[] = [];
for (let i = 0; i < argv.length; i += 2) {
  if (argv[i] !== '--redis-server' || argv[i + 1] === undefined) {
    process.stderr.write('usage: tsx tools/figure-builds.ts [--redis-server <path>]…\n');
    process.exit(2);
  }
  given.push(argv[i + 1] ?? '');
}
const fromEnv = (process.env.SWC_FIGURE_BUILDS ?? '').split(':').filter((path) => path !== '');
const builds = given.length > 0 ? given : fromEnv.length > 0 ? fromEnv : ['redis-server'];
const swc = ['bench', '--preset', 'blog', '--no-throughput', '--format', 'markdown', '--no-progress', ...builds.flatMap((path) => ['--redis-server', path])];
const run = spawnSync(
  process.execPath,
  [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'tools/figure-command.ts'), 'docs/builds.md', 'builds-blog', ...swc],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
process.exit(run.status ?? 1);
