import type { Suggestion } from '../bench/suggest.js';
import { formatWindow } from '../core/format.js';
import { palette } from './style.js';
import { renderMarkdown, type Grid } from './table.js';
import { SUGGEST_RULE_TEXT } from './suggest-rule.js';
import { PIPED_COLUMNS, renderFitted } from './width.js';

const dash = '–';

/** The ranking of one window and rate: one row per layout, best first, failed and skipped ones last. */
export function suggestGrid(s: Suggestion): Grid {
  // Bytes per second of window are in the paragraph and the JSON: the table keeps within 120 columns.
  const head = ['rank', 'layout', 'bytes/light', '× smallest', 'server µs/request', 'max error', 'flips', 'verdict'];
  const rows = s.ranking.map((r) => [
    r.rank === null ? dash : String(r.rank),
    r.layout,
    r.bytesPerLight === null ? dash : Math.round(r.bytesPerLight).toLocaleString('en-US'),
    r.ratioToSmallest === null ? dash : `${r.ratioToSmallest.toFixed(1)}×`,
    r.serverUsecPerRequest === null ? dash : `${r.serverUsecPerRequest.toFixed(1)}${r.serverUsecSource === 'probe' ? '*' : ''}`,
    r.maxAbsError === null ? dash : r.maxAbsError.toFixed(4),
    r.decisionFlipFraction === null ? dash : `${(r.decisionFlipFraction * 100).toFixed(2)}%`,
    // A failure's whole message is in the paragraph and the JSON; the table keeps its start.
    r.verdict.length > 40 ? `${r.verdict.slice(0, 39)}…` : r.verdict,
  ]);
  const probed = s.ranking.some((r) => r.serverUsecSource === 'probe');
  return {
    head,
    rows,
    numeric: head.map((h) => h !== 'layout' && h !== 'verdict'),
    caption: `flips = reads deciding differently from the exact window at ${s.threshold ?? '?'}` + (probed ? '; * server µs probed in the accuracy phase' : ''),
    fit: {
      priority: head.map((h) => ({ 'max error': 3, '× smallest': 2, flips: 1 })[h] ?? 0),
      legend: head.map((h) => h === 'verdict'),
    },
  };
}

/** Text broken between words into lines of at most `width` (a terminal paragraph). */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

/**
 * The answer of `--suggest`, one line per window and rate, printed before
 * the rankings that support it: the layout picked and the runner-up.
 */
export function renderSuggestionHeadlines(suggestions: readonly Suggestion[]): string {
  const lines = suggestions.map((s) => {
    const where = `a ${formatWindow(s.windowSeconds)} window at ${s.rate} req/s`;
    if (s.pick === null) return `Suggested for ${where}: none (no layout measured here; the ranking below says why)`;
    return `Suggested for ${where}: ${s.pick}${s.runnerUp !== null ? ` (runner-up ${s.runnerUp})` : ''}`;
  });
  return `${lines.join('\n')}\n`;
}

/** The suggestions as text: per window and rate, the ranking table, then the paragraph. */
export function renderSuggestions(suggestions: readonly Suggestion[], format: 'table' | 'markdown', color: boolean, width: number = PIPED_COLUMNS): string {
  const prose = Math.min(width, PIPED_COLUMNS);
  const c = palette(color);
  const parts: string[] = [];
  for (const s of suggestions) {
    const grid = suggestGrid(s);
    const title = `Which layout? ${formatWindow(s.windowSeconds)} window at ${s.rate} req/s`;
    if (format === 'markdown') parts.push(`**${title}** (${grid.caption})\n\n${renderMarkdown(grid)}\n\n${s.paragraph}`);
    else {
      const table = renderFitted(title, grid, width, { color, bold: (t) => c.bold(t), dim: (t) => c.dim(t), captionBelow: true });
      parts.push(`${table}\n${wrap(s.paragraph, prose)}`);
    }
  }
  parts.push(format === 'markdown' ? `_Rule: ${SUGGEST_RULE_TEXT}._` : c.dim(wrap(`Rule: ${SUGGEST_RULE_TEXT}.`, prose)));
  return `${parts.join('\n\n')}\n`;
}
