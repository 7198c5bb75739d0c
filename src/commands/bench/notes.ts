/** What `swc bench` says on stderr besides progress: a guarded run's notes, and realtime cells that fell behind. */
import type { Say } from '../../run/guarded-run.js';
import type { BenchReport } from '../../measure/types.js';
import { formatWindow } from '../../report/bench.js';
import { proseWidth, wrapText } from '../../report/width.js';
import { writeAbove } from '../status-line.js';

/** A guarded run's notes and warnings, on stderr; a long line wrapped to the terminal when it says so. */
export const sayOnStderr: Say = (line, options) => writeAbove(options?.wrap ? wrapText(line, proseWidth({ stream: process.stderr }), 4) : line);

/** Above this shortfall a realtime cell measured this client's limits more than the layout's. */
const SHORTFALL_WARNING = 0.05;

/** Says on stderr which realtime cells could not keep pace, so a slow client is not read as a slow layout. */
export function warnShortfall(report: BenchReport): void {
  for (const r of report.results) {
    if (!r.realtime || r.realtime.shortfallFraction <= SHORTFALL_WARNING) continue;
    process.stderr.write(
      `swc bench: warning: ${r.layout} window ${formatWindow(r.windowSeconds)} at ${r.rate}/s fell behind: ` +
        `sent ${r.realtime.achievedRate.toFixed(1)}/s per light (${(r.realtime.shortfallFraction * 100).toFixed(1)}% short); ` +
        `this client, not the layout, set the pace\n`,
    );
  }
}
