/** A comparison's verdict on the terminal, as JSON or in GitHub's step summary (`swc compare`, `swc bench --baseline`). */
import { appendFileSync } from 'node:fs';
import type { Verdict } from '../compare/diff.js';
import { ExitCode } from '../core/errors.js';
import { renderCompare, renderStepSummary, verdictLine, type CompareSide } from '../report/compare.js';
import type { CompareFormat } from '../report/compare-formats.js';
import { verdictDocument } from '../report/compare-json.js';
import { outputWidth } from '../report/width.js';
import { shown, shownDeep } from '../safety/text.js';
import { printError } from './lifecycle.js';
import { printJson, useColor } from './options.js';

/**
 * With `--format github` inside GitHub Actions: the verdict as Markdown
 * appended to $GITHUB_STEP_SUMMARY (the job's summary page). Outside Actions
 * the variable is unset and nothing is written; a file that cannot be
 * written is a warning, never a failed gate.
 */
function writeStepSummary(verdict: Verdict, baseline: CompareSide, current: CompareSide): void {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    appendFileSync(file, renderStepSummary(verdict, baseline, current));
  } catch (err) {
    printError(`swc: warning: cannot write the step summary to ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Prints a verdict (warnings for incomparable runs on stderr, the comparison
 * on stdout) and returns the exit code: 0 ok, 1 regression.
 */
export function printVerdict(
  verdict: Verdict,
  baseline: CompareSide,
  current: CompareSide,
  output: { json: boolean; format: CompareFormat; wide?: boolean; quiet?: boolean },
): number {
  for (const m of verdict.mismatches) {
    // Field values come from the files: escaped and cut, never raw on the terminal (src/safety/text.ts).
    process.stderr.write(
      `swc: not comparable: ${shown(String(m.field))} differs (baseline ${shown(String(m.baseline))}, current ${shown(String(m.current))}); regenerate the baseline with this build and these settings\n`,
    );
  }
  if (output.json) {
    printJson(verdictDocument(verdict, baseline, current));
  } else {
    // Every human format (table, markdown, github) renders escaped copies: names, labels and fields from a file carry no control character.
    if (output.format === 'github') writeStepSummary(shownDeep(verdict), shownDeep(baseline), shownDeep(current));
    // CSV is a table for a spreadsheet: its verdict goes whole to stderr, as one line.
    if (output.format === 'csv') process.stderr.write(`swc compare: ${verdictLine(shownDeep(verdict))}\n`);
    process.stdout.write(
      renderCompare(
        shownDeep(verdict),
        shownDeep(baseline),
        shownDeep(current),
        output.format,
        useColor(),
        output.format === 'table' ? outputWidth(output.wide) : Number.POSITIVE_INFINITY,
        { quiet: output.quiet === true },
      ),
    );
  }
  return verdict.ok ? ExitCode.ok : ExitCode.finding;
}
