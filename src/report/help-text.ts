// Help text laid out for a terminal: the width it wraps to and the wrapping.

/**
 * The width help wraps to: COLUMNS when set, else the terminal's columns,
 * else 80 (piped help reads like a man page, not like a wide report).
 */
export function helpWidth(env: NodeJS.ProcessEnv = process.env, stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const fromEnv = /^\s*\d+\s*$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : 0;
  const columns = fromEnv > 0 ? fromEnv : stream.isTTY && stream.columns ? stream.columns : HELP_COLUMNS;
  return Math.max(MIN_HELP_COLUMNS, columns);
}
const HELP_COLUMNS = 80;
const MIN_HELP_COLUMNS = 40;

/** A line that starts an item of its own (a list entry, an example): never joined to the line before. */
const ITEM = /^(\s|[-*•]\s|\d+[.)]\s|[A-Z][A-Za-z /-]*:(\s|$))/;

/**
 * Joins the lines of each paragraph of prose (lines at the margin, one after
 * another) into one line, so that {@link wrapHelp} flows it to the width of
 * the terminal rather than at the breaks it was typed with. Indented lines
 * (options, examples, lists), headings (`Exit codes:`), list items and blank
 * lines stay as they are.
 */
export function flowParagraphs(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const last = out.at(-1);
    const joins = last !== undefined && last !== '' && !/^\s/.test(last) && !/:$/.test(last) && line !== '' && !ITEM.test(line);
    if (joins) out[out.length - 1] = `${last} ${line}`;
    else out.push(line);
  }
  return out.join('\n');
}

/**
 * Breaks every line of `text` wider than `width` at spaces; a continuation
 * keeps the line's indent plus two. commander wraps option and command
 * descriptions itself; this catches the hand-written text after them
 * (exit codes, examples), so a long line added there still fits. A prose
 * line (no indent) continues at the margin.
 */
export function wrapHelp(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if ([...line].length <= width) return [line];
      const indent = /^ */.exec(line)?.[0] ?? '';
      const more = indent === '' ? '' : `${indent}  `;
      const out: string[] = [];
      let current = '';
      for (const word of line.slice(indent.length).split(/(?<=\S) +/)) {
        const lead = out.length === 0 ? indent : more;
        if (current && [...lead, ...current, ' ', ...word].length > width) {
          out.push(lead + current);
          current = word;
        } else current = current ? `${current} ${word}` : word;
      }
      out.push((out.length === 0 ? indent : more) + current);
      return out;
    })
    .join('\n');
}
