import { hintsOf } from '../bench/encoding-advice.js';
import type { BenchReport, EncodingHint } from '../measure/types.js';
import { visible } from './style.js';

/** `60` → `1 min`, `90` → `90 s` (as the bench tables show windows). */
function windowText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** Where a hint holds: `stoplight-v6 (every cell)`, `ring at 1 min, 10/s and 5 min, 100/s`. */
function where(hint: EncodingHint): string {
  if (hint.everyCell && hint.cells.length > 1) return `${hint.layout} (every cell)`;
  return `${hint.layout} at ${hint.cells.map((c) => `${windowText(c.windowSeconds)}, ${c.rate}/s`).join(' and ')}`;
}

/** What is too long, as words. */
function part(hint: EncodingHint): string {
  const name = visible(hint.name);
  if (hint.kind === 'value') return `field \`${name}\` (${hint.bytes.toLocaleString('en-US')} bytes)`;
  if (hint.kind === 'field') return `field name \`${name}\` (${hint.bytes.toLocaleString('en-US')} bytes)`;
  return `member \`${name}\` (${hint.bytes.toLocaleString('en-US')} bytes)`;
}

/** One hint as a sentence a person can act on. */
export function hintLine(hint: EncodingHint): string {
  const shorter = hint.kind === 'value' ? 'a value' : hint.kind === 'field' ? 'a field name' : 'a member';
  return (
    `${where(hint)}: its ${hint.type} \`${visible(hint.role)}\` is a ${hint.encoding} only because ${part(hint)} is longer than ${hint.setting} (${hint.limit}); ` +
    `${shorter} of at most ${hint.limit} bytes, or ${hint.setting}=${hint.fits}, keeps it a listpack (--sweep ${hint.setting}=${hint.limit},${hint.fits} measures it)`
  );
}

/** The report's hints, one sentence each; empty when there are none. */
export function hintLines(report: BenchReport): string[] {
  return hintsOf(report).map(hintLine);
}

/** A sentence on lines of at most `width` columns, the lines after the first indented by two spaces. */
export function wrapLine(text: string, width = 120): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(last === undefined ? word : `  ${word}`);
  }
  return lines.join('\n');
}
