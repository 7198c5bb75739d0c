import { ExitCode, UsageError } from '../../core/errors.js';
import type { SweepReport } from '../../bench/sweep.js';
import type { Suggestion } from '../../bench/suggest.js';
import { renderBench, type BenchFormat } from '../../report/bench.js';
import { isBenchReport, renderBuilds, type BuildRun } from '../../report/builds.js';
import { renderSuggestionHeadlines, renderSuggestions } from '../../report/suggest.js';
import { renderSweep } from '../../report/sweep.js';
import { buildsJson, childJson, runAcrossBuilds, withoutFlags } from '../builds.js';
import { writeJsonFile } from '../output-files.js';
import { printJson, useColor } from '../options.js';

/** Flags of `swc bench` this module reads. */
export interface BenchBuildsFlags {
  baseline?: string;
  chart?: boolean;
  chartOut?: string;
  output?: string;
  wide?: boolean;
  redisUrl?: string;
  cluster?: boolean;
  redisUrls?: string[];
}

const isSweep = (value: unknown): value is SweepReport => typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'sweep';

/**
 * `swc bench … --redis-server A --redis-server B`: the same bench once per
 * build (each a child swc with its own private servers, same settings), then
 * one table with a column group per build. Returns the exit code.
 */
export async function benchAcrossBuilds(binaries: readonly string[], flags: BenchBuildsFlags, format: BenchFormat): Promise<number> {
  // Each of these compares or draws one run; across builds that is a question for `swc compare --across-builds`.
  for (const [flag, given] of [
    ['--baseline', flags.baseline !== undefined],
    ['--chart', flags.chart === true],
    ['--chart-out', flags.chartOut !== undefined],
  ] as const) {
    if (given)
      throw new UsageError(
        `${flag}/--redis-server: ${flag} takes one build's run; with several --redis-server, save with --output and use swc compare --across-builds`,
      );
  }
  const args = [...withoutFlags(process.argv.slice(2), ['--redis-server', '--format', '--json', '--output', '--wide']), '--json'];
  const runs = await runAcrossBuilds(binaries, args);
  const results = runs.map(childJson);
  const json = buildsJson(runs, results);
  if (flags.output !== undefined) writeJsonFile('--output', flags.output, json);
  const failed = runs.find((r) => r.code !== ExitCode.ok);
  if (format === 'json') printJson(json);
  else {
    const color = useColor();
    const done: BuildRun[] = runs.flatMap((r, i) => (results[i] === undefined ? [] : [{ label: r.label, build: r.build, report: results[i] }]));
    const plain = done.filter((r) => isBenchReport(r.report));
    const parts: string[] = [];
    if (plain.length > 0) parts.push(renderBuilds(plain, format, color));
    if (format !== 'csv') {
      // A sweep or a ranking has no column group to merge into: each build's own, under its label.
      for (const r of done) {
        const suggestions = (r.report as { suggestions?: Suggestion[] }).suggestions;
        const body = isSweep(r.report)
          ? renderSweep(r.report, format, color, { wide: Boolean(flags.wide) })
          : isBenchReport(r.report) && suggestions
            ? `${renderSuggestionHeadlines(suggestions)}\n${renderSuggestions(suggestions, format, color)}\n${renderBench(r.report, format, color, { wide: Boolean(flags.wide) })}`
            : undefined;
        if (body !== undefined) parts.push(`${format === 'markdown' ? `### ${r.label}` : `== ${r.label} ==`}\n${body}`);
      }
    }
    if (parts.length > 0) process.stdout.write(parts.join('\n'));
  }
  if (failed) process.stderr.write(`swc bench: ${failed.label}: the run failed (exit ${failed.code}; its lines above say why)\n`);
  return failed?.code ?? ExitCode.ok;
}
