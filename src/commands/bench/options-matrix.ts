/** `swc bench`, what to run: the matrix of layouts, windows and rates, and the traffic of each cell. */
import { Option, type Command } from 'commander';
import { presets } from '../../bench/presets.js';
import { LIMITS, parseChoice, parseDuration, parseList, parseNumber } from '../../run/values.js';
import { BUILTIN_DEFAULT_LAYOUT_NAMES, BUILTIN_LAYOUT_NAMES } from '../../layouts/builtin-names.js';
import { layoutRegistry } from '../layout-parsers.js';
import { parser } from '../options.js';
import { DEFAULT_FAILURE_RATE, DEFAULT_LIGHTS, DEFAULT_SEED } from '../../bench/defaults.js';
import { DEFAULT_RATES, DEFAULT_REALTIME_SECONDS, DEFAULT_WINDOWS } from './flags.js';

const rateList = parser((v) => parseList('--rate', v, (p) => parseNumber('--rate', p, LIMITS.rate)));
const windowList = parser((v) => parseList('--window', v, (p) => parseDuration('--window', p, LIMITS.window)));
// `all` stands for every registered layout, in registration order.
const layoutList = parser((v) => {
  const { layoutNames, resolveLayoutName } = layoutRegistry();
  return [...new Set(parseList('--layout', v, (p) => (p === 'all' ? [...layoutNames] : [resolveLayoutName(p)])).flat())];
});

/** --rate, --window, --layout, --failure-rate, --lights, --duration, --realtime, --preset, --seed. */
export function addMatrixOptions(command: Command): Command {
  return command
    .option('--rate <list>', `requests per second per light, comma-separated (default: ${DEFAULT_RATES.join(',')})`, rateList)
    .option('--window <list>', `window sizes, comma-separated: 300, 90s, 5m, 1h (default: ${DEFAULT_WINDOWS.join(',')} s)`, windowList)
    .addOption(
      new Option(
        '--layout <list>',
        `layouts, comma-separated: ${BUILTIN_LAYOUT_NAMES.join(', ')}, a manifest file, or all (default: ${BUILTIN_DEFAULT_LAYOUT_NAMES.join(',')})`,
      ).argParser(layoutList),
    )
    .option(
      '--failure-rate <0..1>',
      'share of failures (seeded Bernoulli per event)',
      parser((v) => parseNumber('--failure-rate', v, LIMITS.failureRate)),
      DEFAULT_FAILURE_RATE,
    )
    .option(
      '--lights <n>',
      'lights per cell; memory is reported per light',
      parser((v) => parseNumber('--lights', v, LIMITS.lights)),
      DEFAULT_LIGHTS,
    )
    .option(
      '--duration <time>',
      `traffic time per cell: simulated (default: one window), or real with --realtime (default: ${DEFAULT_REALTIME_SECONDS} s), at most 1 h`,
      parser((v) => parseDuration('--duration', v, LIMITS.duration)),
    )
    .option('--realtime', "real traffic paced at --rate on the server's clock for --duration real seconds per cell; no throughput phase")
    .option(
      '--preset <name>',
      `a named matrix: ${Object.keys(presets).join(', ')} (with published figures)`,
      parser((v) => parseChoice('--preset', v, Object.keys(presets))),
    )
    .option(
      '--seed <n>',
      'seed for outcomes and event ids (same seed, same bytes)',
      parser((v) => parseNumber('--seed', v, LIMITS.seed)),
      DEFAULT_SEED,
    );
}
