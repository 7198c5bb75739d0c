import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SWC_BIN } from './run-cli.js';

// What swc loads before it answers: a module hook records every file the
// process loads (its URL), so a heavy import that creeps back onto the
// start-up path fails here by name, whatever the machine's speed. bin/swc.js
// runs the CLI's bundle (scripts/bundle.mjs): a chunk of it stands for the
// modules esbuild put in it, each of which it names on a `// <path>` line.
const dir = mkdtempSync(path.join(os.tmpdir(), 'swc-startup-'));
const hooks = path.join(dir, 'hooks.mjs');
const register = path.join(dir, 'register.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.SWC_LOADED_LOG, url + '\\n');
  return next(url, context);
}
`,
);
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${hooks}`).href)});\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The modules `swc …args` loads (file URLs and node: builtins), and its exit code. */
function loaded(args: readonly string[]): { code: number | null; modules: string[] } {
  const log = path.join(dir, `${args.join('_').replace(/\W/g, '')}.log`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', register, SWC_BIN, ...args], {
    env: { ...process.env, SWC_LOADED_LOG: log, REDIS_URL: '', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: run.status, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean).flatMap(bundled) };
}

/** A loaded file, or for a chunk of the bundle the modules in it (as `bundle:/dist/…` and `bundle:/node_modules/…`). */
function bundled(url: string): string[] {
  if (!/\/dist\/bundle\/[^/]+\.js$/.test(url)) return [url];
  const text = readFileSync(new URL(url), 'utf8');
  return [...text.matchAll(/^\/\/ ((?:dist|node_modules)\/\S+\.[cm]?js)$/gm)].map((match) => `bundle:/${match[1]}`);
}

/**
 * Packages and swc folders only a command's action needs. The files let through by name hold
 * constants or help text a command's definition reads (layout and panel names, format choices,
 * default tolerances, the suggest rule, the --trust-scripts text) or a check its flags run on a
 * path (terminal-safe text, writes that follow no link): each imports at most core/ and node:.
 */
const HEAVY = [
  /node_modules\/(ioredis|redis-parser|zod|vega[^/]*|@resvg|cli-table3|tinybench|asciichart|chalk)\//,
  /\/dist\/(layouts\/(?!builtin-names|inspection\.js)|inspect\/(?!list-options)|compare\/(?!tolerances\.js)|measure\/|verify\/|doctor\/|traffic\/|model\/)/,
  /\/dist\/redis\/(connect|cluster|server|routed|rdb-server|preflight)\.js/,
  /\/dist\/(report\/(?!help-text|inspect-limits|lights-formats|bench-formats\.js|compare-formats\.js|chart-panel-names\.js|suggest-rule\.js)|schemas\/|safety\/(?!(namespace|trust|text|write-file)\.js))/,
];
const heavyIn = (modules: readonly string[]): string[] => modules.filter((m) => HEAVY.some((re) => re.test(m)));

describe('start-up: what swc loads before it answers', () => {
  it('--version: the program and commander, no subcommand', () => {
    const { code, modules } = loaded(['--version']);
    expect(code).toBe(0);
    expect(heavyIn(modules)).toEqual([]);
    expect(modules.filter((m) => m.includes('/dist/commands/')).map((m) => m.replace(/.*\/dist\//, ''))).toEqual([
      'commands/program.js',
      'commands/lifecycle.js',
      'commands/status-line.js',
    ]);
    // About 17 today (bin, cli, program, lifecycle, core, commander, a few builtins); a subcommand's module graph is several times that.
    expect(modules.length).toBeLessThan(30);
  });

  it.each([['inspect'], ['lights'], ['clean'], ['doctor']])('%s --help: that command alone, no layout, client or renderer', (command) => {
    const { code, modules } = loaded([command, '--help']);
    expect(code).toBe(0);
    expect(heavyIn(modules)).toEqual([]);
    const commands = modules.filter((m) => /\/dist\/commands\//.test(m)).map((m) => m.replace(/.*\/dist\/commands\//, ''));
    expect(commands.filter((c) => !['program.js', 'lifecycle.js', 'status-line.js', 'options.js'].includes(c))).toEqual([`${command}.js`]);
  });

  // bench and verify: their option groups and the CLI helpers, but the layouts their --layout and --scripts parsers read
  // load only past the help (src/commands/layout-parsers.ts), and the comparison and charts only in the action.
  it.each([
    ['bench', '--help'],
    ['bench', '-h'],
    ['verify', '--help'],
  ])('%s %s: no layout, comparison, client, schema or renderer', (command, flag) => {
    const { code, modules } = loaded([command, flag]);
    expect(code).toBe(0);
    expect(heavyIn(modules)).toEqual([]);
    const commands = modules.filter((m) => /\/dist\/commands\//.test(m)).map((m) => m.replace(/.*\/dist\/commands\//, ''));
    const helpers = ['program.js', 'lifecycle.js', 'status-line.js', 'options.js', 'builds.js', 'compare-options.js', 'chart-panels.js', 'layout-parsers.js'];
    // The command's own file and folder (bench/options-*.ts, bench/help.ts), no other command's.
    expect(commands.filter((c) => !helpers.includes(c) && !c.startsWith(`${command}/`))).toEqual([`${command}.js`]);
    expect(commands.filter((c) => c.startsWith(`${command}/`) && !/\/(options-[a-z]+|help|flags)\.js$/.test(c))).toEqual([]);
  });

  // compare and chart: their renderers (the verdict table, the terminal chart, vega, resvg) load in the action.
  it.each([['compare'], ['chart']])('%s --help: no comparison, client, schema, chart engine or layout', (command) => {
    const { code, modules } = loaded([command, '--help']);
    expect(code).toBe(0);
    expect(heavyIn(modules)).toEqual([]);
  });

  it('swc --help: every command defined, none of their actions loaded', () => {
    const { code, modules } = loaded(['--help']);
    expect(code).toBe(0);
    expect(heavyIn(modules)).toEqual([]);
  });
});
