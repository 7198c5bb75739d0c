import { hintsOf } from '../measure/encoding-advice.js';
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

/** What is too long, as words: "field `last_error_json` holds 109 bytes". */
function part(hint: EncodingHint): string {
  const name = visible(hint.name);
  const bytes = `${hint.bytes.toLocaleString('en-US')} bytes`;
  if (hint.kind === 'value') return `field \`${name}\` holds ${bytes}`;
  if (hint.kind === 'field') return `field name \`${name}\` is ${bytes}`;
  return `member \`${name}\` is ${bytes}`;
}

/** The settings a sweep should try: the limit, then round values from the one that fits the part measured. */
function sweepValues(hint: EncodingHint): string {
  return [hint.limit, hint.fits, hint.fits * 2].join(',');
}

/**
 * One hint as a sentence a person can act on. It claims only what was
 * measured: the key is past this one limit now. A higher limit that fits
 * today's value may still not do, since an earlier, longer value converted
 * the key and Redis never converts it back; the sweep it suggests measures that.
 */
export function hintLine(hint: EncodingHint): string {
  const parts = hint.kind === 'value' ? 'Values' : hint.kind === 'field' ? 'Field names' : 'Members';
  return (
    `${where(hint)}: its ${hint.type} \`${visible(hint.role)}\` is a ${hint.encoding}, and the only limit it is past is ${hint.setting} (${hint.limit}): ${part(hint)}. ` +
    `${parts} of at most ${hint.limit} bytes keep it a listpack; --sweep ${hint.setting}=${sweepValues(hint)} measures higher limits ` +
    `(an earlier, longer value counts too: Redis never converts a key back)`
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
