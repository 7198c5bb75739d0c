import { randomInt } from 'node:crypto';
import { Command, Option } from 'commander';
import type { Namespace } from '../bench/namespace.js';
import { guardedRun } from '../bench/guarded-run.js';
import { clusterTarget, singleTarget, type Target } from '../redis/target.js';
import type { LayoutOptions } from '../layouts/types.js';
import { LIMITS, parseList, parseNumber } from '../bench/values.js';
import { ExitCode, ScriptError, UsageError } from '../core/errors.js';
import { createLayout, layoutNames, namespacedLayout, resolveLayoutName, type LayoutName } from '../layouts/index.js';
import { scriptsDirLayouts, scriptsDirNotes } from '../layouts/stoplight/scripts-dir.js';
import { renderVerify, verifyResultJson } from '../report/verify.js';
import { proseWidth, wrapText } from '../report/width.js';
import type { VerifyResult } from '../verify/types.js';
import { verifyLayout } from '../verify/verify.js';
import { TRUST_SCRIPTS_HELP } from '../safety/trust.js';
import { SWC_VERSION } from '../core/version.js';
import { action, onShutdown } from './lifecycle.js';
import { addBuildsOption, buildsToRun, type BuildsFlags } from './builds.js';
import { verifyAcrossBuilds } from './verify/builds.js';
import type { ClusterSession } from '../redis/cluster.js';
import { openCluster, primariesOf } from './cluster-read.js';
import {
  addClusterOptions,
  addJsonOption,
  addRedisOptions,
  parser,
  printJson,
  sessionFromFlags,
  turnWaitMs,
  waitForRunsOption,
  useColor,
  wantsCluster,
  type ClusterFlags,
  type RedisFlags,
} from './options.js';
import { SCHEMA_VERSION } from '../core/schema-version.js';

interface VerifyFlags extends RedisFlags, ClusterFlags, BuildsFlags {
  layout?: LayoutName[];
  calls: number;
  seed?: number;
  lights: number;
  json?: boolean;
  progress: boolean;
  scripts?: string;
  trustScripts?: boolean;
  /** `--wait-for-runs`, seconds. */
  waitForRuns?: number;
}

const DEFAULT_CALLS = 20_000;
const CALLS = { min: 1, max: 2_000_000, integer: true };
const LIGHTS = { min: 1, max: 64, integer: true };
/** A generous bound on the bytes one call leaves in Redis at once (a 5.x event is about 120). */
const PEAK_BYTES_PER_CALL = 250;

const layoutList = parser((v) => parseList('--layout', v, (p) => resolveLayoutName(p)));

/** `swc verify`: randomized traffic through a layout and the reference model; every disagreement shrunk to a short reproduction. */
export function verifyCommand(): Command {
  const command = new Command('verify')
    .description(
      'drive seeded random traffic through a layout and the reference model on an injected clock; report disagreements (shrunk to a short reproduction), script errors, keys without a TTL and cluster slots',
    )
    .addOption(
      new Option(
        '--layout <list>',
        `layouts, comma-separated: ${layoutNames.join(', ')}, or manifest files (default all registered; with --scripts, the layouts that folder has)`,
      ).argParser(layoutList),
    )
    .addOption(
      new Option('--calls <n>', 'calls per layout, over every light')
        .argParser(parser((v) => parseNumber('--calls', v, CALLS)))
        .default(DEFAULT_CALLS, DEFAULT_CALLS.toLocaleString('en-US')),
    )
    .option(
      '--seed <n>',
      'seed of the traffic, to replay a run (default random; always printed)',
      parser((v) => parseNumber('--seed', v, LIMITS.seed)),
    )
    .option(
      '--lights <n>',
      'lights per layout, each with its own window',
      parser((v) => parseNumber('--lights', v, LIGHTS)),
      8,
    )
    .option('--trust-scripts', TRUST_SCRIPTS_HELP)
    .addOption(waitForRunsOption())
    .option('--scripts <dir>', "run the layouts' scripts from this folder, e.g. an edited copy of swc's lua/ folder")
    .option('--no-progress', 'no progress on stderr');
  addJsonOption(command);
  addRedisOptions(command, { privateServer: true });
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
  return command.action(
    action(async (flags: VerifyFlags) => {
      const seed = flags.seed ?? randomInt(0, 2 ** 32);
      // Several --redis-server: the same traffic (this seed) on each build (src/commands/verify-builds.ts).
      const builds = buildsToRun(flags);
      if (builds)
        return verifyAcrossBuilds(builds, seed, flags.json === true, {
          settings: flags.redisServerArg ?? [],
          ...(flags.scripts !== undefined ? { scriptsDir: flags.scripts } : {}),
        });
      // A Stoplight tree holds one version's scripts: by default, verify the layouts it has.
      const names = flags.layout ?? (flags.scripts !== undefined ? scriptsDirLayouts(flags.scripts) : [...layoutNames]);
      // A Stoplight tree's folders that are not verified are named, not left out silently.
      if (flags.scripts !== undefined && flags.layout === undefined)
        for (const note of scriptsDirNotes(flags.scripts)) process.stderr.write(`swc verify: ${note}\n`);
      const scripts = flags.scripts !== undefined ? { scriptsDir: flags.scripts } : {};
      // Every layout is built (its scripts read) before Redis is touched: a missing file is bad input.
      for (const name of names) {
        try {
          createLayout(name, scripts);
        } catch (err) {
          if (flags.scripts !== undefined && err instanceof ScriptError) throw new UsageError(`--scripts: ${err.message}`);
          throw err;
        }
      }
      const say = (line: string): void => {
        if (flags.progress) process.stderr.write(`swc verify: ${line}\n`);
      };
      const usersUrl = flags.redisUrl ?? (process.env.REDIS_URL || undefined);
      let cluster: ClusterSession | undefined;
      const results = await guardedRun(
        {
          command: 'swc verify',
          layouts: names,
          layoutOptions: scripts,
          trustScripts: flags.trustScripts === true,
          ...(usersUrl !== undefined ? { usersUrl } : {}),
          open: async () => {
            // The seed is printed whatever the flags: a finding is only useful if it can be replayed.
            process.stderr.write(`swc verify: seed ${seed} (replay with --seed ${seed})\n`);
            if (!wantsCluster(flags)) return singleTarget(await sessionFromFlags(flags));
            cluster = await openCluster(flags);
            const target = clusterTarget(cluster);
            say(
              `on a cluster of ${target.shards.length} primaries (${target.shards.map((s) => s.node).join(', ')})${target.private ? ', started by swc' : ''}`,
            );
            return target;
          },
          peakBytes: () => flags.calls * PEAK_BYTES_PER_CALL,
          // verify has no --allow-eviction: the way out is a smaller run.
          refusalHint: ' (fewer --calls need less memory)',
          // As bench: mark the run so `swc clean` spares it and a bench on this server waits, and take turns with other runs.
          takeTurns: {
            timeoutMs: turnWaitMs(flags.waitForRuns),
            onWait: (others) =>
              say(
                `another swc run is writing to this server (${others.join(', ')}); waiting for it to end (at most ${turnWaitMs(flags.waitForRuns) / 1000} s)`,
              ),
          },
          say: (line) => void process.stderr.write(`${line}\n`),
          onSignal: onShutdown,
        },
        ({ target, namespace, signal }) => verifyEach(names, target, namespace, scripts, { seed, calls: flags.calls, lights: flags.lights, signal, say }),
      );
      const findings = results.reduce((sum, r) => sum + r.findings, 0);
      if (flags.json)
        printJson({
          schemaVersion: SCHEMA_VERSION,
          swcVersion: SWC_VERSION,
          seed,
          findings,
          results: results.map(verifyResultJson),
          ...(cluster ? { cluster: { primaries: primariesOf(cluster) } } : {}),
        });
      else process.stdout.write(wrapText(renderVerify(results, useColor()), proseWidth(), 4));
      return findings > 0 ? ExitCode.finding : ExitCode.ok;
    }),
  );
}

/** Each layout verified in turn on the guarded target; key names without the run's namespace. */
async function verifyEach(
  names: readonly LayoutName[],
  target: Target,
  namespace: Namespace,
  scripts: LayoutOptions,
  options: { seed: number; calls: number; lights: number; signal: AbortSignal; say: (line: string) => void },
): Promise<VerifyResult[]> {
  const { say } = options;
  const results: VerifyResult[] = [];
  for (const name of names) {
    const layout = namespacedLayout(name, namespace.prefix, scripts);
    let shown = -1;
    const result = await verifyLayout(target.redis, layout, {
      seed: options.seed,
      calls: options.calls,
      lights: options.lights,
      signal: options.signal,
      // On a server of its own swc may MONITOR a replay to show what a failing script sent.
      monitorRejected: target.private && !target.cluster,
      progress: {
        onCalls: (sent, total) => {
          const tenth = Math.floor((sent / total) * 4);
          if (tenth !== shown) {
            shown = tenth;
            say(`${name}: ${sent.toLocaleString('en-US')}/${total.toLocaleString('en-US')} calls`);
          }
        },
        onShrinkStart: (what, length) => say(`${name}: shrinking a ${what} (${length.toLocaleString('en-US')} calls)`),
      },
    });
    say(`${name}: ${result.findings === 0 ? 'no finding' : `${result.findings} finding(s)`} in ${result.durationSeconds.toFixed(1)} s`);
    results.push(stripNamespace(result, `${namespace.prefix}:`));
  }
  return results;
}

/** Key names as the layout writes them, without this run's namespace. */
function stripNamespace(result: VerifyResult, prefix: string): VerifyResult {
  return {
    ...result,
    keysWithoutTtl: result.keysWithoutTtl.map((k) => ({ ...k, key: k.key.startsWith(prefix) ? k.key.slice(prefix.length) : k.key })),
    scriptErrors: result.scriptErrors.map((e) => (e.rejected === undefined ? e : { ...e, rejected: e.rejected.split(prefix).join('') })),
  };
}
