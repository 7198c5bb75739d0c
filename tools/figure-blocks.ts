/**
 * Figure blocks in README.md and docs/*.md, and the rule that finds a
 * measured figure outside one (test/unit/docs/figures.test.ts applies it).
 *
 * A figure block is
 *
 *   <!-- figure: <id> -->
 *   …written by the script tools/figures.ts registers for <id>…
 *   <!-- /figure -->
 *
 * and README's `<!-- example …: swc … -->` blocks are figures too (their
 * command is their source). Pure: no server, no process; the writers and the
 * test share it.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const FIGURE_BLOCK = /<!-- figure: ([\w-]+) -->\n[\s\S]*?<!-- \/figure -->/g;

/** The ids of every figure block of a document, in order. */
export function figureIds(text: string): string[] {
  return [...text.matchAll(FIGURE_BLOCK)].map((m) => m[1] ?? '');
}

/** Writes `body` between the markers of figure `id` in `file` (the block must exist: a figure is placed by hand, filled by its script). */
export function writeFigure(file: string, id: string, body: string): void {
  const text = readFileSync(file, 'utf8');
  const block = new RegExp(`<!-- figure: ${id} -->\\n[\\s\\S]*?<!-- /figure -->`);
  if (!block.test(text)) throw new Error(`${file} has no <!-- figure: ${id} --> … <!-- /figure --> block`);
  writeFileSync(
    file,
    text.replace(block, () => `<!-- figure: ${id} -->\n${body.trimEnd()}\n<!-- /figure -->`),
  );
}

/**
 * What reads as a measurement: a number (a range `a–b` too) with a unit of
 * time, bytes, share or ratio, or of throughput; or a count "N of M".
 * Not units: `min` and `h` (windows are inputs), `req/s` and `/s` (rates are
 * inputs), `MiB` (swc's bounds are stated in MiB). A cell's window
 * (`600 s at 10/s`, `30 s @ 1/s`) is an input too.
 */
const NUMBER = String.raw`[−+-]?\d[\d,]*(?:\.\d+)?`;
const UNIT = String.raw`(?:ns|µs|us|ms|s|B|bytes|KB|kB|MB|GB|%|×|x|ops/s|calls/s)`;
const MEASURE = new RegExp(String.raw`(?<![\w.@/-])(${NUMBER}(?:\s?[–-]\s?${NUMBER})?\s?${UNIT}(?![\w/])(?!\s(?:at|@)\s\d)|\d[\d,]* of \d[\d,]*(?! of))`, 'g');

/**
 * Words that make the number a definition rather than a measurement when
 * they stand right before it: a default, a bound, a target, a budget, a
 * threshold, an input. "within 5 s" is a bound a test holds, not a figure.
 */
const DEFINITION_CUE =
  /(?:default|defaults to|at most|at least|up to|under|over|above|below|within|past|more than|less than|bound|limit|cap|budget|target|threshold|tolerance|every|each|per|after|than|by|say|e\.g\.|for example|such as|=|≥|≤|<|>|[−+])[\s:(]*$/i;

export interface Measured {
  readonly doc: string;
  readonly line: number;
  readonly says: string;
  readonly text: string;
}

/**
 * Prose of a document with what is not prose blanked out, line for line:
 * fenced code, HTML comments, figure and example blocks, inline code,
 * quoted text ("…", which is what swc prints), links' targets and images,
 * a table's first column (the case a row describes: its inputs), and what a
 * fixed bug "used to" do (history).
 */
export function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence = false;
  let block = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      lines.push('');
      continue;
    }
    if (/<!-- (figure|example)\b/.test(line)) block = true;
    if (fence || block) {
      if (/<!-- \/(figure|example) -->/.test(line)) block = false;
      lines.push('');
      continue;
    }
    lines.push(line);
  }
  // Inline code and quotes may wrap onto the next line; blanking keeps the line breaks.
  const blank = (match: string, quote: string): string => quote + match.slice(1, -1).replace(/[^\n]/g, '') + quote;
  return lines
    .join('\n')
    .replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, ''))
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/`[^`\n]*(?:\n[^`\n]*)?`/g, (m) => blank(m, '`'))
    .replace(/"[^"\n]*(?:\n[^"\n]*)?"/g, (m) => blank(m, '"'))
    .replace(/“[^”\n]*(?:\n[^”\n]*)?”/g, (m) => blank(m, '"'))
    .replace(/\*\*/g, '')
    .split('\n')
    .map((line) =>
      line
        // A table's first column names the case (its inputs), the rest is what happened.
        .replace(/^(\s*\|)([^|]*)/, (_m, bar: string, cell: string) => bar + ' '.repeat(cell.length))
        // What a fixed bug used to do is history, not a figure of swc.
        .replace(/\bused to [^)|;]*/g, ''),
    );
}

/** Every measurement-like number in the prose of `text`, definitions left out. */
export function measuredFigures(doc: string, text: string): Measured[] {
  const found: Measured[] = [];
  proseLines(text).forEach((prose, index) => {
    for (const m of prose.matchAll(MEASURE)) {
      const before = prose.slice(0, m.index);
      if (DEFINITION_CUE.test(before)) continue;
      found.push({ doc, line: index + 1, says: m[0].replace(/\s+/g, ' '), text: prose.trim() });
    }
  });
  return found;
}
