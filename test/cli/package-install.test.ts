import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};

let dir: string;
let project: string;

/**
 * The package as npm would publish it (`npm pack`, scripts skipped: the
 * tests run on a build), unpacked into another project's node_modules. Its
 * dependencies are linked from this checkout, so the test needs no network.
 */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'swc-pack-'));
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
  const [packed] = JSON.parse(out) as { filename: string }[];
  const filename = packed?.filename ?? '';
  project = join(dir, 'project');
  const installed = join(project, 'node_modules', manifest.name);
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, filename), '-C', installed, '--strip-components', '1']);
  for (const dep of Object.keys(manifest.dependencies)) {
    const target = join(project, 'node_modules', dep);
    mkdirSync(join(target, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), target, 'dir');
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a name that installs', () => {
  it('the package is not called swc (an unrelated npm package), and its command still is', () => {
    expect(manifest.name).toBe('sliding-window-counters');
    expect(Object.keys(manifest.bin)).toEqual(['swc']);
  });

  it('another project imports the library by the package name', () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `import { createLayout, layoutNames, SWC_VERSION, shortId } from '${manifest.name}';\n` +
        `console.log(JSON.stringify({ layouts: layoutNames, version: SWC_VERSION, prefix: createLayout('stoplight-v6').prefix, id: shortId('default'), packedScripts: createLayout('packed').scripts.length }));\n`,
    );
    const run = spawnSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      layouts: ['stoplight-v5', 'stoplight-v6', 'sliding-log', 'ring', 'packed', 'coarse', 'two-window'],
      prefix: 'stoplight:v6',
      id: '37a8eec1ce19',
      packedScripts: 3,
    });
  });

  it('the packed command runs from the other project (its Lua and dist are in the package)', () => {
    const bin = join(project, 'node_modules', manifest.name, manifest.bin.swc as string);
    const run = spawnSync(process.execPath, [bin, '--version'], { cwd: project, encoding: 'utf8' });
    expect(run.status).toBe(0);
    // Where it runs from is the installed package, not this checkout.
    expect(run.stdout).toBe(`swc ${manifest.version} (${manifest.name}), Node ${process.version}, from ${join(project, 'node_modules', manifest.name)}\n`);
    const doctor = spawnSync(process.execPath, [bin, 'doctor', '--help'], { cwd: project, encoding: 'utf8' });
    expect(doctor.status).toBe(0);
  });
});
