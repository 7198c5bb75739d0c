import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// Every --help's exit codes and examples are checked in-process in
// test/unit/commands/help-examples.test.ts; here, what a real process shows.
describe('the built CLI: a typo suggests, --help wins (exit codes and streams of a real process)', () => {
  it('swc bench --rat 100 and swc bnech: one line on stderr with "Did you mean", exit 2; lights --help --redis-url x: help, exit 0', async () => {
    const option = await runCli(['bench', '--rat', '100']);
    expect(option.code).toBe(2);
    expect(option.stdout).toBe('');
    expect(option.stderr).toBe("swc: unknown option '--rat' (Did you mean --rate?); see swc bench --help\n");
    const command = await runCli(['bnech']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe("swc: unknown command 'bnech' (Did you mean bench?); see swc --help\n");
    const help = await runCli(['lights', '--help', '--redis-url', 'x']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(/^Usage: swc lights /);
    expect(help.stdout.split('\n').filter((l) => [...l].length > 80)).toEqual([]);
  });
});

describe('--version names the package, its version, the Node running it and where it runs from', () => {
  it('one line, and --json (before or after) the same facts as JSON; exit 0', async () => {
    const { readFileSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
    const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { name: string; version: string };
    const line = await runCli(['--version']);
    expect(line.code).toBe(0);
    expect(line.stdout).toBe(`swc ${pkg.version} (${pkg.name}), Node ${process.version}, from ${root}\n`);
    for (const args of [
      ['--version', '--json'],
      ['--json', '-V'],
    ]) {
      const json = await runCli(args);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ name: pkg.name, version: pkg.version, node: process.version, path: root });
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
      expect(run.stderr).toBe('swc: not built yet (dist/bundle/cli.js is missing): run `npm ci` or `npm run build` in the swc folder first\n');
      expect(run.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
