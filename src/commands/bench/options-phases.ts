/** `swc bench`, what to measure: the phases after memory (throughput, commands per call, accuracy) and their settings. */
import type { Command } from 'commander';
import { LIMITS, parseDuration, parseNumber } from '../../run/values.js';
import { UsageError } from '../../core/errors.js';
import { SUGGEST_RULE_TEXT } from '../../report/suggest-rule.js';
import { parser } from '../options.js';
import { DEFAULT_CONNECTIONS, DEFAULT_PIPELINE } from '../../bench/defaults.js';
import { APP_VIEW_MS, DEFAULT_PHASE_SECONDS, DEFAULT_ROUNDS, DEFAULT_THRESHOLD } from './flags.js';

/** `--percentiles 50,90,99,99.9`: up to 8 distinct numbers above 0 and below 100, in the order given. */
export function parsePercentiles(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const part of parts) {
    const n = Number(part);
    if (part === '' || !Number.isFinite(n) || n <= 0 || n >= 100) {
      throw new UsageError(`--percentiles: each must be a number above 0 and below 100 (e.g. 50,90,99,99.9), got "${value}"`);
    }
    if (!out.includes(n)) out.push(n);
  }
  if (out.length > 8) throw new UsageError(`--percentiles: at most 8, got ${out.length}`);
  return out;
}

/** --no-throughput, --no-commands, --accuracy, --threshold, --suggest, the throughput settings, --no-app-view, --percentiles. */
export function addPhaseOptions(command: Command): Command {
  return command
    .option('--no-throughput', 'memory only: skip the throughput and latency phases')
    .option('--no-commands', 'skip the commands-per-call phase (INFO commandstats over a few calls of each operation)')
    .option('--accuracy', "measure each layout's failure ratio against the exact window (the default; kept for old scripts)")
    .option(
      '--no-accuracy',
      'skip the accuracy phase: by default each layout also runs 1.25 windows of traffic with an incident on a light of its own, its reads compared with the exact window, and a short probe of its server µs per write and read',
    )
    .option(
      '--threshold <0..1>',
      `accuracy: the failure ratio at which a light opens; reads deciding differently from the exact window are counted (default: ${DEFAULT_THRESHOLD})`,
      parser((v) => parseNumber('--threshold', v, LIMITS.failureRate)),
    )
    .option(
      '--suggest',
      `rank every layout (or those of --layout) for each window and rate by memory per light, server µs per request and accuracy, and say which to pick in a paragraph; rule: ${SUGGEST_RULE_TEXT}; layouts run one at a time, so one whose script fails is named and the others still ranked`,
    )
    .option(
      '--connections <n>',
      'throughput: concurrent connections',
      parser((v) => parseNumber('--connections', v, LIMITS.connections)),
      DEFAULT_CONNECTIONS,
    )
    .option(
      '--pipeline <n>',
      'throughput: operations per pipelined batch on each connection',
      parser((v) => parseNumber('--pipeline', v, LIMITS.pipeline)),
      DEFAULT_PIPELINE,
    )
    .option(
      '--ops <n>',
      'throughput: operations per phase (instead of --time)',
      parser((v) => parseNumber('--ops', v, LIMITS.ops)),
    )
    .option(
      '--max-ops <n/s>',
      'a load cap for every phase: at most n commands per second on the server (a script call counts the commands it runs), over every connection (needed for throughput on a server named only by REDIS_URL)',
      parser((v) => parseNumber('--max-ops', v, { min: 1, max: 10_000_000, integer: true })),
    )
    .option(
      '--time <seconds>',
      `throughput: seconds per phase per layout, split over the rounds (default: ${DEFAULT_PHASE_SECONDS})`,
      parser((v) => parseDuration('--time', v, LIMITS.time)),
    )
    .option(
      '--rounds <n>',
      'throughput: rounds per phase, the layouts alternating (A B A B …); figures are medians with min and max',
      parser((v) => parseNumber('--rounds', v, LIMITS.rounds)),
      DEFAULT_ROUNDS,
    )
    .option(
      '--no-app-view',
      `throughput: skip the application's view (one request at a time through ioredis, timed with tinybench, ${APP_VIEW_MS} ms per layout and cell)`,
    )
    .option(
      '--percentiles <list>',
      'latency percentiles of the throughput tables and JSON (percentilesMs), as memtier takes them, e.g. 50,90,99,99.9 (default: 50,99,99.9)',
      parser(parsePercentiles),
    );
}
