/**
 * `swc verify`: the command's definition. The action and what it runs load
 * only when verify runs (src/commands/verify/action.ts).
 */
import { Command, Option } from 'commander';
import { LIMITS, parseDuration, parseList, parseNumber } from '../run/values.js';
import { CLIENT_NAMES, parseClients } from '../clients/names.js';
import { BUILTIN_LAYOUT_NAMES } from '../layouts/builtin-names.js';
import { TRUST_SCRIPTS_HELP, UNCONFINED_SCRIPTS_HELP } from '../safety/trust.js';
import { addBuildsOption } from './builds.js';
import { layoutRegistry, parsesLayouts } from './layout-parsers.js';
import { action } from './lifecycle.js';
import { addClusterOptions, addJsonOption, addRedisOptions, parser, waitForRunsOption } from './options.js';
import type { VerifyFlags } from './verify/flags.js';

const DEFAULT_CALLS = 20_000;
const CALLS = { min: 1, max: 2_000_000, integer: true };
const LIGHTS = { min: 1, max: 64, integer: true };

const layoutList = parser((v) => parseList('--layout', v, (p) => layoutRegistry().resolveLayoutName(p)));

/** `swc verify`: randomized traffic through a layout and the reference model; every disagreement shrunk to a short reproduction. */
export function verifyCommand(): Command {
  const command = new Command('verify')
    .description(
      'drive seeded random traffic through a layout and the reference model on an injected clock; report disagreements (shrunk to a short reproduction), script errors, keys without a TTL and cluster slots',
    )
    .addOption(
      new Option(
        '--layout <list>',
        `layouts, comma-separated: ${BUILTIN_LAYOUT_NAMES.join(', ')}, or manifest files (default: all registered; with --scripts, the layouts that folder has)`,
      ).argParser(layoutList),
    )
    .addOption(
      new Option(
        '--calls <n>',
        'calls per layout, over every light (with --client: decisions per package, by default 60 in real time and 2,000 on the injected clock)',
      )
        .argParser(parser((v) => parseNumber('--calls', v, CALLS)))
        .default(DEFAULT_CALLS, DEFAULT_CALLS.toLocaleString('en-US')),
    )
    .option(
      '--seed <n>',
      'seed of the traffic, to replay a run (default: random; always printed)',
      parser((v) => parseNumber('--seed', v, LIMITS.seed)),
    )
    .option(
      '--lights <n>',
      'lights per layout, each with its own window',
      parser((v) => parseNumber('--lights', v, LIGHTS)),
      8,
    )
    .option('--trust-scripts', TRUST_SCRIPTS_HELP)
    .option('--unconfined-scripts', UNCONFINED_SCRIPTS_HELP)
    .addOption(waitForRunsOption())
    .option('--scripts <dir>', "run the layouts' scripts from this folder, e.g. an edited copy of swc's lua/ folder")
    .option(
      '--client <names>',
      `rate-limiter packages to hold to the model of their algorithm, through their own calls, comma-separated: ${CLIENT_NAMES.join(', ')}, or all (instead of layouts)`,
      (value: string, previous: string[] | undefined) => parser((v: string) => parseClients(v, previous ?? []))(value),
    )
    .option(
      '--limit <n>',
      'with --client: decisions allowed per window (default: 3)',
      parser((v) => parseNumber('--limit', v, { min: 1, max: 10_000, integer: true })),
    )
    .option(
      '--window <time>',
      "with --client: the window (default: 1 s; a package timed by its key's TTL runs in real time)",
      parser((v) => parseDuration('--window', v, LIMITS.window)),
    )
    .option('--no-progress', 'no progress on stderr')
    .option('-q, --quiet', 'only the answer: the verdict line, and a line per layout');
  addJsonOption(command);
  addRedisOptions(command, { privateServer: true, writes: true });
  addClusterOptions(command);
  addBuildsOption(command);
  command.addHelpText(
    'after',
    `
Traffic: both outcomes, reads between writes, irregular gaps, bursts inside a
second, reads either side of the window's edge, idle gaps longer than the
window, events in the first second of an hour, windows from 1 s to 2 h, and
(from 6,000 calls) one light whose single call evicts over 4,000 buckets.
A disagreement is replayed on fresh lights and shrunk to the fewest calls
that still disagree. Deviations a layout declares are reported apart and are
not findings. On a server swc did not start, every key goes under
swc-bench:<run id>: and exactly those keys are deleted at the end.

On Redis Cluster (--cluster-shards <n> for a private one, or --cluster
--redis-url <node>): each call goes to the primary that owns its keys' slot.
A call Redis refuses because its keys hash to different slots is a finding,
"not cluster-safe: operation <op>, Redis said CROSSSLOT …" (JSON: crossSlot).

Exit codes: 0 no finding, 1 a finding, 2 bad usage, 3 Redis unreachable or
unusable.

Examples:
  swc verify
  swc verify --layout stoplight-v6 --calls 100000
  swc verify --seed 1234 --json
  swc verify --cluster-shards 3 --layout stoplight-v5,stoplight-v6
  # check an edit before committing it:
  swc verify --scripts ./my-lua-copy --layout stoplight-v6`,
  );
  return parsesLayouts(command).action(
    action(async (flags: VerifyFlags, cmd: Command) => {
      if (flags.client) {
        const { verifyClientsAction } = await import('./verify/clients.js');
        return verifyClientsAction({ ...flags, client: flags.client }, cmd.getOptionValueSource('calls') === 'cli');
      }
      const { verifyAction } = await import('./verify/action.js');
      return verifyAction(flags);
    }),
  );
}
