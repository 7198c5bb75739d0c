import { IncompleteBenchError } from '../../bench/run.js';
import { withStableKeyNames } from '../../bench/stable-keys.js';
import type { BenchReport } from '../../measure/types.js';
import { renderBench, type BenchFormat } from '../../report/bench.js';
import { outputWidth, proseWidth, wrapText } from '../../report/width.js';
import { printJson, useColor } from '../options.js';
import { writeJsonFile } from '../output-files.js';

/** For a `.catch`: an {@link IncompleteBenchError} is kept as the outcome, any other error rethrown. */
export function keepIncomplete(err: unknown): IncompleteBenchError {
  if (err instanceof IncompleteBenchError) return err;
  throw err;
}

/**
 * A run a script error cut short after a memory phase: prints what it
 * measured on stdout (the table or JSON, marked incomplete), then on stderr
 * the cause, named as `swc verify` names it, and the ways out; exit 3, or 2
 * when the scripts given are at fault (a reply over swc's bound).
 */
export function printIncomplete(
  err: IncompleteBenchError,
  prefix: string,
  format: BenchFormat,
  options: { wide: boolean; output: string | undefined; scriptsDir: string | undefined },
): number {
  const strip = (text: string): string => text.split(`${prefix}:`).join('').split(prefix).join('');
  const { incomplete } = err.report;
  const report: BenchReport = {
    ...withStableKeyNames(err.report, prefix),
    incomplete: {
      ...incomplete,
      error: strip(incomplete.error),
      ...(incomplete.rejected !== undefined ? { rejected: strip(incomplete.rejected) } : {}),
      ...(incomplete.stoppedWith !== undefined ? { stoppedWith: strip(incomplete.stoppedWith) } : {}),
    },
  };
  if (options.output !== undefined) writeJsonFile('--output', options.output, report);
  if (format === 'json') printJson(report);
  else process.stdout.write(renderBench(report, format, useColor(), { wide: options.wide, width: outputWidth(options.wide) }));
  const { layout, phase, cause, rejected, error, stoppedWith } = report.incomplete ?? incomplete;
  // The phases after memory run in this order: throughput, commands per call, accuracy; each way out skips the failed one and those after it.
  const skip = { throughput: '--no-throughput --no-commands --no-accuracy', 'commands-per-call': '--no-commands --no-accuracy', accuracy: '--no-accuracy' }[
    phase
  ];
  const scripts = options.scriptsDir !== undefined ? ` --scripts ${options.scriptsDir}` : '';
  const lines = [
    `swc bench: incomplete: ${layout}'s script failed in its ${phase} phase${cause ? `: ${cause.name}: ${cause.why}` : ''}; ` +
      `the memory figures printed above were measured before it (exit ${err.exitCode})`,
    // One call's: verify's traffic replayed under MONITOR found the command and the error together.
    ...(rejected !== undefined ? [`  the server received: ${rejected}`, `  error (the same call, replayed): ${error}`] : [`  error: ${error}`]),
    ...(stoppedWith !== undefined ? [`  where the run stopped: ${stoppedWith}`] : []),
    // Exit 2: the scripts given are at fault (a reply over swc's bound or in a shape their layout does not read), not the server's build.
    // Lua's unpack() limit is the same on every build: another server is no way out of it.
    `  ways out: ${skip} to measure memory only; ${
      err.exitCode === 2
        ? 'correct the script (or the manifest); '
        : cause?.id === 'unpack-limit'
          ? ''
          : '--redis-server <a Redis 7.2+ build> to run on a build that accepts it; '
    }` + `swc verify${scripts} --layout ${layout} for the shortest reproduction`,
  ];
  const width = proseWidth({ stream: process.stderr });
  process.stderr.write(`${lines.map((l) => wrapText(l, width, 4)).join('\n')}\n`);
  // 3, as any script error; 2 when the scripts given are at fault (a reply over swc's bound).
  return err.exitCode;
}
