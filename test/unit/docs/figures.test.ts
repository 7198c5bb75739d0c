import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { figureIds, measuredFigures, type Measured } from '../../../tools/figure-blocks.js';
import { DEFINITIONS, FIGURES, UNSOURCED } from '../../../tools/figures.js';

// Every figure in README.md and docs/*.md has a script that regenerates it:
// a figure block's id is registered in tools/figures.ts with its command, and
// a measurement-like number in prose outside a block is either a definition
// listed there with its reason or one of a document's known unsourced
// figures (a count that may only go down).

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const text = new Map(DOCS.map((doc) => [doc, readFileSync(`${ROOT}${doc}`, 'utf8')]));

const isDefinition = (m: Measured): boolean => DEFINITIONS.some((d) => d.doc === m.doc && d.says === m.says);
const unsourced = (doc: string): Measured[] => measuredFigures(doc, text.get(doc) ?? '').filter((m) => !isDefinition(m));

describe('figures in README and docs', () => {
  it('every figure block names a registered figure of its own document, once', () => {
    const blocks = DOCS.flatMap((doc) => figureIds(text.get(doc) ?? '').map((id) => `${doc}: ${id}`));
    const registered = FIGURES.map((f) => `${f.doc}: ${f.id}`);
    expect(
      blocks.filter((b) => !registered.includes(b)),
      'a block with no source in tools/figures.ts',
    ).toEqual([]);
    expect(new Set(blocks).size, 'an id used twice').toBe(blocks.length);
  });

  it('every registered figure has its block, and ids are unique', () => {
    const missing = FIGURES.filter((f) => !figureIds(text.get(f.doc) ?? '').includes(f.id)).map((f) => `${f.doc}: ${f.id}`);
    expect(missing).toEqual([]);
    expect(new Set(FIGURES.map((f) => f.id)).size).toBe(FIGURES.length);
  });

  it('no measured figure in prose outside a block, beyond the known unsourced ones (which only go down)', () => {
    const over = DOCS.flatMap((doc) => {
      const found = unsourced(doc);
      const allowed = UNSOURCED[doc] ?? 0;
      return found.length > allowed
        ? [
            `${doc}: ${found.length} measured figure(s) outside a figure block, ${allowed} known:\n${found.map((m) => `  ${m.line}: ${m.says}  (${m.text.slice(0, 90)})`).join('\n')}`,
          ]
        : [];
    });
    expect(over, 'put a measured figure in a <!-- figure: id --> block written by a script registered in tools/figures.ts, or list a definition there').toEqual(
      [],
    );
  });

  it('the known counts are exact, so a figure moved into a block lowers them', () => {
    const stale = Object.entries(UNSOURCED).filter(([doc, allowed]) => unsourced(doc).length < allowed);
    expect(
      stale.map(([doc, allowed]) => `${doc}: ${unsourced(doc).length} now, ${allowed} listed`),
      "lower the document's count in tools/figures.ts' UNSOURCED to what it is now",
    ).toEqual([]);
  });

  it('every definition still occurs (a stale entry would allow a figure by accident)', () => {
    const unused = DEFINITIONS.filter((d) => !measuredFigures(d.doc, text.get(d.doc) ?? '').some((m) => m.says === d.says));
    expect(unused).toEqual([]);
  });

  it('the rule: units and counts are measurements, defaults and bounds are not', () => {
    const says = (line: string): string[] => measuredFigures('x.md', line).map((m) => m.says);
    expect(says('took 3.0 s for the blog preset, 0.38× of it, 19 of 20 runs, 4.7 KB, 12%')).toEqual(['3.0 s', '0.38×', '19 of 20', '4.7 KB', '12%']);
    expect(says('wall 6.6–8.1 s, 1.2 ms, 30 µs, 100,000 ops/s')).toEqual(['6.6–8.1 s', '1.2 ms', '30 µs', '100,000 ops/s']);
    expect(says('(default 1 s), at most 250 µs, within 5 s, target: under 10 s, a 16 MiB bound')).toEqual([]);
    expect(says('a 5 min window at 100 req/s, 1 h, `took 3 s`, "4 min 29 s left", Redis 7.4.1, the cell 600 s at 10/s')).toEqual([]);
    expect(says('| 3.0 s case | 4.1 s | and it used to take 90 s')).toEqual(['4.1 s']);
    expect(says('```\n3.0 s\n```\n<!-- figure: x -->\n3.0 s\n<!-- /figure -->')).toEqual([]);
  });
});
