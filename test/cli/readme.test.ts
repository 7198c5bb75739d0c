import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('README and tour examples', () => {
  // tools/readme-examples.ts --check runs every example of the README and docs/tour.md as a user would
  // (bench on its own private server, inspect/lights on a seeded one) and fails on a
  // non-zero exit or a line wider than 80 columns. `npm run docs:figures` rewrites the outputs.
  it('every example of README.md and docs/tour.md exits 0 and fits 80 columns', () => {
    const run = spawnSync(process.execPath, [`${ROOT}node_modules/tsx/dist/cli.mjs`, 'tools/readme-examples.ts', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDIS_URL: '' },
      timeout: 240_000,
    });
    const problems = run.stderr.split('\n').filter((line) => /^docs: .*(exit|wider)/.test(line));
    expect(problems).toEqual([]);
    expect(run.status, run.stderr).toBe(0);
  }, 300_000);
});
