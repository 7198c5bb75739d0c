/**
 * docs/architecture.md's claims that the code can check: the number of names
 * src/index.ts exports, the layers and their order (as .dependency-cruiser.cjs
 * enforces them), the list of dependency rules, the library files that still
 * write to a terminal stream, and the one door: the CLI's few imports of
 * src/redis/, ClusterSession named only in src/redis/ and src/index.ts, and
 * nothing of src/bench/ in verify, inspect or lights.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const doc = read('docs/architecture.md');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: { name: string; from: { path?: string | string[] }; to: { path?: string | string[] } }[];
};
const rule = (name: string): (typeof config.forbidden)[number] => {
  const found = config.forbidden.find((r) => r.name === name);
  if (!found) throw new Error(`no rule ${name}`);
  return found;
};

/** Every .ts file under src/, relative to the repository. */
function sources(dir = 'src'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

/** The names an ES module's export statements give (`export { a, b as c, type D }`, `export const x`, …). */
function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of (m[1] as string).split(',')) {
      const spec = part.trim().replace(/^type\s+/, '');
      if (spec !== '') names.push(spec.split(/\s+as\s+/).pop() as string);
    }
  }
  for (const m of source.matchAll(/^export\s+(?:async\s+)?(?:const|let|function|class|interface|type|enum)\s+(\w+)/gm)) names.push(m[1] as string);
  return names;
}

/** The lines between `<!-- name … -->` and `<!-- /name -->`. */
function block(name: string): string {
  const match = new RegExp(`<!-- ${name}:[^>]*-->([\\s\\S]*?)<!-- /${name} -->`).exec(doc);
  if (!match) throw new Error(`docs/architecture.md has no ${name} block`);
  return match[1] as string;
}

/** The folders (and files) of src/ a path pattern of the config names: `^src/(a|b)/` → a, b. */
function foldersOf(pattern: string): string[] {
  const inner = /^\^src\/(?:\((.*)\)|([^/(]+))/.exec(pattern);
  if (!inner) throw new Error(`not a src/ pattern: ${pattern}`);
  return (inner[1] ?? (inner[2] as string)).split('|').map((f) => f.replace(/\\\./g, '.').replace(/\/$/, ''));
}

/** The doc's layers, top down: name → the src/ folders it lists. */
function docLayers(): [string, string[]][] {
  const layers: [string, string[]][] = [];
  for (const line of block('layers').split('\n')) {
    const m = /^ {4}(\S+(?: cases)?)\s{2,}((?:src\/\S+\s?)+)/.exec(line);
    if (m) layers.push([m[1] as string, [...(m[2] as string).matchAll(/src\/([^\s/]+)/g)].map((f) => f[1] as string)]);
  }
  return layers;
}

/** The rule of each layer that says it imports only down, by the doc's layer name. */
const RULE_OF: Record<string, string> = {
  'use cases': 'usecases-imports-only-down',
  report: 'report-imports-only-down',
  run: 'run-imports-only-down',
  safety: 'safety-imports-only-down',
  measure: 'measure-imports-only-down',
  layouts: 'layouts-imports-only-down',
  base: 'base-imports-only-down',
  core: 'core-imports-only-down',
};

describe('docs/architecture.md against the code', () => {
  it('says how many names src/index.ts exports', () => {
    const count = exportedNames(read('src/index.ts')).length;
    const said = /it exports (\d+) names/.exec(doc.replace(/\s+/g, ' '));
    expect(said?.[1]).toBe(String(count));
  });

  it('draws the layers the dependency rules enforce, in their order, and every folder of src/ in one', () => {
    const layers = docLayers();
    expect(layers.map(([name]) => name)).toEqual(['cli', 'use cases', 'report', 'run', 'safety', 'measure', 'layouts', 'base', 'core']);
    // Each layer's folders are what its rule's `from` names.
    expect(layers[0]?.[1]).toEqual(foldersOf(rule('commands-open-no-connection').from.path as string).map((f) => f.replace(/\.ts$/, '.ts')));
    for (const [name, folders] of layers.slice(1)) {
      expect([...folders].sort(), name).toEqual(foldersOf(rule(RULE_OF[name] as string).from.path as string).sort());
    }
    // Each layer may not import any layer drawn above it (report sits beside the use cases: it may not import the CLI only).
    const patternOf = (name: string): string =>
      name === 'cli' ? (rule('commands-open-no-connection').from.path as string) : (rule(RULE_OF[name] as string).from.path as string);
    for (const [i, [name]] of layers.entries()) {
      if (i === 0) continue;
      const above = layers
        .slice(0, i)
        .map(([n]) => n)
        .filter((n) => !(name === 'report' && n === 'use cases'));
      const forbidden = [rule(RULE_OF[name] as string).to.path].flat();
      expect(forbidden.sort(), name).toEqual(above.map(patternOf).sort());
    }
    const drawn = new Set(layers.flatMap(([, folders]) => folders));
    const folders = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !drawn.has(f))).toEqual([]);
  });

  it('lists every dependency rule, and no rule the config does not have', () => {
    const listed = new Set([...block('rules').matchAll(/`([a-z<>-]+(?: \(known: …\))?)`/g)].map((m) => m[1] as string));
    const general = (name: string): string => name.replace(/^command-[a-z]+-imports/, 'command-<name>-imports').replace(/ \(known: .*\)$/, ' (known: …)');
    const rules = new Set(config.forbidden.map((r) => general(r.name)));
    expect([...rules].filter((r) => !listed.has(r))).toEqual([]);
    expect([...listed].filter((r) => !rules.has(r))).toEqual([]);
  });

  it('names every library file that still writes to a terminal stream', () => {
    const library = sources().filter((f) => !/^src\/(cli\.ts|commands\/)/.test(f));
    const writing = library.filter((f) => /process\.(stderr|stdout)\.write|console\./.test(read(f)));
    const known = doc.slice(doc.indexOf('Library code that writes to a terminal stream'), doc.indexOf('## Next steps'));
    for (const file of writing) expect(known, file).toContain(`\`${file.replace(/^src\//, '')}\``);
  });

  it('one door: the CLI imports src/redis/ at most 10 times, ClusterSession stays in src/redis/, bench/ serves bench only', () => {
    const commands = sources('src/commands');
    const redisImports = commands.flatMap((f) => [...read(f).matchAll(/from '(\.\.\/)+redis\/[^']+'/g)]);
    expect(redisImports.length).toBeLessThanOrEqual(10);
    const naming = sources().filter((f) => !f.startsWith('src/redis/') && f !== 'src/index.ts' && /\bClusterSession\b/.test(read(f)));
    expect(naming).toEqual([]);
    const readers = sources().filter((f) => /^src\/(verify|inspect)\/|^src\/commands\/(verify|inspect|lights|listing)\b/.test(f));
    expect(readers.filter((f) => /from '(\.\.\/)+bench\//.test(read(f)))).toEqual([]);
  });
});
