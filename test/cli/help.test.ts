import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

/** The subcommands `swc --help` lists (whatever is registered, so a new one is checked too). */
async function subcommands(): Promise<string[]> {
  const help = (await runCli(['--help'])).stdout;
  const section = help.slice(help.indexOf('Commands:'));
  return [...section.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1] as string).filter((name) => name !== 'help');
}

describe('every --help lists exit codes and at least two examples', () => {
  it("swc --help and each subcommand's", async () => {
    const names = await subcommands();
    expect(names).toEqual(expect.arrayContaining(['bench', 'chart', 'compare', 'doctor', 'inspect', 'lights']));
    for (const args of [[], ...names.map((n) => [n])]) {
      const run = await runCli([...args, '--help']);
      const label = `swc ${args.join(' ')} --help`;
      expect(run.code, label).toBe(0);
      expect(run.stdout, label).toMatch(/^Exit codes[^\n]*: 0 /m);
      const examples = run.stdout.slice(run.stdout.indexOf('\nExamples:'));
      expect(run.stdout.includes('\nExamples:'), label).toBe(true);
      expect(examples.split('\n').filter((l) => l.startsWith('  swc ')).length, label).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('bin/swc.js before a build', () => {
  it('says in one line to build first, with exit 3, instead of a module stack trace', async () => {
    const { mkdtempSync, mkdirSync, copyFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { spawnSync } = await import('node:child_process');
    const dir = mkdtempSync(path.join(tmpdir(), 'swc-unbuilt-'));
    try {
      mkdirSync(path.join(dir, 'bin'));
      copyFileSync(new URL('../../bin/swc.js', import.meta.url), path.join(dir, 'bin', 'swc.js'));
      const run = spawnSync(process.execPath, [path.join(dir, 'bin', 'swc.js'), '--version'], { encoding: 'utf8' });
      expect(run.status).toBe(3);
      expect(run.stderr).toBe('swc: not built yet (dist/cli.js is missing): run `npm ci` or `npm run build` in the swc folder first\n');
      expect(run.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
